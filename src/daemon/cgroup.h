// SPDX-License-Identifier: ISC
// The sandbox's cgroups: discovery on v2, v1 and hybrid machines (cgdiscover.c),
// set-up and limits (cgsetup.c), --check's probing (cgprobe.c), what serves
// what (cgquery.c), readings, kill, removal (cgruntime.c); their files are
// read and written by cgfile.c. What these files share besides: cgroup-priv.h.
#ifndef PROCTOR_CGROUP_H
#define PROCTOR_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "sblimits.h"

/* Which hierarchies proctord may use (key "cgroup"). */
enum cg_mode {
	CG_MODE_AUTO,
	CG_MODE_V2,
	CG_MODE_V1,
	CG_MODE_NONE,
};

/* What a hierarchy serves. Each role is served by one hierarchy at most. */
enum cg_role {
	CG_ROLE_CPU,     /* CPU accounting: v2 cpu.stat, v1 cpuacct */
	CG_ROLE_MEMORY,  /* memory limits and readings */
	CG_ROLE_PIDS,    /* pids.max, pids.peak */
	CG_ROLE_CPUMAX,  /* CPU bandwidth: v2 cpu.max, v1 cfs quota */
	CG_ROLE_KILL,    /* v2 cgroup.kill */
	CG_ROLE_FREEZE,  /* v2 cgroup.freeze, v1 freezer */
	CG_ROLE_EVENTS,  /* v2 cgroup.events: populated */
	CG_ROLE_CPUSET,  /* the CPUs of --cpuset: v2 or v1 cpuset.cpus */
	CG_ROLE_CPUWEIGHT, /* the tree in a cpu cgroup of its own: one weight
			    * against proctord's, whatever its thread count */
	CG_ROLE_COUNT,
};

#define CG_MAX_HIER 8
/* A box's processes and threads without --pids where no pids cgroup serves
 * (RLIMIT_NPROC in its user namespace): room for a JVM's or a Go
 * program's threads, none for a fork bomb. */
#define CG_BOX_PIDS 512
#define CG_WHY 512

struct cg_hier {
	int version;     /* 1 or 2 */
	char ctrls[96];  /* v1: the hierarchy's controllers ("cpu,cpuacct"); v2: "" */
	char *parent;    /* proctord's cgroup in it: the sandbox's goes below */
	char *path;      /* the sandbox's cgroup, once made */
	int fd;          /* its directory, locked (flock) for proctord's life; -1 */
	int procs_fd;    /* its cgroup.procs (v1: tasks), for the child to join; -1 */
	int used;        /* some role is served here */
};

struct cgroup {
	enum cg_mode mode;
	struct cg_hier h[CG_MAX_HIER];
	size_t n;
	int role[CG_ROLE_COUNT];  /* index into h, or -1 */
	char why[CG_ROLE_COUNT][CG_WHY]; /* why a role has no cgroup */
	char fatal[CG_WHY];       /* a cgroup made and lost: set-up must fail */
	int moved;                /* proctord moved itself into a leaf (v2) */
	int rt;                   /* the kernel lets proctord be SCHED_FIFO (prio_rt_probe) */
	int rt_err;               /* else the errno of its refusal */
	/* No pids cgroup, but the program runs in a user namespace of its
	 * own: RLIMIT_NPROC there holds --pids (cgroup_pids_by_rlimit). */
	int pids_nproc;
	/* The program runs as the uid that owns the sandbox's cgroups (a
	 * delegated subtree, proctord not root) where it can reach them (no
	 * box): it could raise their limits itself (cgroup_program_writes). */
	int program_writes;
	int probe;                /* --check: set-up tried on cgroups of its own (cgroup_probe) */
	char plan[4096];          /* --check: what set-up would do, a line each */
	char untried[64];         /* --check: v2 controllers set-up would enable, not enabled */
	char tried[CG_WHY];       /* --check: a set-up step that failed when tried; "" */
	/* --check, where proctord was alone in its v2 cgroup: it moved into its
	 * leaf and enabled controllers as set-up does, to be undone. */
	int undo_fd;              /* that cgroup, or -1 */
	int undo_leaf;            /* the leaf was made by --check */
	char undo_ctrls[64];      /* the controllers it enabled there */
	char nowhere[CG_WHY];     /* why no cgroup2 mount shows proctord's cgroup; "" */
	/* Cached descriptors of the files read on every wait; -1. */
	int cpu_fd, peak_fd, oom_fd, pidspeak_fd, pidsevents_fd, events_fd;
	int oom_watch_fd;         /* readable when an OOM event may have happened; -1 */
	uint64_t oom_kills;       /* last seen */
};

/* cgsetup.c: set-up. */
/* Parse a mode name; -1 if unknown. */
int cgroup_mode_parse(const char *s);
const char *cgroup_mode_name(enum cg_mode m);

/* Find the hierarchies, remove cgroups left by a proctord that died, create
 * the sandbox's cgroups below proctord's own and write the limits of l that
 * a cgroup serves. Returns 0 (with whatever could be had, possibly nothing:
 * see cgroup_unhonoured), or -1 with err when a limit could not be written:
 * a limit is never silently ignored. */
int cgroup_setup(struct cgroup *cg, enum cg_mode mode, const struct limits *l, char *err,
		 size_t errlen);
