// SPDX-License-Identifier: ISC
// Test helper: tries one thing the sandbox may forbid (a system call, a connection, a signal, an open) and prints what happened.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/msg.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

static int usage(void)
{
	fprintf(stderr,
		"usage: probe syscall keyctl|add_key|io_uring_setup|vsock|ptrace|personality|mount|"
		"unshare|clone-newuser|clone3\n"
		"       probe connect PORT | listen PORTFILE | ifaces\n"
		"       probe msgq-create KEY | msgq-find KEY | msgq-remove KEY\n"
		"       probe kill PID | open PATH | creat-mode PATH OCTAL | ids | session | tiocsti\n"
		"       probe write N | close-stdout MS\n"
		"       probe inotify-hog COMMAND [ARG...]\n");
	return 2;
}

/* Prints "NAME: ok" or "NAME: ERRNONAME" and exits 0: it returned. */
static int said(const char *what, long r)
{
	if (r < 0)
		printf("%s: %s\n", what, strerrorname_np(errno));
	else
		printf("%s: ok\n", what);
	return 0;
}

static int probe_syscall(const char *name)
{
	if (strcmp(name, "keyctl") == 0) /* KEYCTL_GET_KEYRING_ID of the session keyring */
		return said(name, syscall(SYS_keyctl, 0, -3, 0, 0, 0));
	if (strcmp(name, "add_key") == 0) /* a user key in the user key ring (@u, -4) */
		return said(name, syscall(SYS_add_key, "user", "proctor-probe", "x", 1, -4));
	if (strcmp(name, "io_uring_setup") == 0) {
		char params[120];

		memset(params, 0, sizeof params);
		return said(name, syscall(SYS_io_uring_setup, 1, params));
	}
	if (strcmp(name, "vsock") == 0)
		return said(name, socket(AF_VSOCK, SOCK_STREAM, 0));
	/* Each call is harmless where it is allowed: this helper also runs
	 * as root without a filter, as the tests' control. */
	if (strcmp(name, "ptrace") == 0) /* PTRACE_ATTACH to a pid that cannot exist */
		return said(name, syscall(SYS_ptrace, 16, 0x7fffffff, 0, 0));
	if (strcmp(name, "personality") == 0)
		return said(name, personality(ADDR_NO_RANDOMIZE));
	if (strcmp(name, "personality-query") == 0)
		return said(name, personality(0xffffffff));
	if (strcmp(name, "mount") == 0)
		return said(name, syscall(SYS_mount, "none", "/nonexistent/proctor-probe", "tmpfs",
					  0, NULL));
	if (strcmp(name, "unshare") == 0)
		return said(name, syscall(SYS_unshare, 0x10000000 /* CLONE_NEWUSER */));
	if (strcmp(name, "clone-newuser") == 0) {
		long p = syscall(SYS_clone, 0x10000000 /* CLONE_NEWUSER */ | SIGCHLD, NULL, NULL,
				 NULL, NULL);

		if (p == 0)
			_exit(0);
		if (p > 0)
			waitpid((pid_t)p, NULL, 0);
		return said(name, p);
	}
	if (strcmp(name, "clone3") == 0)
		return said(name, syscall(SYS_clone3, NULL, 0));
	if (strcmp(name, "fork") == 0) {
		/* An ordinary fork (glibc: clone without namespace flags). */
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		if (p > 0)
			waitpid(p, NULL, 0);
		return said(name, p);
	}
	return usage();
}

static int probe_connect(const char *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
	int s = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0)
		return said("socket", -1);
	said("connect", connect(s, (struct sockaddr *)&a, sizeof a));
	return 0;
}

static int probe_listen(const char *portfile)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof a;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	FILE *f;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0) {
		perror("probe listen");
		if (s >= 0)
			close(s);
		return 1;
	}
	f = fopen(portfile, "w");
	if (!f) {
		close(s);
		return 1;
	}
	fprintf(f, "%d\n", ntohs(a.sin_port));
	fclose(f);
	for (;;) {
		int c = accept(s, NULL, NULL);

		if (c >= 0)
			close(c);
	}
}

