// SPDX-License-Identifier: ISC
// Tries to outlive proctord: clears its parent-death signal, then forks away from it.
//
// usage: escape READY
// Every process holds LOCK_SH on standard input (a file), so that an
// exclusive lock proves that none of them is left. The program clears its
// parent-death signal, starts a child in a session of its own and a
// double-forked grandchild (whose parent exits), each of which clears its own
// too, creates READY once both are started, and sleeps until killed.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <unistd.h>

static void stay(int ready)
{
	if (write(ready, "x", 1) != 1)
		_exit(1);
	close(ready);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	int p[2], fd;
	char buf[2];

	if (argc != 2)
		return 2;
	if (prctl(PR_SET_PDEATHSIG, 0) < 0 || flock(0, LOCK_SH) < 0 || pipe(p) < 0)
		return 1;
	if (fork() == 0) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, 0);
		setsid();
		stay(p[1]);
	}
	if (fork() == 0) {
		close(p[0]);
		setsid();
		if (fork() == 0) {
			prctl(PR_SET_PDEATHSIG, 0);
			stay(p[1]);
		}
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], buf, 1) != 1 || read(p[0], buf + 1, 1) != 1)
		return 1;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	for (;;)
		pause();
}
