// SPDX-License-Identifier: ISC
// Killing every descendant of proctord, found through the /proc walk
// (procwalk.c: proctord is their subreaper, so none escapes it).
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwalk.h"
#include "tree.h"

/* Signal a process found in the walk only if it is still that process: a
 * pidfd pins one process, and its parent must still be the one the walk
 * saw. A pid that was freed and reused meanwhile belongs to somebody else.
 * A process that moved (re-parented to proctord) is found by the next walk. */
static void tree_signal_one(struct procwalk *w, const struct procwalk_node *n, int sig)
{
	int pfd = (int)syscall(SYS_pidfd_open, n->pid, 0);

	if (pfd < 0) {
		if (errno == ENOSYS)
			kill(n->pid, sig); /* before Linux 5.3: nothing better */
		return;
	}
	if (procwalk_ppid(w, n->pid) == n->ppid)
		syscall(SYS_pidfd_send_signal, pfd, sig, NULL, 0);
	close(pfd);
}

ssize_t tree_signal_group(pid_t pgid, int sig)
{
	siginfo_t si;

	kill(-pgid, sig);
	/* Every live descendant has an ancestor among the subreaper's
	 * children (itself, or the one it was re-parented to). A zombie
	 * counts as a child: the sweep reaps it first. */
	memset(&si, 0, sizeof si);
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0)
		return errno == ECHILD ? 0 : -1;
	return 1;
}

ssize_t tree_signal_all(pid_t root, int sig)
{
	return tree_signal_but(root, 0, sig);
}

ssize_t tree_signal_but(pid_t root, pid_t skip, int sig)
{
	struct procwalk w;
	ssize_t n = -1;

	procwalk_init(&w, "/proc", root);
	if (procwalk_run(&w, NULL, NULL) == 0) {
		/* Leaves first: a child whose parent died first would be
		 * re-parented before its turn, fail the parent check and wait
		 * for the next walk. */
		for (size_t i = w.n; i-- > 0;)
			if (w.nodes[i].pid != skip)
				tree_signal_one(&w, &w.nodes[i], sig);
		n = (ssize_t)w.n;
	}
	procwalk_free(&w);
	return n;
}
