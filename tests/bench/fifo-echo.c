// SPDX-License-Identifier: ISC
// The physical floor for a wait: a blocking FIFO server that always gives the same answer.

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// Same shape as a proctord answer, so the client reads the same number of bytes.
static const char echo_answer[] = "1234\n2801664\nrunning\n";

static int echo_open(const char *dir, const char *name, int flags)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		fprintf(stderr, "fifo-echo: path too long\n");
		return -1;
	}
	do
		fd = open(path, flags | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		fprintf(stderr, "fifo-echo: open %s: %s\n", path, strerror(errno));
	return fd;
}

// One answer per request byte '1' or '0'; a '0' ends the server like it ends proctord.
static int echo_serve(const char *dir, int wait_fd)
{
	for (;;) {
		char buf[256];
		ssize_t n = read(wait_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "fifo-echo: read wait: %s\n",
				n < 0 ? strerror(errno) : "unexpected EOF");
			return 1;
		}
		for (ssize_t i = 0; i < n; i++) {
			int fd;

			if (buf[i] != '0' && buf[i] != '1')
				continue;
			fd = echo_open(dir, "status", O_WRONLY);
			if (fd < 0)
				return 1;
			// A client that went away is its problem, not the server's.
			if (write(fd, echo_answer, sizeof(echo_answer) - 1) < 0 && errno != EPIPE)
				fprintf(stderr, "fifo-echo: write status: %s\n", strerror(errno));
			close(fd);
			if (buf[i] == '0')
				return 0;
		}
	}
}

int main(int argc, char **argv)
{
	int wait_fd;

	// A client that closes its status end early must not kill the server.
	signal(SIGPIPE, SIG_IGN);
	if (argc != 2) {
		fprintf(stderr, "usage: fifo-echo DIR  (DIR holds the FIFOs wait and status)\n");
		return 2;
	}
	// O_RDWR holds a write end too, so a client's close never turns into EOF here,
	// exactly as proctord holds its own write end of wait.
	wait_fd = echo_open(argv[1], "wait", O_RDWR);
	if (wait_fd < 0)
		return 1;
	return echo_serve(argv[1], wait_fd);
}
