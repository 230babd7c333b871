// SPDX-License-Identifier: ISC
// From the configuration to a running sandbox: what proctord removes at any
// exit, the caller's descriptors, pids.max without an init, the --report file.
#ifndef PROCTOR_WIRING_H
#define PROCTOR_WIRING_H

#include <stdint.h>

#include "cgroup.h"
#include "config.h"
#include "isolate.h"
#include "output.h"
#include "report.h"
#include "supervise.h"

/* The sandbox's cgroups, removed at any exit of this process (a set-up
 * failure ends in exit()); NULL once handed over or gone. */
extern struct cgroup *exit_cgroup;
void remove_cgroup_at_exit(void);
/* The --report file, opened before the program starts: its temporary file
 * is removed at any exit of this process; NULL once handed over. */
extern struct report_file report, *exit_report;
void remove_report_at_exit(void);

/* path is /dev/fd/N (or /proc/self/fd/N) and N an open descriptor that
 * proctord inherited: a copy of it, kept out of 0-2, or -1. */
int inherited_fd(const char *path);
/* Whether path is /dev/fd/N (or /proc/self/fd/N) for the file that is also
 * standard output. */
int fd_path_is_stdout(const char *path);

/* What the --report file is written from, once the sandbox has ended. */
struct finish_ctx {
	const struct config *cfg;
	struct supervisor *sv;
	struct cgroup *cg;
	struct output *out;
	const struct isolate *iso;
	int failed;	  /* the report could not be written */
	int init_counted; /* the PID namespace's init is one of the cgroup's processes */
};

/* pids.max without the room for an init (spawn's pidns_fallback). */
extern struct pids_fix {
	struct cgroup *cg;
	uint64_t pids;
} pids_fix;

int pids_without_init(void *ctx);
/* Write the --report file (ctx is a struct finish_ctx). */
void write_report(void *ctx);

#endif
