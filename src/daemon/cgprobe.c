// SPDX-License-Identifier: ISC
// --check's probing of the cgroups, and what --check prints of them. Set-up
// (cgsetup.c) runs with probe set: it makes a probe cgroup where it would
// make the sandbox's, named and locked as its own, writes the limits there,
// and removes it again (cg_probe_remove); each step goes into the plan
// (cg_plan). Where proctord is alone in its v2 cgroup, its move into its
// leaf and the controllers it enables there are done and undone
// (cg_probe_owned, cg_probe_undo); elsewhere a controller set-up would
// enable is only planned (cg_change, cg_untried), as others share that
// cgroup, and its limit files are not tried. No stale cgroup is removed.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgdiscover.h"
#include "cgroup-priv.h"
#include "cgroup.h"
#include "util.h"

/* Add a line to what --check says set-up would do. */
void cg_plan(struct cgroup *cg, const char *fmt, ...)
{
	size_t used = strlen(cg->plan);
	va_list ap;

	if (used + 1 < sizeof cg->plan) {
		va_start(ap, fmt);
		vsnprintf(cg->plan + used, sizeof cg->plan - used, fmt, ap);
		va_end(ap);
	}
	used = strlen(cg->plan);
	if (used + 1 < sizeof cg->plan)
		snprintf(cg->plan + used, sizeof cg->plan - used, "\n");
}

/* Write value to file in the directory dir (dirfd); in --check, only say
 * that it would be written, if the file is writable. */
int cg_change(struct cgroup *cg, int dirfd, const char *dir, const char *file, const char *value)
{
	if (!cg->probe)
		return cg_write_at(dirfd, file, value);
	if (cg->undo_fd >= 0 && strcmp(file, "cgroup.subtree_control") == 0 && value[0] == '+') {
		/* Proctord's own cgroup, where it is alone: done, and undone. */
		if (cg_write_at(dirfd, file, value) < 0)
			return -1;
		if (cg->undo_ctrls[0])
			strlcat(cg->undo_ctrls, " ", sizeof cg->undo_ctrls);
		strlcat(cg->undo_ctrls, value + 1, sizeof cg->undo_ctrls);
		cg_plan(cg, "would write %s to %s/%s (tried: undone by --check)", value, dir, file);
		return 0;
	}
	if (faccessat(dirfd, file, W_OK, 0) < 0)
		return -1;
	cg_plan(cg, "would write %s to %s/%s", value, dir, file);
	return 0;
}

/* --check: set-up would enable controller ctrl for the sandbox's v2 cgroup
 * (cg_change planned it); --check does not, so the files of ctrl are not
 * there to try. Returns 0, as the enabling would. */
int cg_untried(struct cgroup *cg, const char *ctrl)
{
	if (cg->probe && cg->undo_fd < 0) {
		if (cg->untried[0])
			strlcat(cg->untried, " ", sizeof cg->untried);
		strlcat(cg->untried, ctrl, sizeof cg->untried);
	}
	return 0;
}

/* Whether file of the sandbox's cgroup in h belongs to a controller that
 * --check did not enable (cg_untried): "memory.max" to "memory". */
int cg_is_untried(const struct cgroup *cg, const struct cg_hier *h, const char *file)
{
	char ctrl[32];
	size_t len = strcspn(file, ".");

	if (!cg->probe || h->version != 2 || len >= sizeof ctrl)
		return 0;
	memcpy(ctrl, file, len);
	ctrl[len] = '\0';
	return cgd_has_word(cg->untried, ctrl);
}

/* Whether the sandbox's v2 cgroup in h has file: it was made (in --check,
 * as a probe), and a controller's files are there once it is enabled,
 * which --check does not do. */
int cg_v2_has(const struct cgroup *cg, const struct cg_hier *h, const char *file)
{
	return cg_exists_at(h->fd, file) || cg_is_untried(cg, h, file);
}

/* --check: remove the probe cgroups, which no process ever joined. A
 * removal that fails is a failed step (cg->tried), named. */
void cg_probe_remove(struct cgroup *cg)
{
	for (size_t i = 0; i < cg->n; i++) {
		struct cg_hier *h = &cg->h[i];
		const char *name = h->path ? strrchr(h->path, '/') : NULL;
		int pfd;

		if (h->fd < 0 || !name)
			continue;
		pfd = open(h->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if ((pfd < 0 || unlinkat(pfd, name + 1, AT_REMOVEDIR) < 0) && !cg->tried[0])
			snprintf(cg->tried, sizeof cg->tried, "cannot remove the probe cgroup %s: %s",
				 h->path, strerror(errno));
		if (pfd >= 0)
			close(pfd);
		cg_close(&h->fd);
	}
}

/* --check moved into its leaf in the v2 cgroup parent, at pfd (leaf_made:
 * it made the leaf): what set-up does there, controllers included, is done
 * and then undone (cg_probe_undo). */
void cg_probe_owned(struct cgroup *cg, int pfd, const char *parent, int leaf_made)
{
	cg->undo_fd = fcntl(pfd, F_DUPFD_CLOEXEC, 0);
	cg->undo_leaf = leaf_made;
	cg_plan(cg, "would move proctord into %s/" CG_LEAF " (tried: moved back by --check)",
		parent);
}

/* The v2 cgroup at fd has no child cgroup but the leaf CG_LEAF. */
static int cg_leaf_alone(int fd)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), alone = 1;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while (alone && (e = readdir(d)))
		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0 && strcmp(e->d_name, CG_LEAF) != 0)
			alone = 0;
	closedir(d);
	return alone;
}

/* Undo cg_probe_owned, once the probe cgroups are gone: the controllers it
 * enabled, last first, then proctord back where it was, and the leaf. */
