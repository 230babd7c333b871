// SPDX-License-Identifier: ISC
// Questions about the sandbox's cgroups once set up (or probed): what serves
// each role, which limits a cgroup enforces and why not, by what mechanism,
// RLIMIT_NPROC in place of a pids cgroup, and the descriptors the child and
// the loop use. Nothing here writes a cgroup file.
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgdiscover.h"
#include "cgroup.h"
#include "units.h"
#include "util.h"

int cgroup_has(const struct cgroup *cg, enum cg_role r)
{
	return cg->role[r] >= 0;
}

int cgroup_role_version(const struct cgroup *cg, enum cg_role r)
{
	return cg->role[r] >= 0 ? cg->h[cg->role[r]].version : 0;
}

long cgroup_rt_runtime(const struct cgroup *cg, const char **dir)
{
	for (size_t i = 0; i < cg->n; i++) {
		char buf[32];
		int fd;
		ssize_t n;

		if (cg->h[i].version != 1 || !cgd_has_word(cg->h[i].ctrls, "cpu"))
			continue;
		fd = open(cg->h[i].parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		n = fd >= 0 ? read_small_file(fd, "cpu.rt_runtime_us", buf, sizeof buf) : -1;
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return -1;
		*dir = cg->h[i].parent;
		return strtol(buf, NULL, 10);
	}
	return -1;
}

int cgroup_active(const struct cgroup *cg)
{
	for (size_t i = 0; i < cg->n; i++)
		if (cg->h[i].fd >= 0 || (cg->probe && cg->h[i].path))
			return 1;
	return 0;
}

const char *cgroup_role_source(const struct cgroup *cg, enum cg_role r, char *buf, size_t len)
{
	static const char *const v2[CG_ROLE_COUNT] = {
		"cpu.stat usage_usec", "memory.peak, memory.events", "pids controller", "cpu.max",
		"cgroup.kill", "cgroup.freeze", "cgroup.events", "cpuset.cpus", "cpu.weight",
	};
	static const char *const v1[CG_ROLE_COUNT] = {
		"cpuacct.usage", "memory.max_usage_in_bytes, memory.oom_control", "pids controller",
		"cpu.cfs_quota_us",
		"-", "freezer.state", "-", "cpuset.cpus, cpuset.mems", "cpu.shares",
	};
	const struct cg_hier *h;

	if (cg->role[r] < 0)
		return NULL;
	h = &cg->h[cg->role[r]];
	snprintf(buf, len, "cgroup%d %s (%s)", h->version, h->version == 2 ? v2[r] : v1[r],
		 h->path);
	return buf;
}

/* The role that serves limit key ("memory_max", "memory_high", "pids",
 * "cpus"). */
static enum cg_role cg_key_role(const char *key)
{
	if (strcmp(key, "pids") == 0)
		return CG_ROLE_PIDS;
	if (strcmp(key, "cpus") == 0)
		return CG_ROLE_CPUMAX;
	if (strcmp(key, "cpuset") == 0)
		return CG_ROLE_CPUSET;
	return CG_ROLE_MEMORY;
}

/* Why limit key cannot be enforced (written to buf), or NULL if it can. */
static const char *cg_key_unenforced(const struct cgroup *cg, const char *key, char *buf,
				     size_t len)
{
	enum cg_role r = cg_key_role(key);

	if (r == CG_ROLE_PIDS && cg->role[r] < 0 && cg->pids_nproc)
		return NULL;
	if (cg->role[r] < 0) {
		snprintf(buf, len, "%s", cg->why[r]);
		return buf;
	}
	if (strcmp(key, "memory_high") == 0 && cg->h[cg->role[r]].version != 2) {
		snprintf(buf, len, "cgroup v1 has no memory.high (%s)", cg->h[cg->role[r]].path);
		return buf;
	}
	/* --cpuset's cgroup is backed by the affinity, which is as open. */
	if (cg->program_writes && r != CG_ROLE_CPUSET) {
		snprintf(buf, len,
			 "the program runs as proctord's uid %u, which owns %s: it can raise this "
			 "limit itself (run it in a --box, where no cgroup file is in its reach)",
			 (unsigned)geteuid(), cg->h[cg->role[r]].path);
		return buf;
	}
	return NULL;
}

int cgroup_enforced(const struct cgroup *cg, const char *key)
{
	char why[CG_WHY + 64];

	return cg_key_unenforced(cg, key, why, sizeof why) == NULL;
}

void cgroup_key_mechanism(const struct cgroup *cg, const char *key, char *buf, size_t len)
{
	enum cg_role r = cg_key_role(key);
	const char *file;
	const struct cg_hier *h;
	char why[CG_WHY + 64];

	if (cg_key_unenforced(cg, key, why, sizeof why)) {
		snprintf(buf, len, "NOT enforced: %s", why);
		return;
	}
	if (cg->role[r] < 0) { /* pids, held by cgroup_pids_by_rlimit */
		snprintf(buf, len,
			 "RLIMIT_NPROC of the program's user namespace (pids + 1 for the init; "
			 "no pids cgroup: %s)",
			 cg->why[r]);
		return;
	}
	h = &cg->h[cg->role[r]];
	if (strcmp(key, "memory_max") == 0)
		file = h->version == 2 ? "memory.max, memory.swap.max 0"
				       : "memory.limit_in_bytes (and memsw where present)";
	else if (strcmp(key, "memory_high") == 0)
		file = "memory.high";
	else if (r == CG_ROLE_PIDS)
		file = "pids.max";
	else if (r == CG_ROLE_CPUSET)
		file = h->version == 2 ? "cpuset.cpus" : "cpuset.cpus, cpuset.mems";
	else
		file = h->version == 2 ? "cpu.max" : "cpu.cfs_quota_us";
	snprintf(buf, len, "cgroup%d %s (%s)", h->version, file, h->path);
}

size_t cgroup_unhonoured(const struct cgroup *cg, const struct limits *l, FILE *out,
			 const char *prefix)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{"memory_max", offsetof(struct limits, memory_max)},
		{"memory_high", offsetof(struct limits, memory_high)},
		{"pids", offsetof(struct limits, pids)},
		{"cpus", offsetof(struct limits, cpus_milli)},
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		uint64_t v;
		char m[CG_WHY + 64];

		memcpy(&v, (const char *)l + keys[i].off, sizeof v);
		if (v == UNITS_UNLIMITED)
			continue;
		if (!cg_key_unenforced(cg, keys[i].key, m, sizeof m))
			continue;
		if (out)
			fprintf(out, "%s%s cannot be honoured: %s\n", prefix, keys[i].key, m);
		n++;
	}
	return n;
}

