// SPDX-License-Identifier: ISC
// Runs a fuzz target over saved inputs (files, or directories of them) without libFuzzer.
//
// The ordinary and sanitized builds link each target with this driver and run
// it over tests/fuzz/corpus: the seeds and every input that once found a bug
// stay regression tests, whatever compiler builds the project.
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path, size_t *count)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *exact;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *more;

			cap = cap ? cap * 2 : 4096;
			more = realloc(buf, cap);
			FUZZ_CHECK(more);
			buf = more;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		fprintf(stderr, "replay: read %s\n", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* A copy of exactly len bytes, so that ASan sees a read past the input. */
	exact = malloc(len ? len : 1);
	FUZZ_CHECK(exact);
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	(*count)++;
	return 0;
}

/* A file, or a directory of files (one level: a corpus is flat). */
static int replay_path(const char *path, size_t *count)
{
	struct dirent **list;
	struct stat st;
	int n, rc = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path, count);
	n = scandir(path, &list, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char sub[PATH_MAX];

		if (list[i]->d_name[0] != '.' &&
		    (size_t)snprintf(sub, sizeof sub, "%s/%s", path, list[i]->d_name) <
			sizeof sub &&
		    stat(sub, &st) == 0 && S_ISREG(st.st_mode) && replay_file(sub, count) < 0)
			rc = -1;
		free(list[i]);
	}
	free(list);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i], &count) < 0)
			rc = 1;
	printf("%s: %zu inputs replayed%s\n", argv[0], count, rc ? ", some unreadable" : "");
	return count == 0 ? 1 : rc;
}
