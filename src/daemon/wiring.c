// SPDX-License-Identifier: ISC
// From the configuration to a running sandbox: the at-exit removals, the
// caller's descriptors, pids.max without an init, the --report file.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "config.h"
#include "log.h"
#include "output.h"
#include "report.h"
#include "supervise.h"
#include "units.h"
#include "util.h"
#include "wiring.h"

/* The sandbox's cgroups, removed at any exit of this process (a set-up
 * failure ends in exit()); NULL once handed over or gone. */
struct cgroup *exit_cgroup;

void remove_cgroup_at_exit(void)
{
	if (exit_cgroup)
		cgroup_destroy(exit_cgroup);
	exit_cgroup = NULL;
}

/* The --report file, opened before the program starts: its temporary file
 * is removed at any exit of this process; NULL once handed over. */
struct report_file report, *exit_report;

void remove_report_at_exit(void)
{
	if (exit_report)
		report_file_close(exit_report);
	exit_report = NULL;
}

/* path is /dev/fd/N (or /proc/self/fd/N) and N an open descriptor that
 * proctord inherited: a copy of it, kept out of 0-2, or -1. Opening the path
 * instead would reopen a file at offset 0, and the child closes N before it
 * opens anything. */
int inherited_fd(const char *path)
{
	int n, fd;

	if (!path || (n = fd_path_number(path)) < 0 || fcntl(n, F_GETFD) < 0)
		return -1; /* not open: the child's open() says why */
	fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		log_fatal(EXIT_SETUP, "%s", path);
	return fd;
}

/* Whether path is /dev/fd/N (or /proc/self/fd/N) for the file that is also
 * standard output. */
int fd_path_is_stdout(const char *path)
{
	int n = fd_path_number(path);
	struct stat a, b;

	if (n < 0 || fstat(n, &a) < 0 || fstat(1, &b) < 0)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* What the cgroups add to the report: limits not enforced, pids figures. */
static void report_cgroup(struct cgroup *cg, const struct limits *l, struct report_final *rf)
{
	static const char *const keys[] = {"memory_max", "memory_high", "pids", "cpus"};
	const uint64_t vals[] = {l->memory_max, l->memory_high, l->pids, l->cpus_milli};

	for (size_t i = 0; i < 4; i++) {
		if (vals[i] == UNITS_UNLIMITED)
			continue;
		if (!cgroup_enforced(cg, keys[i]))
			rf->not_enforced[rf->n_not_enforced++] = keys[i];
	}
	if (cgroup_pids(cg, &rf->pids_peak, &rf->pids_max_hits) == 0)
		rf->have_pids = 1;
}

/* pids.max without the room for an init (spawn's pidns_fallback). */
struct pids_fix pids_fix;

int pids_without_init(void *ctx)
{
	char err[512];

	(void)ctx;
	if (pids_fix.pids < UNITS_UNLIMITED - 1 &&
	    cgroup_set_pids_max(pids_fix.cg, pids_fix.pids, err, sizeof err) < 0) {
		log_warnx("%s", err);
		errno = EIO;
		return -1;
	}
	return 0;
}

/* Write the --report file: called by the supervisor before it composes the
 * final answer (so that a client reading it finds the report), or after the
 * loop when a signal ended it. */
void write_report(void *ctx)
{
	struct finish_ctx *f = ctx;
	char err[3 * PATH_MAX];
	struct report_final rf = {
		.outcome = &f->sv->outcome,
		.limits = &f->cfg->limits,
		.cpu_us = f->sv->final_cpu_us,
		.user_us = f->sv->measure.reaped_user_ns / 1000u,
		.sys_us = f->sv->measure.reaped_sys_ns / 1000u,
		.wall_us = f->sv->end_us - f->sv->start_us,
		.peak_memory = f->sv->measure.peak_bytes,
		.output_bytes = f->out ? output_total(f->out) : UNITS_UNLIMITED,
		.interrupted = f->sv->interrupted,
		.user = f->cfg->user,
		.group = f->cfg->group,
		.uid = f->iso->set_uid ? (long)f->iso->uid : -1,
		.gid = f->iso->set_gid ? (long)f->iso->gid : -1,
		.new_session = f->iso->new_session,
		.unshare_net = f->iso->unshare_net,
		.unshare_ipc = f->iso->unshare_ipc,
		.seccomp = !f->cfg->seccomp ? NULL : f->cfg->seccomp_errno ? "errno" : "kill",
	};
	char src_cpu[600], src_mem[600], src_kill[600];
	uint64_t cpu_usage, peak;
	char *text;

	report_cgroup(f->cg, &f->cfg->limits, &rf);
	/* The program's processes, not the init's. */
	if (f->init_counted && rf.have_pids && rf.pids_peak > 0)
		rf.pids_peak--;
	if (cgroup_cpu(f->cg, &cpu_usage, &rf.user_us, &rf.sys_us) == 0)
		rf.src_cpu = cgroup_role_source(f->cg, CG_ROLE_CPU, src_cpu, sizeof src_cpu);
	if (cgroup_peak(f->cg, &peak) == 0) {
		rf.peak_memory = peak;
		rf.src_peak = cgroup_role_source(f->cg, CG_ROLE_MEMORY, src_mem, sizeof src_mem);
	}
	if (cgroup_has(f->cg, CG_ROLE_MEMORY)) {
		rf.have_oom = 1;
		rf.oom_kills = f->sv->oom_kills;
		cgroup_oom_kills(f->cg, &rf.oom_kills);
		rf.src_oom = rf.src_peak ? rf.src_peak : "memory cgroup";
	}
	rf.src_kill = cgroup_role_source(f->cg, CG_ROLE_KILL, src_kill, sizeof src_kill);
	if (!rf.src_kill)
		rf.src_kill = cgroup_role_source(f->cg, CG_ROLE_FREEZE, src_kill, sizeof src_kill);

	text = report_json_text(&rf);
	if (!text)
		snprintf(err, sizeof err, "cannot build the JSON report");
	if (!text || report_file_write(&report, text, err, sizeof err) < 0) {
		/* After daemonizing, stderr is /dev/null: the exit code
		 * is what says the report is missing. */
		log_warnx("report: %s", err);
		f->failed = 1;
	}
	free(text);
	report_file_close(&report);
	exit_report = NULL;
}
