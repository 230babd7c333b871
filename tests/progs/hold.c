// SPDX-License-Identifier: ISC
// Holds N MiB of touched (resident) memory until told to exit, for the memory figure tests.
//
// usage: hold MIB READY FIFO
// Touch MIB MiB, create the file READY, then block until a writer opens FIFO; exit 0.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t size;
	char *p;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: hold MIB READY FIFO\n");
		return 2;
	}
	size = (size_t)strtoul(argv[1], NULL, 10) << 20;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* Non-zero bytes: a zero page or KSM could otherwise leave pages unbacked. */
	memset(p, 0x5a, size);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[2]);
		munmap(p, size);
		return 1;
	}
	close(fd);
	while ((fd = open(argv[3], O_RDONLY)) < 0) {
		if (errno != EINTR) {
			perror(argv[3]);
			munmap(p, size);
			return 1;
		}
	}
	close(fd);
	return p[size - 1] == 0x5a ? 0 : 1;
}
