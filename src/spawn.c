// SPDX-License-Identifier: ISC
// Starting the program: clone3 with a pidfd, and the child's set-up up to execve.
//
// Between clone and execve the child runs on a copy of proctord's memory with
// no other thread, so it may only make system calls: no malloc, no stdio.
// Any failure is written to a CLOEXEC pipe as {stage, errno, what}; a
// successful execve closes the pipe, and the parent reads EOF.
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

struct spawn_msg {
	int stage;
	int err;
	char what[200];
};

static void spawn_report(int fd, enum spawn_stage stage, int err, const char *what)
{
	struct spawn_msg msg;
	size_t n = 0;

	memset(&msg, 0, sizeof msg);
	msg.stage = (int)stage;
	msg.err = err;
	if (what) {
		while (n < sizeof msg.what - 1 && what[n]) {
			msg.what[n] = what[n];
			n++;
		}
	}
	/* Under PIPE_BUF: one write, all or nothing. */
	if (write(fd, &msg, sizeof msg) < 0) {
		/* Nothing left to tell it with: the exit code says it. */
	}
	_exit(127);
}

static void spawn_child_stdio(int errfd, int target, const char *path, int null_stdio,
			      enum spawn_stage stage)
{
	int flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC;
	int fd;

	if (!path) {
		if (!null_stdio)
			return; /* inherit proctord's */
		path = "/dev/null";
	}
	fd = open(path, flags | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		spawn_report(errfd, stage, errno, path);
	if (fd == target) {
		if (fcntl(fd, F_SETFD, 0) < 0)
			spawn_report(errfd, stage, errno, path);
		return;
	}
	if (dup2(fd, target) < 0)
		spawn_report(errfd, stage, errno, path);
	close(fd);
}

static void spawn_child_rlimit(int errfd, int resource, uint64_t soft, uint64_t hard,
			       const char *name)
{
	struct rlimit rl = {
		.rlim_cur = soft == UNITS_UNLIMITED ? RLIM_INFINITY : (rlim_t)soft,
		.rlim_max = hard == UNITS_UNLIMITED ? RLIM_INFINITY : (rlim_t)hard,
	};

	if (setrlimit(resource, &rl) < 0)
		spawn_report(errfd, STAGE_LIMITS, errno, name);
}

static void spawn_child_limits(int errfd, const struct limits *l)
{
	/* No core files: a crashing submission must not fill the disk. */
	spawn_child_rlimit(errfd, RLIMIT_CORE, 0, 0, "RLIMIT_CORE");
	if (l->cpu_time_us != UNITS_UNLIMITED) {
		/* A backstop only: whole seconds and per process. The tree's
		 * limit is proctord's deadline timer, which fires first. */
		uint64_t s = (l->cpu_time_us + 999999) / 1000000 + 1;

		spawn_child_rlimit(errfd, RLIMIT_CPU, s, s + 1, "RLIMIT_CPU");
	}
	if (l->address_space != UNITS_UNLIMITED)
		spawn_child_rlimit(errfd, RLIMIT_AS, l->address_space, l->address_space,
				   "RLIMIT_AS");
	if (l->fsize != UNITS_UNLIMITED)
		spawn_child_rlimit(errfd, RLIMIT_FSIZE, l->fsize, l->fsize, "RLIMIT_FSIZE");
	if (l->stack != UNITS_UNLIMITED)
		spawn_child_rlimit(errfd, RLIMIT_STACK, l->stack, l->stack, "RLIMIT_STACK");
	/* soft = hard: the program cannot raise it again. */
	if (l->nofile != UNITS_UNLIMITED)
		spawn_child_rlimit(errfd, RLIMIT_NOFILE, l->nofile, l->nofile, "RLIMIT_NOFILE");
}

static void spawn_child_close_fds(int errfd)
{
	/* Every descriptor but 0, 1 and 2 closes at execve (runc CVE-2024-21626
	 * leaked one). CLOEXEC rather than close, so the error pipe still works. */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	for (int fd = 3; fd < 65536; fd++) {
		int fl = fcntl(fd, F_GETFD);

		if (fl >= 0 && !(fl & FD_CLOEXEC) && fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0)
			spawn_report(errfd, STAGE_SETUP, errno, "close descriptors");
	}
}

static void spawn_child(const struct spawn_config *c, int errfd, pid_t parent)
{
	sigset_t none;

	/* Drop proctord's descriptors (its FIFOs among them) now, not at
	 * execve: a program whose set-up blocks (a --stdin FIFO nobody
	 * writes) must not keep the wait FIFO open should proctord die. Only
	 * the error pipe stays, and it closes at execve. */
	if (errfd > 3)
		close_range(3, (unsigned)errfd - 1, 0);
	close_range((unsigned)errfd + 1, ~0U, 0);

	/* libev blocks the signals it watches, and SIG_IGN survives execve:
	 * the program starts with the defaults. */
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "sigprocmask");

