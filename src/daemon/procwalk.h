// SPDX-License-Identifier: ISC
// The one walk of /proc over the process tree below proctord: the measure and
// the tree kill both use it. The /proc it reads is given (the unit tests'
// fixtures are directories that look like it).
#ifndef PROCTOR_PROCWALK_H
#define PROCTOR_PROCWALK_H

#include <stddef.h>
#include <sys/types.h>

struct procwalk_node {
	pid_t pid;
	pid_t ppid; /* the process whose children list named it */
};

struct procwalk {
	int procfd;             /* the /proc read, or -1 */
	pid_t root;             /* proctord: the walk finds its descendants */
	int root_children_fd;   /* ROOT/task/ROOT/children kept open, or -1:
				 * then the kernel has no children files
				 * (CONFIG_PROC_CHILDREN) and a walk scans */
	char *buf;              /* scratch for children files */
	size_t buf_cap;
	struct procwalk_node *nodes; /* the last walk: parents before children */
	size_t n, cap;
};

/* What a walk asks of its user about node k of w->nodes, as it finds it:
 *  - return -1: the walker reads the children files of all its threads;
 *  - return 0: skip its children (listed twice, say);
 *  - return THREADS >= 1: *children holds the text of its main thread's
 *    children file that the user read itself (through a descriptor it
 *    keeps), or NULL if it could not; the walker reads the other threads'
 *    files only when THREADS > 1.
 * Pushing children may move w->nodes: the user keeps k, not a pointer. */
typedef long procwalk_visit_fn(void *ctx, struct procwalk *w, size_t k, const char **children);

/* Whether the /proc at procfd shows the calling process under its own pid
 * (its "self" link): 1, or 0 with the reason in why. A /proc of another PID
 * namespace (a container's that was not mounted afresh) names other
 * processes by the caller's pids; a masked one (a tmpfs over it) has none. */
int procwalk_is_own(int procfd, char *why, size_t len);
/* Open the walk of the tree below root in the /proc at proc ("/proc"). A
 * walk from the caller itself in a /proc that is not its own
 * (procwalk_is_own) is refused: procwalk_run then returns -1, rather than
 * walk the tree of whichever process has proctord's pid there. */
void procwalk_init(struct procwalk *w, const char *proc, pid_t root);
void procwalk_free(struct procwalk *w);

/* Walk the tree: w->nodes ends up with every descendant of the root (not
 * the root), parents before children, visit (NULL: -1 for every node) called
 * for each as it is found. Processes that vanish meanwhile are skipped, or
 * listed with files that no longer open. A process re-parented mid-walk may
 * appear twice: no check, so that a fork bomb costs linear time. Without
 * children files, the walk reads every process's parent from /proc first.
 * Returns 0, or -1 if /proc could not be read at all. */
int procwalk_run(struct procwalk *w, procwalk_visit_fn *visit, void *ctx);

/* The parent of pid now, from its stat file; -1 if it has gone. */
pid_t procwalk_ppid(struct procwalk *w, pid_t pid);

/* The whole text of an open children file, NUL-terminated, in *buf (of *cap
 * bytes, grown as needed), in one read where the list is short. Returns its
 * length, or -1 with errno set. */
ssize_t procwalk_pread_children(int fd, char **buf, size_t *cap);

/* Call cb(ctx, pid, parent) for each pid of a /proc/.../children list. */
void procwalk_parse_children(const char *buf, pid_t parent,
			     void (*cb)(void *ctx, pid_t pid, pid_t parent), void *ctx);

#endif
