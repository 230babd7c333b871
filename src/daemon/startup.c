// SPDX-License-Identifier: ISC
// proctord's start-up as a process: stdio, the ending signals, --daemonize
// and readiness, sd_notify, and the terminal's foreground.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "options.h"
#include "startup.h"
#include "supervise.h"

void startup_signals_block(int how)
{
	sigset_t set;

	sigemptyset(&set);
	supervise_end_sigset(&set);
	sigprocmask(how, &set, NULL);
}

/* The loop is over and the clean-up begins: a signal now (a second SIGTERM,
 * one that came as the loop ended) must not cut it short. Ignoring discards
 * the pending ones too, before libev unblocks them as it stops its
 * watchers. */
void startup_signals_ignore(void)
{
	for (int i = 0; i < SUPERVISE_N_END_SIGNALS; i++)
		signal(supervise_end_signals[i], SIG_IGN);
}

/* Descriptors 0-2 must be open before anything else is: a FIFO that landed
 * on descriptor 1 would receive the program's output. */
void startup_stdio(void)
{
	int fd;

	do
		fd = open("/dev/null", O_RDWR);
	while (fd >= 0 && fd <= 2);
	if (fd < 0)
		log_fatal(EXIT_SETUP, "/dev/null");
	close(fd);
}

/* The caller's side of --daemonize passes SIGTERM and the others on to the
 * daemon. */
static volatile sig_atomic_t forward_pid, forwarded;

static void daemonize_forward(int sig)
{
	int saved = errno;

	kill((pid_t)forward_pid, sig);
	forwarded = 1;
	errno = saved;
}

/* --daemonize, the caller's side: wait on the pipe's read end fd until the
 * daemon (pid) is ready, print the directory it sends, and exit; a set-up
 * failure is the daemon's exit code, its message already on the shared
 * stderr. */
static noreturn void daemonize_caller(pid_t pid, int fd, struct options *o, char **env,
				       void (*disown)(void))
{
	char buf[4096] = {0};
	size_t got = 0;
	ssize_t n;
	int st;

	/* The daemon owns the sandbox now: this side must not undo it. */
	disown();
	/* A signal to this side during the set-up (pending ones included: the
	 * daemon did not inherit them) is meant for proctord: the daemon gets
	 * it, ends the sandbox, and its exit status is ours. */
	{
		struct sigaction sa = {.sa_handler = daemonize_forward};

		sigemptyset(&sa.sa_mask);
		forward_pid = pid;
		for (int i = 0; i < SUPERVISE_N_END_SIGNALS; i++)
			sigaction(supervise_end_signals[i], &sa, NULL);
		startup_signals_block(SIG_UNBLOCK);
	}
	/* Up to the newline, not to EOF: a program still in its set-up (say,
	 * opening a FIFO nobody writes) holds a copy of the write end until
	 * its execve. */
	while (got < sizeof buf - 1 && (got == 0 || buf[got - 1] != '\n') &&
	       ((n = read(fd, buf + got, sizeof buf - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	buf[got] = '\0';
	/* The daemon has its own copy of all that; this side is done. */
	options_env_free(env);
	config_free(&o->cfg);
	/* From here a signal is no longer passed on: either the daemon got one
	 * and the sandbox is ending, or the caller gets a directory that stays
	 * served. */
	startup_signals_block(SIG_BLOCK);
	if (forwarded) {
		/* The sandbox is ending: no directory to print. */
		pid_t w;

		do
			w = waitpid(pid, &st, 0);
		while (w < 0 && errno == EINTR);
		exit(w == pid && WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_INTERNAL);
	}
	if (got > 0 && buf[got - 1] == '\n') {
		fputs(buf, stdout);
		exit(fflush(stdout) == 0 ? 0 : EXIT_SETUP);
	}
	if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) != 0)
		exit(WEXITSTATUS(st));
	exit(EXIT_SETUP);
}

/* --daemonize: fork; the caller's side is daemonize_caller. Returns the
 * write end of the readiness pipe in the daemon. */
int startup_daemonize(struct options *o, char **env, void (*disown)(void))
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		log_fatal(EXIT_SETUP, "pipe");
	pid = fork();
	if (pid < 0)
		log_fatal(EXIT_SETUP, "fork");
	if (pid > 0) {
		close(p[1]);
		daemonize_caller(pid, p[0], o, env, disown);
	}
	close(p[0]);
	if (setsid() < 0)
		log_fatal(EXIT_SETUP, "setsid");
	/* The directory goes to the caller through the pipe: the daemon has
	 * nothing for the caller's stdout, which $(...) waits on. Its stderr
	 * stays until ready, for set-up errors. */
	{
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 1);
			close(null);
		}
	}
	return p[1];
}

