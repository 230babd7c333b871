// SPDX-License-Identifier: ISC
// Writes the numbers of its open descriptors to a file, to prove nothing leaks past 0, 1 and 2.
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	char list[4096] = "";
	size_t len = 0;
	struct dirent *e;
	DIR *d;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: fdcheck OUT\n");
		return 2;
	}
	/* List before opening OUT, and skip the directory's own descriptor. */
	d = opendir("/proc/self/fd");
	if (d == NULL) {
		perror("/proc/self/fd");
		return 1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? " " : "", e->d_name);
		if (len >= sizeof(list))
			return 1;
	}
	closedir(d);
	f = fopen(argv[1], "w");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	fprintf(f, "%s\n", list);
	return fclose(f) == 0 ? 0 : 1;
}
