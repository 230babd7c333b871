// SPDX-License-Identifier: ISC
// --cpuset: the check against the CPUs proctord may use, and how the tree is pinned.
//
// A cpuset cgroup pins the whole tree where there is one: every process in
// it can only run on the cgroup's CPUs, whatever it asks for. Without one,
// the child sets its affinity before execve and every process it starts
// inherits it; but a process may call sched_setaffinity and widen its own
// mask again, up to the CPUs of its cgroup.
//
// The list is checked against proctord's own affinity: a process's affinity
// always lies within its cpuset cgroup's effective CPUs, and the sandbox's
// cpuset cgroup is made below proctord's, so a list within the affinity is
// one that the cgroup (and sched_setaffinity) accept as it is. A CPU outside
// would be silently dropped by sched_setaffinity, or refused by the cgroup.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpuset.h"

int cpuset_allowed(struct units_cpuset *out)
{
	cpu_set_t mask;

	memset(out, 0, sizeof *out);
	CPU_ZERO(&mask);
	if (sched_getaffinity(0, sizeof mask, &mask) < 0)
		return -1;
	for (unsigned c = 0; c < UNITS_CPUSET_MAX && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &mask))
			units_cpuset_add(out, c);
	return 0;
}

int cpuset_within(const struct units_cpuset *want, const struct units_cpuset *allowed, char *err,
		  size_t errlen)
{
	struct units_cpuset outside;
	char bad[256], ok[256];

	memset(&outside, 0, sizeof outside);
	for (unsigned c = 0; c < UNITS_CPUSET_MAX; c++)
		if (units_cpuset_has(want, c) && !units_cpuset_has(allowed, c))
			units_cpuset_add(&outside, c);
	if (units_cpuset_empty(&outside))
		return 0;
	units_format_cpuset(&outside, bad, sizeof bad);
	units_format_cpuset(allowed, ok, sizeof ok);
	snprintf(err, errlen, "CPU%s %s %s not among those proctord may run on (%s)",
		 strpbrk(bad, ",-") ? "s" : "", bad, strpbrk(bad, ",-") ? "are" : "is", ok);
	return -1;
}

int cpuset_check_config(const struct config *c, char *err, size_t errlen)
{
	const struct config_key *k = config_key_find("cpuset");
	struct units_cpuset allowed;
	char value[256], src[320], why[600];

	if (units_cpuset_empty(&c->limits.cpuset))
		return 0;
	if (cpuset_allowed(&allowed) < 0) {
		snprintf(err, errlen, "cpuset: cannot read proctord's CPU affinity: %s",
			 strerror(errno));
		return -1;
	}
	if (cpuset_within(&c->limits.cpuset, &allowed, why, sizeof why) == 0)
		return 0;
	config_format(c, k, value, sizeof value);
	config_source_text(&c->source[config_key_index(k)], src, sizeof src);
	snprintf(err, errlen, "cpuset = %s (%s): %s", value, src, why);
	return -1;
}

int cpuset_by_affinity(const struct cgroup *cg, const struct units_cpuset *want)
{
	return !units_cpuset_empty(want) && !cgroup_enforced(cg, "cpuset");
}

void cpuset_mask(const struct units_cpuset *want, cpu_set_t *mask)
{
	CPU_ZERO(mask);
	for (unsigned c = 0; c < UNITS_CPUSET_MAX && c < CPU_SETSIZE; c++)
		if (units_cpuset_has(want, c))
			CPU_SET(c, mask);
}

void cpuset_mechanism(const struct cgroup *cg, char *buf, size_t len)
{
	char why[CG_WHY + 64];

	if (cgroup_enforced(cg, "cpuset")) {
		cgroup_key_mechanism(cg, "cpuset", buf, len);
		return;
	}
	cgroup_key_mechanism(cg, "cpuset", why, sizeof why);
	/* "NOT enforced: REASON" from the cgroup side: the reason only. */
	snprintf(buf, len,
		 "affinity (sched_setaffinity in the child, inherited; the program may widen it "
		 "again, unless --seccomp, which then denies sched_setaffinity) - no cpuset "
		 "cgroup: %s",
		 strncmp(why, "NOT enforced: ", 14) == 0 ? why + 14 : why);
}
