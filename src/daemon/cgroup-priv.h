// SPDX-License-Identifier: ISC
// What the cgroup files share: the names of the cgroups proctord makes, and
// the small file helpers (cgfile.c).
#ifndef PROCTOR_CGROUP_PRIV_H
#define PROCTOR_CGROUP_PRIV_H

#include <stdint.h>

#include "cgroup.h"

#define CG_PREFIX "proctor-"
#define CG_LEAF "proctord"

/* cgfile.c: one file each. */
int cg_write_at(int dirfd, const char *file, const char *value);
int cg_exists_at(int dirfd, const char *file);
int cg_keyed(const char *buf, const char *key, uint64_t *out);
int cg_read_u64(int fd, uint64_t *out);
int cg_read_keyed(int fd, const char *key, uint64_t *out);
int cg_open_ro(int dirfd, const char *file);
void cg_close(int *fd);

/* cgsetup.c: set-up (cgroup_setup), or with probe its dry run for --check
 * (cgroup_probe). */
int cg_setup(struct cgroup *cg, enum cg_mode mode, const struct limits *l, int probe, char *err,
	     size_t errlen);

/* cgprobe.c: what set-up asks of --check where it would change something. */
void cg_plan(struct cgroup *cg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cg_change(struct cgroup *cg, int dirfd, const char *dir, const char *file, const char *value);
int cg_v2_has(const struct cgroup *cg, const struct cg_hier *h, const char *file);
int cg_untried(struct cgroup *cg, const char *ctrl);
int cg_is_untried(const struct cgroup *cg, const struct cg_hier *h, const char *file);
void cg_probe_remove(struct cgroup *cg);
void cg_probe_owned(struct cgroup *cg, int pfd, const char *parent, int leaf_made);
void cg_probe_undo(struct cgroup *cg);

/* cgruntime.c: killing and removing, which set-up's stale clean-up uses too. */
long cg_kill_listed(int dirfd);
int cg_remove_tree(int parentfd, const char *name, int depth);

#endif
