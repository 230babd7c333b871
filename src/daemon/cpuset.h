// SPDX-License-Identifier: ISC
// --cpuset: which CPUs proctord may use, the check of the list against them,
// and how the tree is pinned (a cpuset cgroup, else the child's affinity).
#ifndef PROCTOR_CPUSET_H
#define PROCTOR_CPUSET_H

#include <sched.h>
#include <stddef.h>

#include "cgroup.h"
#include "config.h"
#include "units.h"

/* The CPUs proctord itself may run on (sched_getaffinity). 0, or -1 with
 * errno. */
int cpuset_allowed(struct units_cpuset *out);
/* Whether want lies within allowed. If not, err says which CPUs do not
 * (with what is allowed) and -1 is returned. */
int cpuset_within(const struct units_cpuset *want, const struct units_cpuset *allowed, char *err,
		  size_t errlen);
/* c's cpuset (if any) against proctord's CPUs: 0, or -1 with one line in
 * err naming the value, where it came from and the CPUs outside. */
int cpuset_check_config(const struct config *c, char *err, size_t errlen);
/* Whether the child must pin itself with sched_setaffinity: a CPU list is
 * asked for and no cpuset cgroup serves it. */
int cpuset_by_affinity(const struct cgroup *cg, const struct units_cpuset *want);
/* The affinity mask of want, for sched_setaffinity. */
void cpuset_mask(const struct units_cpuset *want, cpu_set_t *mask);
/* What pins the tree, for --check. */
void cpuset_mechanism(const struct cgroup *cg, char *buf, size_t len);

#endif