int cgroup_v2_procs_fd(const struct cgroup *cg, const char **path)
{
	int fd = -1;

	for (size_t i = 0; i < cg->n; i++)
		if (cg->h[i].version == 2 && cg->h[i].fd >= 0) {
			fd = cg->h[i].procs_fd;
			*path = cg->h[i].path;
		}
	return fd;
}

int cgroup_oom_watch_fd(const struct cgroup *cg)
{
	return cg->oom_watch_fd;
}

void cgroup_program_writes(struct cgroup *cg, int yes)
{
	cg->program_writes = yes;
}

uint64_t cgroup_pids_by_rlimit(struct cgroup *cg, const struct limits *l, int box, int userns)
{
	cg->pids_nproc = 0;
	if (cg->role[CG_ROLE_PIDS] >= 0 || !userns)
		return 0;
	if (l->pids < UNITS_UNLIMITED - 1) {
		cg->pids_nproc = 1;
		return l->pids + 1;
	}
	return box ? CG_BOX_PIDS + 1 : 0;
}

int cgroup_clone_fd(const struct cgroup *cg)
{
	for (size_t i = 0; i < cg->n; i++)
		if (cg->h[i].version == 2 && cg->h[i].fd >= 0)
			return cg->h[i].fd;
	return -1;
}

size_t cgroup_join_fds(const struct cgroup *cg, int *fds, const char **paths, size_t max,
		       int cloned_into)
{
	size_t n = 0;

	for (size_t i = 0; i < cg->n && n < max; i++) {
		if (cg->h[i].procs_fd < 0 || (cg->h[i].version == 2 && cloned_into))
			continue;
		fds[n] = cg->h[i].procs_fd;
		paths[n] = cg->h[i].path;
		n++;
	}
	return n;
}
