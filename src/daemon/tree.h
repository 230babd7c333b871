// SPDX-License-Identifier: ISC
// The descendants of proctord, found through /proc, and killing all of them.
#ifndef PROCTOR_TREE_H
#define PROCTOR_TREE_H

#include <stddef.h>
#include <sys/types.h>

struct tree_node {
	pid_t pid;
	pid_t ppid;
};

struct tree_list {
	struct tree_node *nodes;
	size_t n, cap;
	char *buf; /* scratch for reading children files */
	size_t buf_cap;
};

/* Call cb(ctx, pid, parent) for each pid of a /proc/.../children list. */
void tree_parse_children(const char *buf, pid_t parent,
			 void (*cb)(void *ctx, pid_t pid, pid_t parent), void *ctx);

void tree_list_init(struct tree_list *t);
void tree_list_free(struct tree_list *t);

/* All descendants of root (not root itself), parents before children.
 * Uses /proc/PID/task/TID/children; falls back to a scan of /proc where the
 * kernel lacks it. Processes that vanish meanwhile are skipped. Returns 0, or
 * -1 if /proc could not be read at all. */
int tree_collect(pid_t root, struct tree_list *out);

/* Send sig to every descendant of root. Returns how many were found, or -1
 * if /proc could not be read (then nothing can be said of what is left). */
ssize_t tree_signal_all(pid_t root, int sig);

#endif