/* Set pids.max of the sandbox's cgroup to n (UNITS_UNLIMITED: "max"), where
 * a pids cgroup serves the limit; 0 when there is none. -1 with why. */
int cgroup_set_pids_max(struct cgroup *cg, uint64_t n, char *err, size_t errlen);

/* cgprobe.c: --check. */
/* cgroup_setup tried for --check: where set-up would make the sandbox's
 * cgroup, a probe cgroup is made (named as set-up names its own, and locked
 * as it does), the limit files set-up would write are written, and the
 * probe cgroups are removed again before it returns. No stale cgroup is
 * removed. Where proctord is alone in its v2 cgroup, it moves into its leaf
 * and enables controllers as set-up does, and undoes both; elsewhere a
 * controller set-up would enable is only named (others share that cgroup),
 * and its limits are not tried. cg says what would serve
 * each role, cgroup_print_plan what set-up would do, cg->tried a step that
 * failed. */
void cgroup_probe(struct cgroup *cg, enum cg_mode mode, const struct limits *l);
void cgroup_print_plan(const struct cgroup *cg, FILE *out, const char *prefix);
/* --check: each hierarchy proctord is in, one line each: its cgroup, whether
 * proctord may make cgroups there (delegated to its uid, or root), and the
 * limits it serves. */
void cgroup_print_hierarchies(const struct cgroup *cg, FILE *out);
/* Whether --check found something set-up would change (cgroup_print_plan). */
int cgroup_has_plan(const struct cgroup *cg);

/* cgquery.c: questions about the cgroups set up (or probed). */
/* Limits of l that need a cgroup and have none: one line each to out, after
 * prefix, with the reason. Returns how many. */
size_t cgroup_unhonoured(const struct cgroup *cg, const struct limits *l, FILE *out,
			 const char *prefix);
/* What serves role r on this machine ("cgroup2 cpu.stat"), or NULL. */
const char *cgroup_role_source(const struct cgroup *cg, enum cg_role r, char *buf, size_t len);
/* The mechanism that enforces a cgroup-served limit key ("memory_max"...),
 * or the reason it cannot be. */
void cgroup_key_mechanism(const struct cgroup *cg, const char *key, char *buf, size_t len);
/* Whether a cgroup enforces limit key ("memory_max", "memory_high", "pids",
 * "cpus", "cpuset") on this machine. */
int cgroup_enforced(const struct cgroup *cg, const char *key);
/* Where no pids cgroup serves --pids and the program runs in a user
 * namespace of its own (userns), RLIMIT_NPROC there holds it: the limit
 * counts as enforced from now on. Returns the RLIMIT_NPROC to give the
 * program (pids, plus one for the init that is in the namespace too; in a
 * box without --pids, CG_BOX_PIDS), or 0 for none. */
uint64_t cgroup_pids_by_rlimit(struct cgroup *cg, const struct limits *l, int box, int userns);
/* Say whether the program can write the sandbox's cgroups: it runs as
 * proctord's uid, which owns them (proctord is not root), and outside a box
 * /sys/fs/cgroup is in its reach. Each limit a cgroup serves then counts as
 * not enforced: the program could raise it. */
void cgroup_program_writes(struct cgroup *cg, int yes);

/* For the child: the v2 directory to clone into (CLONE_INTO_CGROUP), or -1;
 * and the cgroup.procs files it must join itself before execve. */
int cgroup_clone_fd(const struct cgroup *cg);
/* The cgroup.procs of the sandbox's v2 cgroup, or -1; *path its directory. */
int cgroup_v2_procs_fd(const struct cgroup *cg, const char **path);
/* Readable when an OOM kill may have happened in the sandbox; -1 if none. */
int cgroup_oom_watch_fd(const struct cgroup *cg);
size_t cgroup_join_fds(const struct cgroup *cg, int *fds, const char **paths, size_t max,
		       int cloned_into);

int cgroup_has(const struct cgroup *cg, enum cg_role r);
/* The version (1 or 2) of the hierarchy that serves r; 0 if none does. */
int cgroup_role_version(const struct cgroup *cg, enum cg_role r);
/* The cpu.rt_runtime_us of proctord's own cgroup in a v1 cpu hierarchy
 * (real-time group scheduling), with that cgroup's directory; -1 if there
 * is no such file. */
long cgroup_rt_runtime(const struct cgroup *cg, const char **dir);
/* Whether the sandbox has a cgroup at all (one that holds every process). */
int cgroup_active(const struct cgroup *cg);

/* cgruntime.c: the run time. */
/* Remove the sandbox's cgroups (they must be empty) and close everything. */
void cgroup_destroy(struct cgroup *cg);

/* Readings; each returns 0, or -1 if the cgroup cannot tell. */
int cgroup_cpu(struct cgroup *cg, uint64_t *usage_us, uint64_t *user_us, uint64_t *sys_us);
int cgroup_peak(struct cgroup *cg, uint64_t *peak);
int cgroup_oom_kills(struct cgroup *cg, uint64_t *n);
int cgroup_pids(struct cgroup *cg, uint64_t *peak, uint64_t *max_hits);

/* Kill every process of the sandbox. Returns 0, or -1 if no cgroup holds
 * them all (the caller walks /proc instead). */
int cgroup_kill(struct cgroup *cg);
/* 1 if a process is left, 0 if none, -1 if no cgroup can tell. */
int cgroup_populated(struct cgroup *cg);

#endif
