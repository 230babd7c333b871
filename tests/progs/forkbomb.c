// SPDX-License-Identifier: ISC
// A fork bomb: every process forks forever; failed forks are counted, for the --pids tests.
//
// usage: forkbomb READY
// Creates READY once a fork has failed (the bomb hit a limit), then goes on
// forking until killed. A process tells at its first refused fork, unless
// it or its parent (before forking it) already has. When only the first
// process told, beside two CPU hogs it once waited its turn among 512
// runnable processes for more than the 2 s pids-rlimit.sh gave the bomb.
//
// After a failed fork a process spins for 1 ms of its own CPU time before it
// tries again: the bomb keeps every CPU it is given busy (the tests end it
// at a CPU limit) but fails about 1,000 forks a second per CPU, whatever
// its number of processes. It used to sleep 1 ms instead: under a pids
// limit of 64 it failed 25,000 to 38,000 forks a second, whose kernel memory
// is freed only after RCU grace periods (256 MiB at a time, see
// contrib/proctor.conf), and as 512 processes in a rootless box
// (pids-rlimit.sh) its wake-ups and failed forks kept a process elsewhere
// on the machine from a CPU for up to 5.6 s (Linux 6.18, 2 CPUs); in CI, a
// 5.5 s proctor stop in stop.sh, beside it, took 13 s.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int told = 0;

	if (argc != 2)
		return 2;
	for (;;) {
		pid_t pid = fork();

		if (pid < 0) {
			long long until = cpu_ns() + 1000000;

			if (!told) {
				int fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

				if (fd >= 0)
					close(fd);
				told = 1;
			}
			while (cpu_ns() < until)
				;
		}
	}
}
