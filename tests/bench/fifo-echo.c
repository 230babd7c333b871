// SPDX-License-Identifier: ISC
// The physical floor for a wait: a blocking FIFO server that always gives the same answer.
// With --figures, before each answer it also makes the reads a proctord answer needs
// (the reap check, the cgroup's cpu.stat, the children lists, stat and statm of a
// two-process tree), so the gap between the two servers is what those reads cost.

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

// The files read before each answer with --figures; -1: none.
static int echo_files[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
static size_t echo_nfiles;
static pid_t echo_child = -1;

static void echo_add(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && echo_nfiles < sizeof(echo_files) / sizeof(echo_files[0]))
		echo_files[echo_nfiles++] = fd;
	else if (fd < 0)
		fprintf(stderr, "fifo-echo: --figures: %s: %s (not read)\n", path, strerror(errno));
}

// A tree like proctord's (this server and a child that waits), and its cgroup's
// cpu.stat where cgroup v2 (or the hybrid unified tree) gives one.
static void echo_figures(void)
{
	char path[PATH_MAX], line[1024];
	pid_t self = getpid(), child = fork();
	FILE *f;

	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	echo_child = child;
	if (child < 0) {
		perror("fifo-echo: fork");
		return;
	}
	f = fopen("/proc/self/cgroup", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.stat", line + 3);
		if (access(path, R_OK) != 0)
			snprintf(path, sizeof(path), "/sys/fs/cgroup/unified%s/cpu.stat", line + 3);
		echo_add(path);
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)self, (int)self);
	echo_add(path);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
	echo_add(path);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)child, (int)child);
	echo_add(path);
	snprintf(path, sizeof(path), "/proc/%d/statm", (int)child);
	echo_add(path);
}

static void echo_read_figures(void)
{
	char buf[4096];

	if (!echo_nfiles)
		return;
	waitpid(-1, NULL, WNOHANG);
	for (size_t i = 0; i < echo_nfiles; i++)
		if (pread(echo_files[i], buf, sizeof(buf), 0) < 0)
			fprintf(stderr, "fifo-echo: pread: %s\n", strerror(errno));
}

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
			echo_read_figures();
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
	int wait_fd, rc;

	// A client that closes its status end early must not kill the server.
	signal(SIGPIPE, SIG_IGN);
	if (argc != 2 && !(argc == 3 && strcmp(argv[2], "--figures") == 0)) {
		fprintf(stderr, "usage: fifo-echo DIR [--figures]  (DIR holds the FIFOs wait and "
				"status)\n");
		return 2;
	}
	if (argc == 3)
		echo_figures();
	// O_RDWR holds a write end too, so a client's close never turns into EOF here,
	// exactly as proctord holds its own write end of wait.
	wait_fd = echo_open(argv[1], "wait", O_RDWR);
	if (wait_fd < 0)
		return 1;
	rc = echo_serve(argv[1], wait_fd);
	if (echo_child > 0) {
		kill(echo_child, SIGKILL);
		waitpid(echo_child, NULL, 0);
	}
	return rc;
}