/* Started by systemd (Type=notify): tell it the FIFOs are there. The
 * protocol is one datagram on the socket $NOTIFY_SOCKET names; "@" starts an
 * abstract name. */
void startup_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof sa.sun_path)
		return;
	len = strlen(path);
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		log_warn("sd_notify %s", path);
	close(fd);
}

/* --tty-foreground: whether to hand the terminal on descriptor 0 to the
 * program, which its child does (spawn.c). Only a foreground proctord may:
 * one started in the background must not take the terminal from the job
 * that has it. */
int startup_tty_handover(const struct options *o, const struct identity *iso)
{
	/* In a session of its own the program has no controlling terminal:
	 * it reads the terminal without job control, in any group. */
	if (!o->tty_foreground || o->daemonize || iso->new_session)
		return 0;
	/* Standard input redirected, the output still the terminal: left in
	 * a background group, the program would be stopped by SIGTTOU at its
	 * first write (stty tostop) or change of the terminal's modes. */
	for (int fd = 0; fd < 3; fd++)
		if (isatty(fd) && tcgetpgrp(fd) == getpgrp())
			return fd + 1;
	return 0;
}

/* The terminal back to proctord's group once the program's is gone (from
 * the background, hence SIGTTOU blocked). */
void startup_tty_take_back(int fd)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	if (tcsetpgrp(fd, getpgrp()) < 0)
		log_warn("cannot take the terminal back (tcsetpgrp)");
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * Without this, a program that ignores SIGINT could not be stopped from
 * the terminal at all: its group alone is the foreground. Sharing it gives
 * the program no hold on proctord it has not already: kill(0, sig) needs
 * the same permission as kill(pid, sig), and without a box (the only case
 * with the terminal handed over) the program sees proctord's pid in /proc.
 */
pid_t startup_tty_join(pid_t program)
{
	pid_t group = getpgrp();

	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	/* The child makes its group itself before it hands the terminal over;
	 * made here too, whichever comes first (EACCES: after its execve, so
	 * made). */
	if (setpgid(program, program) < 0 && errno != EACCES)
		return 0;
	if (setpgid(0, program) < 0) {
		log_warn("warning: --tty-foreground: cannot join the program's process group, "
			 "the terminal's ^C reaches the program alone");
		return 0;
	}
	return group;
}

void startup_tty_leave(pid_t group)
{
	/* Its own group (proctord the shell's job) is gone once it left it:
	 * made anew, with the same id. */
	if (setpgid(0, group == getpid() ? 0 : group) < 0 && setpgid(0, 0) < 0)
		log_warn("cannot leave the program's process group");
}

void startup_ready(int fd, const char *dir)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	dprintf(fd, "%s\n", dir);
	close(fd);
	/* Let go of the caller's terminal and pipes: $(proctord --daemonize)
	 * returns only once nobody holds its stdout. */
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
	log_set_quiet(1);
}

int startup_supervisor(void)
{
	int nice_value;

	/* A client gone mid-answer is EPIPE, not death. */
	signal(SIGPIPE, SIG_IGN);
	/* Orphans of the program come back to proctord, not to init, so the
	 * whole tree can be measured and killed. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		log_fatal(EXIT_SETUP, "PR_SET_CHILD_SUBREAPER");
	/* The program gets the caller's nice value back (prio_raise changes
	 * proctord's own). */
	errno = 0;
	nice_value = getpriority(PRIO_PROCESS, 0);
	if (errno != 0)
		nice_value = 0;
	return nice_value;
}
