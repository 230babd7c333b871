// SPDX-License-Identifier: ISC
// The JSON report (--report): what it says of a sandbox that has ended. Its
// status is status.h's; the file it goes to, reportfile.h's.
#ifndef PROCTOR_REPORT_H
#define PROCTOR_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "sblimits.h"
#include "status.h"

/* What the JSON report (--report) says of a sandbox that has ended. */
struct report_final {
	const struct outcome *outcome;
	const struct limits *limits;
	uint64_t cpu_us, user_us, sys_us, wall_us;
	uint64_t peak_memory;
	uint64_t max_rss;      /* largest ru_maxrss of one process, bytes */
	uint64_t csw_voluntary, csw_forced;
	uint64_t output_bytes; /* UNITS_UNLIMITED: not counted (no output limit) */
	uint64_t stdout_bytes, stderr_bytes; /* each stream's; UNITS_UNLIMITED: not counted */
	int output_truncated;  /* --truncate-output discarded bytes; -1: nothing counted */
	int interrupted; /* proctord was ended by a signal */
	int interrupt_signo; /* the first ending signal proctord took; 0: none */
	int have_oom;    /* oom_kills is known (a memory cgroup) */
	uint64_t oom_kills;
	int have_pids;   /* pids_peak and pids_max_hits are known (a pids cgroup) */
	uint64_t pids_peak, pids_max_hits;
	/* Limits asked for that nothing enforced, by key name. */
	const char *not_enforced[8];
	size_t n_not_enforced;
	/* Where the figures came from ("cpu", "user_sys", "peak_memory",
	 * "oom_kills", "tree_kill"): text, or NULL for the /proc fallback. */
	const char *src_cpu, *src_peak, *src_oom, *src_kill;
	/* The program's identity and isolation. */
	const char *user, *group; /* as given; NULL: proctord's own */
	long uid, gid;            /* -1: proctord's own */
	int new_session, unshare_net, unshare_ipc;
	const char *seccomp;      /* NULL, "kill" or "errno" */
};

/* The JSON report, with a final newline (malloc'd; NULL if out of memory).
 * Figures above INT64_MAX are printed exactly, as bare digits. */
char *report_json_text(const struct report_final *f);

#endif
