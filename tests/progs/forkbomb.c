// SPDX-License-Identifier: ISC
// A fork bomb: every process forks forever; failed forks are counted, for the --pids tests.
//
// usage: forkbomb READY
// Creates READY once a fork has failed (the bomb hit a limit), then goes on
// forking until killed.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int told = 0;

	if (argc != 2)
		return 2;
	for (;;) {
		pid_t pid = fork();

		if (pid < 0) {
			struct timespec ts = {0, 1000000};

			if (!told) {
				int fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

				if (fd >= 0)
					close(fd);
				told = 1;
			}
			nanosleep(&ts, NULL);
		} else if (pid == 0) {
			told = 1; /* only the first process tells */
		}
	}
}
