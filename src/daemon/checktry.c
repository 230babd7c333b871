// SPDX-License-Identifier: ISC
// --check's trials: what the run would do, done in a throw-away child that
// exits at once and is reaped before --check goes on. A namespace made there
// ends with the child, a filter is the child's own: nothing is left behind.
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checktry.h"
#include "cpuset.h"
#include "spawn.h"
#include "sysfilter.h"

int checktry_reap(pid_t pid, int rfd, const char *who, char *why, size_t len)
{
	int st = 0;
	ssize_t n;

	while ((n = read(rfd, why, len - 1)) < 0 && errno == EINTR)
		;
	close(rfd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (n > 0)
		why[n] = '\0';
	else if (WIFSIGNALED(st))
		snprintf(why, len, "%s was killed by signal %d", who, WTERMSIG(st));
	else
		snprintf(why, len, "%s exited %d", who, WEXITSTATUS(st));
	return -1;
}

int checktry_child(int (*fn)(const void *arg, char *msg, size_t len), const void *arg, char *why,
		   size_t len)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		char msg[512] = "";

		close(p[0]);
		/* Never outlives --check. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fn(arg, msg, sizeof msg) == 0)
			_exit(0);
		if (write(p[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(1);
	}
	close(p[1]);
	return checktry_reap(pid, p[0], "the trial's child", why, len);
}

/* In the child: load the filter as the run's child does. */
static int ct_seccomp(const void *arg, char *msg, size_t len)
{
	const struct sysfilter *f = arg;
	const char *what;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(msg, len, "socketpair: %s", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(msg, len, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		return -1;
	}
	if (sysfilter_child_load(f, sv[1], &what) < 0) {
		snprintf(msg, len, "the filter cannot be loaded here: %s: %s", what,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int checktry_seccomp(const struct config *c, const struct cgroup *cg, char *why, size_t len)
{
	struct sysfilter f;
	int rc;

	memset(&f, 0, sizeof f);
	if (c->seccomp || c->seccomp_errno) {
		if (sysfilter_build(&f, c->seccomp_errno, cpuset_by_affinity(cg, &c->limits.cpuset),
				    why, len) < 0) {
			sysfilter_free(&f);
			return -1;
		}
	} else if (!c->box || sysfilter_build_box(&f, why, len) < 0) {
		/* No filter; a box's that cannot be built is a warning of the
		 * run's, not a failure. */
		sysfilter_free(&f);
		return 0;
	}
	rc = checktry_child(ct_seccomp, &f, why, len);
	sysfilter_free(&f);
	return rc;
}

static int ct_unshare(const void *arg, char *msg, size_t len)
{
	const int *flags = arg;

	if (unshare(*flags) == 0)
		return 0;
	snprintf(msg, len, "unshare(%s): %s",
		 *flags == (CLONE_NEWNET | CLONE_NEWIPC) ? "CLONE_NEWNET | CLONE_NEWIPC"
		 : *flags == CLONE_NEWNET		 ? "CLONE_NEWNET"
							 : "CLONE_NEWIPC",
		 strerror(errno));
	return -1;
}

int checktry_unshare(const struct config *c, char *why, size_t len)
{
	int flags = (c->unshare_net ? CLONE_NEWNET : 0) | (c->unshare_ipc ? CLONE_NEWIPC : 0);

	if (c->box || !flags)
		return 0;
	if (spawn_unshare_refused(0, c->unshare_net, c->unshare_ipc, why, len) < 0)
		return -1;
	return checktry_child(ct_unshare, &flags, why, len);
}
