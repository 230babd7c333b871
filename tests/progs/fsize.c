// SPDX-License-Identifier: ISC
// Writes MIB MiB to a file, to run into --fsize.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[65536];
	long chunks;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: fsize PATH MIB\n");
		return 2;
	}
	chunks = strtol(argv[2], NULL, 10) * 16;
	memset(buf, 'x', sizeof(buf));
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (long i = 0; i < chunks; i++) {
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			/* Only reached if SIGXFSZ was left ignored: the sandbox should have reset it. */
			perror("write");
			return 1;
		}
	}
	return close(fd) == 0 ? 0 : 1;
}
