// SPDX-License-Identifier: ISC
// Starts the kinds of descendants that escape naive kills, each holding a shared lock that only its death releases.
//
// usage: tree LOCK READY [exit]
// Starts a background child, a child in its own session (setsid) and a
// double-forked grandchild (reparented away from this process); each takes
// flock(LOCK, LOCK_SH) on its own open file description and sleeps forever.
// Once all hold the lock (and this process too), READY is created. With
// "exit", the main process then exits 0 and leaves the others behind. A test
// proves the whole tree is dead when flock(LOCK, LOCK_EX) succeeds.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *lock_path;
static int ready_pipe[2];

static void take_lock(void)
{
	int fd = open(lock_path, O_RDONLY | O_CREAT, 0644);

	if (fd < 0 || flock(fd, LOCK_SH) < 0) {
		perror(lock_path);
		_exit(1);
	}
}

static void sleeper(void)
{
	take_lock();
	if (write(ready_pipe[1], "x", 1) != 1)
		_exit(1);
	close(ready_pipe[0]);
	close(ready_pipe[1]);
	for (;;)
		pause();
}

static pid_t start(int kind)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid > 0)
		return pid;
	if (kind == 1 && setsid() < 0)
		_exit(1);
	if (kind == 2) {
		/* The intermediate exits at once, so the grandchild is reparented (to the subreaper). */
		pid = fork();
		if (pid != 0)
			_exit(pid < 0 ? 1 : 0);
	}
	sleeper();
	return 0;
}

int main(int argc, char **argv)
{
	char buf[3];
	size_t got = 0;
	pid_t mid;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: tree LOCK READY [exit]\n");
		return 2;
	}
	lock_path = argv[1];
	if (pipe(ready_pipe) < 0) {
		perror("pipe");
		return 1;
	}
	start(0);
	start(1);
	mid = start(2);
	waitpid(mid, NULL, 0);
	close(ready_pipe[1]);
	while (got < sizeof(buf)) {
		ssize_t n = read(ready_pipe[0], buf + got, sizeof(buf) - got);
		if (n <= 0) {
			fprintf(stderr, "tree: a sleeper failed\n");
			return 1;
		}
		got += (size_t)n;
	}
	close(ready_pipe[0]);
	take_lock();
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	close(fd);
	if (argc > 3 && strcmp(argv[3], "exit") == 0)
		return 0;
	for (;;)
		pause();
}
