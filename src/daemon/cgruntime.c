// SPDX-License-Identifier: ISC
// The sandbox's cgroups at run time: readings, kill, events, removal (the
// file helpers are cgfile.c's).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup-priv.h"
#include "cgroup.h"
#include "log.h"
#include "units.h"
#include "util.h"

/* ------------------------------------------------------------------------ */
/* Killing and removing */

/* SIGKILL every process listed in DIR/cgroup.procs; how many were listed. */
long cg_kill_listed(int dirfd)
{
	char *buf = NULL;
	size_t cap = 0;
	long n = 0;
	int fd = cg_open_ro(dirfd, "cgroup.procs");

	if (fd < 0)
		return -1;
	if (pread_all(fd, &buf, &cap) >= 0) {
		for (char *p = buf; *p;) {
			char *end;
			long pid = strtol(p, &end, 10);

			if (end == p)
				break;
			if (pid > 0) {
				kill((pid_t)pid, SIGKILL);
				n++;
			}
			p = end;
			while (*p == '\n')
				p++;
		}
	} else {
		n = -1;
	}
	free(buf);
	close(fd);
	return n;
}

/* Kill everything in a cgroup and its descendants, remove them all
 * (depth first), giving the kernel up to about a second to let the processes
 * go. Returns 0 or -1 with errno of the last rmdir. The recursion is
 * bounded: below depth 16 nothing is descended into (a program that nests
 * deeper leaves cgroups that the next start's stale clean-up meets). */
