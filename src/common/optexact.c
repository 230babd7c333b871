// SPDX-License-Identifier: ISC
// Long options by their exact names: getopt_long would take any unambiguous prefix.
//
// An abbreviation that works today breaks when a new option shares its
// prefix, and a wrapper that must recognise some options (proctor run owns
// --dir and --daemonize) cannot when any prefix of them would do.
#include <string.h>

#include "optexact.h"

static const struct option *optexact_find(const struct option *longopts, const char *name,
					  size_t len, int prefix)
{
	const struct option *found = NULL;

	for (const struct option *o = longopts; o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (o->name[len] == '\0')
			return o;
		if (prefix)
			found = found ? found : o;
	}
	return found;
}

// cppcheck-suppress constParameter ; getopt_long's own type
int optexact_check(int argc, char *const argv[], const char *shortopts,
		   const struct option *longopts, const char *prog, const char *help, FILE *err)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq;
		const struct option *o;
		size_t len;

		if (strcmp(a, "--") == 0 || a[0] != '-' || a[1] == '\0')
			return 0; /* the operands start here */
		if (a[1] != '-') {
			/* Short options: one that takes a value ends the group,
			 * and takes the next argument if none follows. */
			for (const char *c = a + 1; *c; c++) {
				const char *s = strchr(shortopts, *c);

				if (s && s[1] == ':') {
					if (c[1] == '\0')
						i++;
					break;
				}
			}
			continue;
		}
		eq = strchr(a + 2, '=');
		len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
		o = optexact_find(longopts, a + 2, len, 0);
		if (!o) {
			const struct option *near = optexact_find(longopts, a + 2, len, 1);

			fprintf(err, "%s: unknown option '--%.*s'", prog, (int)len, a + 2);
			if (near)
				fprintf(err, " (did you mean --%s?)", near->name);
			fprintf(err, "; see '%s'\n", help);
			return -1;
		}
		if (o->has_arg == required_argument && !eq)
			i++;
	}
	return 0;
}
