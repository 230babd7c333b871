// SPDX-License-Identifier: ISC
// The descendants of proctord, found through /proc, and killing all of them.
//
// proctord is a child subreaper, so every process the program starts stays
// below it: orphans are re-parented to proctord, not to init. Walking the
// children lists from proctord down therefore finds the whole tree, including
// setsid and double-forked escapees.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procstat.h"
#include "tree.h"
#include "util.h"

void tree_list_init(struct tree_list *t)
{
	memset(t, 0, sizeof *t);
}

void tree_list_free(struct tree_list *t)
{
	free(t->nodes);
	free(t->buf);
	memset(t, 0, sizeof *t);
}

/* No duplicate check: a process has one parent, and a fork bomb's tree must
 * not cost quadratic time. A process re-parented mid-walk may appear twice;
 * callers that sum figures de-duplicate. */
static void tree_push(struct tree_list *t, pid_t pid, pid_t ppid)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->nodes = xreallocarray(t->nodes, t->cap, sizeof *t->nodes);
	}
	t->nodes[t->n].pid = pid;
	t->nodes[t->n].ppid = ppid;
	t->n++;
}

void tree_parse_children(const char *buf, pid_t parent,
			 void (*cb)(void *ctx, pid_t pid, pid_t parent), void *ctx)
{
	const char *p = buf;

	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		/* Only a number the kernel ended with a separator: a cut-off
		 * list must never turn "1886" into pid 18 or 1. */
		if (*end != ' ' && *end != '\n')
			break;
		if (v > 0)
			cb(ctx, (pid_t)v, parent);
		p = end;
	}
}

static void tree_push_cb(void *ctx, pid_t pid, pid_t parent)
{
	tree_push(ctx, pid, parent);
}

/* Children of every thread of pid: a child forked by a thread is listed in
 * that thread's file only. */
static void tree_children_via_proc(struct tree_list *t, pid_t pid, int procfd)
{
	char path[300];
	struct dirent *de;
	DIR *d;
	int dfd;

	snprintf(path, sizeof path, "%d/task", (int)pid);
	dfd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return; /* the process has gone */
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		ssize_t n;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "%s/children", de->d_name);
		fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* the thread has gone */
		n = pread_all(fd, &t->buf, &t->buf_cap);
		close(fd);
		if (n > 0)
			tree_parse_children(t->buf, pid, tree_push_cb, t);
	}
	closedir(d);
}

/* Without children files: read the parent of every process in /proc. */
static int tree_collect_scan(pid_t root, struct tree_list *out, int procfd)
{
	struct tree_node *all = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int dfd = dup(procfd);

	if (dfd < 0)
		return -1;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -1;
	}
	while ((de = readdir(d))) {
		char path[300], buf[1024];
		struct procstat st;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "%s/stat", de->d_name);
		if (read_small_file(procfd, path, buf, sizeof buf) < 0)
			continue;
		if (!procstat_parse(buf, &st))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			all = xreallocarray(all, cap, sizeof *all);
		}
		all[n].pid = (pid_t)atol(de->d_name);
		all[n].ppid = (pid_t)st.ppid;
		n++;
	}
	closedir(d);
	/* Breadth first from root: parents come before their children. */
	for (size_t i = 0; i < n; i++)
		if (all[i].ppid == root)
			tree_push(out, all[i].pid, root);
	for (size_t k = 0; k < out->n; k++)
		for (size_t i = 0; i < n; i++)
			if (all[i].ppid == out->nodes[k].pid)
				tree_push(out, all[i].pid, all[i].ppid);
	free(all);
	return 0;
}

/* CONFIG_PROC_CHILDREN is not in every kernel: look once. */
static int tree_have_children_files(void)
{
	static int have = -1;
	char path[64];

	if (have < 0) {
		snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)gettid());
		have = access(path, R_OK) == 0;
	}
	return have;
}

int tree_collect(pid_t root, struct tree_list *out)
{
	int procfd, rc = 0;

	out->n = 0;
	procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return -1;
	if (tree_have_children_files()) {
		tree_children_via_proc(out, root, procfd);
		/* out grows while it is walked: each new node is visited too. */
		for (size_t k = 0; k < out->n; k++)
			tree_children_via_proc(out, out->nodes[k].pid, procfd);
	} else {
		rc = tree_collect_scan(root, out, procfd);
	}
	close(procfd);
	return rc;
}

/* Signal a process found in the walk only if it is still that process: a
 * pidfd pins one process, and its parent must still be the one the walk
 * saw. A pid that was freed and reused meanwhile belongs to somebody else.
 * A process that moved (re-parented to proctord) is found by the next walk. */
static void tree_signal_one(const struct tree_node *n, int sig)
{
	char path[64], buf[1024];
	struct procstat st;
	int pfd = (int)syscall(SYS_pidfd_open, n->pid, 0);

	if (pfd < 0) {
		if (errno == ENOSYS)
			kill(n->pid, sig); /* before Linux 5.3: nothing better */
		return;
	}
	snprintf(path, sizeof path, "/proc/%d/stat", (int)n->pid);
	if (read_small_file(AT_FDCWD, path, buf, sizeof buf) > 0 && procstat_parse(buf, &st) &&
	    (pid_t)st.ppid == n->ppid)
		syscall(SYS_pidfd_send_signal, pfd, sig, NULL, 0);
	close(pfd);
}

ssize_t tree_signal_all(pid_t root, int sig)
{
	struct tree_list t;
	ssize_t n;

	tree_list_init(&t);
	if (tree_collect(root, &t) < 0) {
		tree_list_free(&t);
		return -1;
	}
	/* Leaves first: a child whose parent died first would be re-parented
	 * before its turn, fail the parent check and wait for the next walk. */
	for (size_t i = t.n; i-- > 0;)
		tree_signal_one(&t.nodes[i], sig);
	n = (ssize_t)t.n;
	tree_list_free(&t);
	return n;
}