void cg_probe_undo(struct cgroup *cg)
{
	char pid[32], minus[40];
	size_t end = strlen(cg->undo_ctrls);

	if (cg->undo_fd < 0)
		return;
	/* Another cgroup beside the leaf (a start's, made meanwhile) may be
	 * using the controllers: leave them on, as a start would. */
	if (end > 0 && !cg_leaf_alone(cg->undo_fd)) {
		cg_plan(cg, "left +%s on in cgroup.subtree_control: another cgroup was made beside "
			    "the leaf meanwhile",
			cg->undo_ctrls);
		end = 0;
	}
	while (end > 0) {
		size_t start = end;

		while (start > 0 && cg->undo_ctrls[start - 1] != ' ')
			start--;
		snprintf(minus, sizeof minus, "-%.*s", (int)(end - start), cg->undo_ctrls + start);
		if (cg_write_at(cg->undo_fd, "cgroup.subtree_control", minus) < 0 && !cg->tried[0])
			snprintf(cg->tried, sizeof cg->tried,
				 "cannot undo --check's %s in cgroup.subtree_control: %s", minus + 1,
				 strerror(errno));
		end = start > 0 ? start - 1 : 0;
	}
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	if (cg_write_at(cg->undo_fd, "cgroup.procs", pid) < 0 && !cg->tried[0])
		snprintf(cg->tried, sizeof cg->tried, "cannot move back out of %s: %s", CG_LEAF,
			 strerror(errno));
	else if (cg->undo_leaf && unlinkat(cg->undo_fd, CG_LEAF, AT_REMOVEDIR) < 0 &&
		 !cg->tried[0])
		snprintf(cg->tried, sizeof cg->tried, "cannot remove the leaf %s: %s", CG_LEAF,
			 strerror(errno));
	cg_close(&cg->undo_fd);
}

void cgroup_probe(struct cgroup *cg, enum cg_mode mode, const struct limits *l)
{
	char err[8];

	cg_setup(cg, mode, l, 1, err, sizeof err);
}

void cgroup_print_plan(const struct cgroup *cg, FILE *out, const char *prefix)
{
	for (const char *p = cg->plan; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		fprintf(out, "%s%.*s\n", prefix, len, p);
		p += len + (nl != NULL);
	}
}

/* The limits (of memory, pids, cpus) that hierarchy i serves, as words. */
static void cg_limits_of(const struct cgroup *cg, size_t i, char *buf, size_t len)
{
	static const struct {
		enum cg_role r;
		const char *name;
	} lim[] = {{CG_ROLE_MEMORY, "memory"}, {CG_ROLE_PIDS, "pids"}, {CG_ROLE_CPUMAX, "cpu"}};

	buf[0] = '\0';
	for (size_t k = 0; k < sizeof lim / sizeof *lim; k++)
		if (cg->role[lim[k].r] == (int)i) {
			if (buf[0])
				strlcat(buf, " ", len);
			strlcat(buf, lim[k].name, len);
		}
	if (!buf[0])
		strlcpy(buf, "none", len);
}

void cgroup_print_hierarchies(const struct cgroup *cg, FILE *out)
{
	uid_t euid = geteuid();
	char *map = slurp("/proc/self/uid_map");
	int initial = map && cgd_uidmap_initial(map);

	free(map);
	fprintf(out, "\n");
	if (cg->n == 0)
		fprintf(out, "%-14s none proctord is in: %s\n", "cgroups",
			cg->nowhere[0] ? cg->nowhere
				       : (cg->mode == CG_MODE_NONE
					      ? "turned off (cgroup = none)"
					      : "no cgroup file system mounted shows them"));
	for (size_t i = 0; i < cg->n; i++) {
		const struct cg_hier *h = &cg->h[i];
		char state[256], lims[64], ctrls[256] = "";
		struct stat st;
		int fd = open(h->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0 || fstat(fd, &st) < 0) {
			snprintf(state, sizeof state, "cannot be opened: %s", strerror(errno));
		} else if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) < 0 ||
			   faccessat(fd, "cgroup.procs", W_OK, AT_EACCESS) < 0) {
			snprintf(state, sizeof state,
				 "NOT writable by proctord (uid %u): %s, owned by uid %u",
				 (unsigned)euid, strerror(errno), (unsigned)st.st_uid);
		} else if (st.st_uid == euid && (euid != 0 || !initial)) {
			/* Delegated: a cgroup proctord's uid owns, with its
			 * cgroup.procs (the kernel also wants the latter to
			 * move proctord into a leaf of it). */
			snprintf(state, sizeof state,
				 "delegated to proctord (its uid %u owns it%s)", (unsigned)euid,
				 initial ? "" : ", in a user namespace");
		} else {
			snprintf(state, sizeof state, "writable (proctord is root)");
		}
		if (h->version == 2 && fd >= 0 &&
		    read_small_file(fd, "cgroup.controllers", ctrls, sizeof ctrls) >= 0)
			ctrls[strcspn(ctrls, "\n")] = '\0';
		if (fd >= 0)
			close(fd);
		cg_limits_of(cg, i, lims, sizeof lims);
		if (h->version == 2)
			fprintf(out,
				"%-14s v2 %s: %s; limits through it: %s (cgroup.controllers: %s)\n",
				"cgroups", h->parent, state, lims, ctrls[0] ? ctrls : "none");
		else
			fprintf(out, "%-14s v1 %s %s: %s; limits through it: %s\n", "cgroups",
				h->ctrls, h->parent, state, lims);
	}
}

int cgroup_has_plan(const struct cgroup *cg)
{
	return cg->plan[0] != '\0';
}