/* NOLINTNEXTLINE(misc-no-recursion) */
int cg_remove_tree(int parentfd, const char *name, int depth)
{
	int fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (depth < 16) {
		int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);

		d = dup >= 0 ? fdopendir(dup) : NULL;
		if (d) {
			while ((de = readdir(d)))
				if (de->d_type == DT_DIR && strcmp(de->d_name, ".") != 0 &&
				    strcmp(de->d_name, "..") != 0)
					cg_remove_tree(fd, de->d_name, depth + 1);
			closedir(d);
		} else if (dup >= 0) {
			close(dup);
		}
	}
	for (int i = 0; i < 200; i++) {
		struct timespec ts = {0, 5000000};

		/* Empty (the tree was swept before): removed at once, with no
		 * kill to try first. */
		if (unlinkat(parentfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT) {
			close(fd);
			return 0;
		}
		if (errno != EBUSY)
			break;
		if (cg_write_at(fd, "cgroup.kill", "1") < 0)
			cg_kill_listed(fd);
		if (i > 0)
			nanosleep(&ts, NULL);
	}
	{
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return -1;
}

void cgroup_destroy(struct cgroup *cg)
{
	for (size_t i = 0; i < cg->n; i++) {
		struct cg_hier *h = &cg->h[i];

		if (h->path && !cg->probe) {
			char *slash = strrchr(h->path, '/');
			int pfd = open(h->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (pfd < 0 || cg_remove_tree(pfd, slash + 1, 0) < 0)
				log_warn("cannot remove the cgroup %s", h->path);
			if (pfd >= 0)
				close(pfd);
		}
		cg_close(&h->procs_fd);
		cg_close(&h->fd);
		free(h->path);
		free(h->parent);
		h->path = h->parent = NULL;
	}
	cg->n = 0;
	cg_close(&cg->cpu_fd);
	cg_close(&cg->peak_fd);
	cg_close(&cg->oom_watch_fd);
	cg_close(&cg->oom_fd);
	cg_close(&cg->pidspeak_fd);
	cg_close(&cg->pidsevents_fd);
	cg_close(&cg->events_fd);
	for (int r = 0; r < CG_ROLE_COUNT; r++)
		cg->role[r] = -1;
}
/* ------------------------------------------------------------------------ */
/* Readings */

int cgroup_cpu(struct cgroup *cg, uint64_t *usage_us, uint64_t *user_us, uint64_t *sys_us)
{
	char buf[2048];
	const struct cg_hier *h;

	if (cg->cpu_fd < 0)
		return -1;
	h = &cg->h[cg->role[CG_ROLE_CPU]];
	if (h->version == 2) {
		uint64_t u = 0, s = 0;

		if (pread_small(cg->cpu_fd, buf, sizeof buf) <= 0 ||
		    cg_keyed(buf, "usage_usec", usage_us) < 0)
			return -1;
		cg_keyed(buf, "user_usec", &u);
		cg_keyed(buf, "system_usec", &s);
		if (user_us)
			*user_us = u;
		if (sys_us)
			*sys_us = s;
		return 0;
	}
	{
		uint64_t ns, u = 0, s = 0;
		long tck = sysconf(_SC_CLK_TCK);
		int fd;

		if (cg_read_u64(cg->cpu_fd, &ns) < 0)
			return -1;
		*usage_us = ns / 1000u;
		if (user_us || sys_us) {
			/* cpuacct.stat is in clock ticks. */
			fd = cg_open_ro(h->fd, "cpuacct.stat");
			if (fd >= 0 && pread_small(fd, buf, sizeof buf) > 0) {
				cg_keyed(buf, "user", &u);
				cg_keyed(buf, "system", &s);
			}
			if (fd >= 0)
				close(fd);
			if (tck <= 0)
				tck = 100;
			if (user_us)
				*user_us = u * 1000000u / (uint64_t)tck;
			if (sys_us)
				*sys_us = s * 1000000u / (uint64_t)tck;
		}
	}
	return 0;
}

int cgroup_peak(struct cgroup *cg, uint64_t *peak)
{
	return cg_read_u64(cg->peak_fd, peak);
}

int cgroup_oom_kills(struct cgroup *cg, uint64_t *n)
{
	/* Reading memory.events (v2) clears its POLLPRI: the watch's epoll
	 * set is not readable any more. */
	if (cg_read_keyed(cg->oom_fd, "oom_kill", n) < 0)
		return -1;
	if (cg->oom_watch_fd >= 0 && cg->h[cg->role[CG_ROLE_MEMORY]].version == 1) {
		/* Drain the v1 eventfd that may have woken the caller. */
		uint64_t count;

		while (read(cg->oom_watch_fd, &count, sizeof count) > 0)
			;
	}
	cg->oom_kills = *n;
	return 0;
}

int cgroup_pids(struct cgroup *cg, uint64_t *peak, uint64_t *max_hits)
{
	int rc = -1;

	*peak = *max_hits = 0;
	if (cg_read_u64(cg->pidspeak_fd, peak) == 0)
		rc = 0;
	if (cg_read_keyed(cg->pidsevents_fd, "max", max_hits) == 0)
		rc = 0;
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Killing */

int cgroup_kill(struct cgroup *cg)
{
	int whole = -1;

	if (cg->role[CG_ROLE_KILL] >= 0 &&
	    cg_write_at(cg->h[cg->role[CG_ROLE_KILL]].fd, "cgroup.kill", "1") == 0)
		return 0;
	/* Without cgroup.kill: freeze, so that nothing forks while the list is
	 * read, kill every listed process, thaw (the kill lands on thawing). */
	if (cg->role[CG_ROLE_FREEZE] >= 0) {
		struct cg_hier *h = &cg->h[cg->role[CG_ROLE_FREEZE]];

		if (h->version == 2)
			cg_write_at(h->fd, "cgroup.freeze", "1");
		else
			cg_write_at(h->fd, "freezer.state", "FROZEN");
	}
	for (size_t i = 0; i < cg->n; i++)
		if (cg->h[i].fd >= 0 && cg_kill_listed(cg->h[i].fd) >= 0)
			whole = 0;
	if (cg->role[CG_ROLE_FREEZE] >= 0) {
		struct cg_hier *h = &cg->h[cg->role[CG_ROLE_FREEZE]];

		if (h->version == 2)
			cg_write_at(h->fd, "cgroup.freeze", "0");
		else
			cg_write_at(h->fd, "freezer.state", "THAWED");
	}
	return whole;
}

int cgroup_populated(struct cgroup *cg)
{
	uint64_t v;
	char c;

	if (cg->events_fd >= 0 && cg_read_keyed(cg->events_fd, "populated", &v) == 0)
		return v != 0;
	/* v1: any process listed in a hierarchy that holds them all. */
	for (size_t i = 0; i < cg->n; i++) {
		int fd;
		ssize_t n;

		if (cg->h[i].fd < 0)
			continue;
		fd = cg_open_ro(cg->h[i].fd, "cgroup.procs");
		if (fd < 0)
			continue;
		n = pread(fd, &c, 1, 0);
		close(fd);
		if (n >= 0)
			return n > 0;
	}
	return -1;
}