	/* Its own process group: a terminal's ^C to proctord is not the
	 * program's, and proctord decides when it ends. */
	if (setpgid(0, 0) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "setpgid");
	/* If proctord dies, so does the program (nsjail #69). The check after
	 * it closes the race with a parent that died before the prctl. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "PR_SET_PDEATHSIG");
	if (getppid() != parent)
		_exit(127);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "PR_SET_NO_NEW_PRIVS");
	/* proctord may have raised its own priority; the program must not
	 * inherit that. */
	if (setpriority(PRIO_PROCESS, 0, c->nice) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "setpriority");

	if (c->null_stdio) {
		/* Let go of the caller's descriptors before opening anything that
		 * may block (a FIFO with no peer): $(proctord --daemonize ...)
		 * must not wait for the program's set-up. */
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			spawn_report(errfd, STAGE_SETUP, errno, "/dev/null");
		if (null > 2)
			close(null);
	}
	spawn_child_stdio(errfd, 0, c->stdin_path, c->null_stdio, STAGE_STDIN);
	spawn_child_stdio(errfd, 1, c->stdout_path, c->null_stdio, STAGE_STDOUT);
	spawn_child_stdio(errfd, 2, c->stderr_path, c->null_stdio, STAGE_STDERR);
	if (c->chdir && chdir(c->chdir) < 0)
		spawn_report(errfd, STAGE_CHDIR, errno, c->chdir);

	/* Limits last: a low RLIMIT_NOFILE must not stop the opens above. */
	spawn_child_limits(errfd, c->limits);
	spawn_child_close_fds(errfd);

	/* execvp searches the PATH of environ: make it the program's. */
	environ = c->envp;
	execvp(c->argv[0], c->argv);
	spawn_report(errfd, STAGE_EXEC, errno, c->argv[0]);
}

int spawn_start(const struct spawn_config *c, struct spawn_child *out)
{
	struct clone_args args;
	int pipefd[2], pidfd = -1;
	pid_t parent = getpid();
	long pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	memset(&args, 0, sizeof args);
	args.flags = CLONE_PIDFD;
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	args.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &args, sizeof args);
	if (pid < 0 && (errno == ENOSYS || errno == EINVAL)) {
		/* Before Linux 5.3: fork, then ask for a pidfd. */
		pid = fork();
		if (pid > 0)
			pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	}
	if (pid < 0) {
		int saved = errno;

		close(pipefd[0]);
		close(pipefd[1]);
		errno = saved;
		return -1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		spawn_child(c, pipefd[1], parent);
		_exit(127);
	}
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	if (pidfd >= 0)
		fcntl(pidfd, F_SETFD, FD_CLOEXEC);
	out->pid = (pid_t)pid;
	out->pidfd = pidfd;
	out->errfd = pipefd[0];
	return 0;
}

int spawn_read_failure(int errfd, struct outcome *o)
{
	struct spawn_msg msg;
	ssize_t n;

	do
		n = read(errfd, &msg, sizeof msg);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n == 0)
		return 0;
	memset(o, 0, sizeof *o);
	o->kind = OUTCOME_FAILED;
	if ((size_t)n < sizeof msg || msg.stage < STAGE_SETUP || msg.stage > STAGE_EXEC) {
		o->stage = STAGE_SETUP;
		o->err = EPROTO;
		return 1;
	}
	o->stage = (enum spawn_stage)msg.stage;
	o->err = msg.err;
	msg.what[sizeof msg.what - 1] = '\0';
	memcpy(o->what, msg.what, sizeof msg.what);
	return 1;
}
