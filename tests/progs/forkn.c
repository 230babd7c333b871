// SPDX-License-Identifier: ISC
// Start N children that each hold a shared lock on LOCK and sleep, then write READY and sleep: a wide tree.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: forkn N LOCK READY\n");
		return 2;
	}
	n = strtol(argv[1], NULL, 10);
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			fd = open(argv[2], O_RDONLY | O_CREAT, 0644);
			if (fd < 0 || flock(fd, LOCK_SH) < 0)
				_exit(1);
			for (;;)
				pause();
		}
	}
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
	for (;;)
		pause();
}