/* Every interface of this network namespace, with its state. */
static int probe_ifaces(void)
{
	struct if_nameindex *ifs = if_nameindex();
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (!ifs || s < 0)
		return said("if_nameindex", -1);
	for (struct if_nameindex *i = ifs; i->if_index; i++) {
		struct ifreq r;

		memset(&r, 0, sizeof r);
		snprintf(r.ifr_name, sizeof r.ifr_name, "%s", i->if_name);
		if (ioctl(s, SIOCGIFFLAGS, &r) < 0)
			return said("SIOCGIFFLAGS", -1);
		printf("%s:%s\n", i->if_name, r.ifr_flags & IFF_UP ? "up" : "down");
	}
	if_freenameindex(ifs);
	return 0;
}

static int probe_session(void)
{
	printf("%s\n", getsid(0) == getpid() ? "session leader" : "in the caller's session");
	return 0;
}

static int probe_ids(void)
{
	gid_t groups[64];
	int n = getgroups(64, groups);

	printf("uid=%u gid=%u groups=%d\n", (unsigned)getuid(), (unsigned)getgid(), n);
	return 0;
}

static int probe_write(long n)
{
	static char buf[65536];

	memset(buf, 'x', sizeof buf);
	while (n > 0) {
		ssize_t w = write(1, buf, n < (long)sizeof buf ? (size_t)n : sizeof buf);

		if (w < 0)
			return 1;
		n -= w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "syscall") == 0 && argc == 3)
		return probe_syscall(argv[2]);
	if (strcmp(argv[1], "connect") == 0 && argc == 3)
		return probe_connect(argv[2]);
	if (strcmp(argv[1], "listen") == 0 && argc == 3)
		return probe_listen(argv[2]);
	if (strcmp(argv[1], "ifaces") == 0)
		return probe_ifaces();
	if (strcmp(argv[1], "msgq-create") == 0 && argc == 3)
		return said("msgget", msgget((key_t)atoi(argv[2]), IPC_CREAT | 0600));
	if (strcmp(argv[1], "msgq-find") == 0 && argc == 3)
		return said("msgget", msgget((key_t)atoi(argv[2]), 0));
	if (strcmp(argv[1], "msgq-remove") == 0 && argc == 3) {
		int id = msgget((key_t)atoi(argv[2]), 0);

		return said("msgctl", id < 0 ? id : msgctl(id, IPC_RMID, NULL));
	}
	if (strcmp(argv[1], "kill") == 0 && argc == 3)
		return said("kill", kill((pid_t)atoi(argv[2]), 0)); /* the permission check only */
	if (strcmp(argv[1], "creat-mode") == 0 && argc == 4)
		return said("creat", open(argv[2], O_WRONLY | O_CREAT | O_EXCL,
					  (mode_t)strtoul(argv[3], NULL, 8)));
	if (strcmp(argv[1], "open") == 0 && argc == 3)
		return said("open", open(argv[2], O_WRONLY | O_NONBLOCK));
	if (strcmp(argv[1], "ids") == 0)
		return probe_ids();
	if (strcmp(argv[1], "session") == 0)
		return probe_session();
	if (strcmp(argv[1], "tiocsti") == 0) {
		char c = '\n';

		return said("TIOCSTI", ioctl(0, TIOCSTI, &c));
	}
	if (strcmp(argv[1], "inotify-hog") == 0 && argc >= 3) {
		/* Take every inotify instance this user may have (the
		 * descriptors survive exec), then become COMMAND. */
		int n = 0;

		while (inotify_init1(0) >= 0)
			n++;
		fprintf(stderr, "probe: took %d inotify instances: %s\n", n, strerrorname_np(errno));
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	if (strcmp(argv[1], "write") == 0 && argc == 3)
		return probe_write(atol(argv[2]));
	if (strcmp(argv[1], "close-stdout") == 0 && argc == 3) {
		long ms = atol(argv[2]);
		struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};

		close(1);
		nanosleep(&ts, NULL);
		fprintf(stderr, "still running\n");
		return 7;
	}
	return usage();
}
