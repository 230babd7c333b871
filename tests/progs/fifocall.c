// SPDX-License-Identifier: ISC
// One wait as a shell makes it, under a timeout, in one process: the
// black-box scripts' pd_wait (tests/blackbox/lib.sh).
//
// usage: fifocall SECONDS REQ DIR
//   [ -p DIR/wait ] && echo REQ > DIR/wait && cat DIR/status
// The answer, whatever it is, goes to stdout as read. Exit 0 at the
// status FIFO's EOF; 1 when DIR/wait is not a FIFO or a step fails (with a
// line on stderr); 124, as timeout(1), when SECONDS pass first (SIGALRM
// interrupts the blocked open or read).
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void on_alarm(int sig)
{
	(void)sig;
	_exit(124);
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "fifocall: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	char wait_path[4096], status_path[4096], buf[4096];
	struct stat st;
	struct sigaction sa;
	size_t len;
	ssize_t n;
	int fd;

	if (argc != 4 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: fifocall SECONDS REQ DIR\n");
		return 2;
	}
	if ((size_t)snprintf(wait_path, sizeof(wait_path), "%s/wait", argv[3]) >= sizeof(wait_path) ||
	    (size_t)snprintf(status_path, sizeof(status_path), "%s/status", argv[3]) >=
		    sizeof(status_path)) {
		fprintf(stderr, "fifocall: %s: path too long\n", argv[3]);
		return 1;
	}
	// No SA_RESTART: the handler ends the process anyway.
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned)atoi(argv[1]));

	// [ -p wait ]: once proctord is gone, "> wait" would create a file.
	if (stat(wait_path, &st) != 0)
		return fail("stat", wait_path);
	if (!S_ISFIFO(st.st_mode)) {
		fprintf(stderr, "fifocall: %s: not a FIFO\n", wait_path);
		return 1;
	}
	len = strlen(argv[2]);
	if (len + 1 > sizeof(buf)) {
		fprintf(stderr, "fifocall: request too long\n");
		return 1;
	}
	memcpy(buf, argv[2], len);
	buf[len++] = '\n';
	// echo REQ > wait: one write of the line, as the shell's builtin does.
	fd = open(wait_path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("open", wait_path);
	n = write(fd, buf, len);
	close(fd);
	if (n != (ssize_t)len)
		return fail("write", wait_path);
	// cat status: to EOF.
	fd = open(status_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("open", status_path);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(STDOUT_FILENO, buf, (size_t)n) != n) {
			fail(n < 0 ? "read" : "write to stdout:", status_path);
			close(fd);
			return 1;
		}
	}
	close(fd);
	return 0;
}
