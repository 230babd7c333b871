// SPDX-License-Identifier: ISC
// Burns CPU in children nobody waits for (SIGCHLD ignored: the kernel reaps them), then sleeps.
//
// usage: orphans N MS READY
// Ignores SIGCHLD, starts N children that each burn MS ms of CPU and exit,
// creates READY once all have ended, then sleeps until killed. Their rusage
// reaches nobody: only a cgroup still counts their CPU.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int n, ms, p[2], fd;
	char c;

	if (argc != 4)
		return 2;
	n = atoi(argv[1]);
	ms = atoi(argv[2]);
	signal(SIGCHLD, SIG_IGN);
	if (pipe(p) < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		if (fork() == 0) {
			double end = cpu_s() + ms / 1000.0;

			close(p[0]);
			while (cpu_s() < end)
				;
			_exit(0); /* the write end closes with it */
		}
	}
	close(p[1]);
	/* EOF once every child has exited. */
	while (read(p[0], &c, 1) > 0)
		;
	fd = open(argv[3], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	for (;;)
		pause();
}
