// SPDX-License-Identifier: ISC
// The unit tests' way to parse an isolate command line written as a list of words (include after
// cmocka.h).
#ifndef PROCTOR_TEST_ISOPARSE_H
#define PROCTOR_TEST_ISOPARSE_H

#include "isoopt.h"

static struct iso_opts opts;

/* Parse a NULL-ended list of words (argv[0] first). */
static int parse_words(const char *const *words)
{
	static char *argv[128];
	int argc = 0;

	while (words[argc]) {
		argv[argc] = (char *)words[argc];
		argc++;
	}
	argv[argc] = NULL;
	return iso_parse(argc, argv, &opts);
}

#define PARSE(...) parse_words((const char *const[]){"isolate", __VA_ARGS__, NULL})

static void parse_ok(int rc)
{
	if (rc != 0)
		fail_msg("refused: %s", opts.error);
}

#endif
