// SPDX-License-Identifier: ISC
// The one walk of /proc over the process tree below proctord.
//
// proctord is a child subreaper, so every process the program starts stays
// below it: orphans are re-parented to proctord, not to init. Walking the
// children lists from proctord down therefore finds the whole tree, including
// setsid and double-forked escapees. A child forked by a thread other than
// the main one is listed in that thread's children file only.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procstat.h"
#include "procwalk.h"
#include "util.h"

int procwalk_is_own(int procfd, char *why, size_t len)
{
	char self[32];
	ssize_t n = procfd >= 0 ? readlinkat(procfd, "self", self, sizeof self - 1) : -1;
	char *end;
	long pid;

	if (procfd < 0) {
		snprintf(why, len, "it cannot be opened");
		return 0;
	}
	if (n < 0) {
		snprintf(why, len, "it has no \"self\" (%s): masked, or not a proc file system",
			 strerror(errno));
		return 0;
	}
	self[n] = '\0';
	pid = strtol(self, &end, 10);
	if (*end || pid != (long)getpid()) {
		snprintf(why, len,
			 "its \"self\" is %s where proctord is %d: it shows another PID "
			 "namespace's processes (mount proc afresh in proctord's)",
			 self, (int)getpid());
		return 0;
	}
	return 1;
}

void procwalk_init(struct procwalk *w, const char *proc, pid_t root)
{
	char path[64], why[160];

	memset(w, 0, sizeof *w);
	w->root = root;
	w->procfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->procfd >= 0 && root == getpid() && !procwalk_is_own(w->procfd, why, sizeof why)) {
		close(w->procfd);
		w->procfd = -1;
	}
	/* proctord has a single thread: its children are all in this file. */
	snprintf(path, sizeof path, "%d/task/%d/children", (int)root, (int)root);
	w->root_children_fd = w->procfd >= 0 ? openat(w->procfd, path, O_RDONLY | O_CLOEXEC) : -1;
}

void procwalk_free(struct procwalk *w)
{
	if (w->procfd >= 0)
		close(w->procfd);
	if (w->root_children_fd >= 0)
		close(w->root_children_fd);
	free(w->buf);
	free(w->nodes);
	memset(w, 0, sizeof *w);
	w->procfd = w->root_children_fd = -1;
}

void procwalk_parse_children(const char *buf, pid_t parent,
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

/* A children file is made by the kernel's seq_file: one read returns as
 * much as the caller asks, up to what fills a page, unless the list ends
 * first. A short read, with room left for more than one more pid, is the
 * whole list: the read that would return 0 is not needed. */
#define PROCWALK_SEQ_PAGE 4096u
#define PROCWALK_SEQ_MARGIN 64u

ssize_t procwalk_pread_children(int fd, char **buf, size_t *cap)
{
	ssize_t n;

	if (!*buf || *cap < PROCWALK_SEQ_PAGE) {
		*cap = PROCWALK_SEQ_PAGE;
		*buf = xreallocarray(*buf, *cap, 1);
	}
	do
		n = pread(fd, *buf, *cap - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n + PROCWALK_SEQ_MARGIN < PROCWALK_SEQ_PAGE - 1) {
		(*buf)[n] = '\0';
		return n;
	}
	return pread_all(fd, buf, cap);
}

static void procwalk_push(void *ctx, pid_t pid, pid_t ppid)
{
	struct procwalk *w = ctx;

	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->nodes = xreallocarray(w->nodes, w->cap, sizeof *w->nodes);
	}
	w->nodes[w->n].pid = pid;
	w->nodes[w->n].ppid = ppid;
	w->n++;
}

/* The children of pid's threads (all of them, or all but the main one). */
static void procwalk_thread_children(struct procwalk *w, pid_t pid, int skip_main)
{
	char path[300];
	struct dirent *de;
	DIR *d;
	int dfd;

	snprintf(path, sizeof path, "%d/task", (int)pid);
	dfd = openat(w->procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    (skip_main && atol(de->d_name) == pid))
			continue;
		snprintf(path, sizeof path, "%s/children", de->d_name);
		fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* the thread has gone */
		n = procwalk_pread_children(fd, &w->buf, &w->buf_cap);
		close(fd);
		if (n > 0)
			procwalk_parse_children(w->buf, pid, procwalk_push, w);
	}
	closedir(d);
}

pid_t procwalk_ppid(struct procwalk *w, pid_t pid)
{
	char path[64], buf[1024];
	struct procstat st;

	snprintf(path, sizeof path, "%d/stat", (int)pid);
	if (read_small_file(w->procfd, path, buf, sizeof buf) <= 0 || !procstat_parse(buf, &st))
		return -1;
	return (pid_t)st.ppid;
}

/* Without children files: read the parent of every process in /proc, then
 * list the tree breadth first from the root. */
static int procwalk_scan(struct procwalk *w)
{
	struct procwalk_node *all = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int dfd = dup(w->procfd);

	if (dfd < 0)
		return -1;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -1;
	}
	while ((de = readdir(d))) {
		pid_t pid, ppid;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		pid = (pid_t)atol(de->d_name);
		ppid = procwalk_ppid(w, pid);
		if (ppid < 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			all = xreallocarray(all, cap, sizeof *all);
		}
		all[n].pid = pid;
		all[n].ppid = ppid;
		n++;
	}
	closedir(d);
	for (size_t i = 0; i < n; i++)
		if (all[i].ppid == w->root)
			procwalk_push(w, all[i].pid, w->root);
	for (size_t k = 0; k < w->n; k++)
		for (size_t i = 0; i < n; i++)
			if (all[i].ppid == w->nodes[k].pid)
				procwalk_push(w, all[i].pid, all[i].ppid);
	free(all);
	return 0;
}

int procwalk_run(struct procwalk *w, procwalk_visit_fn *visit, void *ctx)
{
	w->n = 0;
	if (w->procfd < 0)
		return -1;
	if (w->root_children_fd < 0) {
		const char *ignored;

		if (procwalk_scan(w) < 0)
			return -1;
		/* The tree is known already: the visit only reads. */
		for (size_t k = 0; visit && k < w->n; k++)
			visit(ctx, w, k, &ignored);
		return 0;
	}
	if (procwalk_pread_children(w->root_children_fd, &w->buf, &w->buf_cap) > 0)
		procwalk_parse_children(w->buf, w->root, procwalk_push, w);
	/* w->nodes grows while it is walked: each new node is visited too. */
	for (size_t k = 0; k < w->n; k++) {
		const char *children = NULL;
		pid_t pid = w->nodes[k].pid;
		long threads = visit ? visit(ctx, w, k, &children) : -1;

		if (threads < 0) {
			procwalk_thread_children(w, pid, 0);
			continue;
		}
		if (children)
			procwalk_parse_children(children, pid, procwalk_push, w);
		if (threads > 1)
			procwalk_thread_children(w, pid, 1);
	}
	return 0;
}
