// SPDX-License-Identifier: ISC
// The effective limits of one sandbox.
#ifndef PROCTOR_SBLIMITS_H
#define PROCTOR_SBLIMITS_H

#include <stdint.h>

#include "units.h"

struct limits {
	uint64_t cpu_time_us;   /* whole tree, user + sys */
	uint64_t wall_time_us;
	uint64_t address_space; /* RLIMIT_AS, per process */
	uint64_t fsize;         /* RLIMIT_FSIZE, per process */
	uint64_t nofile;        /* RLIMIT_NOFILE, soft = hard */
	uint64_t stack;         /* RLIMIT_STACK */
	uint64_t output_limit;  /* bytes of stdout + stderr, counted by proctord */
	uint64_t stdout_limit;  /* bytes of stdout on its own */
	uint64_t stderr_limit;  /* bytes of stderr on its own */
	int truncate_output;    /* at an output limit, discard the rest: no kill */
	uint64_t grace_us;      /* grace period of a terminating wait */
	/* Tree limits that need a cgroup (without one: a warning, or an
	 * error with --strict). */
	uint64_t memory_max;    /* bytes */
	uint64_t memory_high;   /* bytes */
	uint64_t pids;          /* processes */
	uint64_t cpus_milli;    /* CPU bandwidth in thousandths of a CPU */
	/* The CPUs the tree may run on (a cpuset cgroup, else the affinity
	 * the child sets before execve); empty: not pinned. */
	struct units_cpuset cpuset;
};

/* Which output limit was passed (bits: truncation may come from several). */
enum limits_output {
	LIMIT_STDOUT = 1, /* stdout_limit */
	LIMIT_STDERR = 2, /* stderr_limit */
	LIMIT_OUTPUT = 4, /* output_limit, both streams together */
};

/* Everything unlimited; grace 50 ms. */
void limits_init(struct limits *l);

#endif
