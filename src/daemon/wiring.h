// SPDX-License-Identifier: ISC
// From the configuration to a running sandbox: the identity, the filter, the
// caller's descriptors, the --report file, the cgroups, the directory and its
// FIFOs, the output pipes, the program and its supervisor; each step with
// its clean-up.
#ifndef PROCTOR_WIRING_H
#define PROCTOR_WIRING_H

#include <ev.h>
#include <sched.h>
#include <stdint.h>

#include "box.h"
#include "boxstrip.h"
#include "cgroup.h"
#include "fifo.h"
#include "identity.h"
#include "options.h"
#include "output.h"
#include "prio.h"
#include "sbdir.h"
#include "spawn.h"
#include "supervise.h"
#include "sysfilter.h"

/* What the --report file is written from, once the sandbox has ended. */
struct finish_ctx {
	const struct config *cfg;
	struct supervisor *sv;
	struct cgroup *cg;
	struct output *out;
	const struct isolate *iso;
	int failed;	  /* the report could not be written */
	int init_counted; /* the PID namespace's init is one of the cgroup's processes */
	int cpu_blind;	  /* --cpu-time with neither a cgroup nor /proc to count it */
};

/* What proctord sets up for its sandbox, in the order it does. main holds
 * one, static: the exit handlers may use it after main has returned. */
struct sandbox {
	struct options *o;
	/* wiring_prepare */
	struct isolate iso;
	/* What the program's child does of iso: without the ids where the
	 * init took uid and gid 0 of a mapped user namespace already. */
	struct isolate child_iso;
	struct box box;
	struct boxstrip strip; /* DIR and the read-write binds, for the end */
	struct sysfilter filter;
	int in_fd, out_fd, err_fd; /* the caller's /dev/fd/N, or -1 */
	/* wiring_cgroups */
	struct cgroup cg;
	uint64_t nproc;            /* the program's RLIMIT_NPROC (cgroup_pids_by_rlimit); 0 */
	int cpu_blind;             /* wiring_cpu_blind */
	/* main: options_env, startup_daemonize, startup_supervisor */
	char **env;
	int ready_fd; /* --daemonize: the readiness pipe, else -1 */
	int end_fd;   /* --end-fd: the descriptor the supervisor writes at the end, else -1 */
	int nice_value;
	/* wiring_serve */
	struct ev_loop *loop;
	struct prio prio;
	struct sbdir dir;
	struct fifo fifo;
	/* wiring_start */
	struct spawn_config sc;
	int join_fds[CG_MAX_HIER];
	const char *join_paths[CG_MAX_HIER];
	cpu_set_t affinity; /* --cpuset where no cpuset cgroup pins the tree */
	struct output output, *out; /* out: &output with --output-limit, else NULL */
	int filter_sv[2];	    /* the seccomp listener's socket pair, or -1 */
	struct spawn_child child;
	uint64_t start_us;
	/* wiring_supervise */
	struct supervisor sv;
	struct finish_ctx fin;
};

/* The identity (a refusal comes before any cgroup is touched), the system
 * call filter, copies of the caller's /dev/fd/N for the program's stdio, and
 * the --report file, found writable now rather than once the program has
 * run. Exits on failure. */
void wiring_prepare(struct sandbox *sb, struct options *o);
void wiring_prepare_free(struct sandbox *sb);
/* The cgroups with their limits, removed at any exit from now on. Returns
 * 0, or EXIT_SETUP when --strict refuses a limit that is not enforced;
 * exits on a failure. */
int wiring_cgroups(struct sandbox *sb);
void wiring_cgroups_remove(struct sandbox *sb);
/* --daemonize's caller side: the daemon owns the cgroups and the report. */
void wiring_disown(void);
/* The event loop, proctord's priority, the directory and its FIFOs (the
 * directory printed when proctord made it up). Exits on failure. */
void wiring_serve(struct sandbox *sb);
void wiring_serve_close(struct sandbox *sb);
/* The output pipes, the filter's socket, and the program. Exits on
 * failure. */
void wiring_start(struct sandbox *sb);
void wiring_output_close(struct sandbox *sb);
/* The supervisor over the program, and the --report file at its end.
 * Returns 0, or EXIT_SETUP once the program is killed for want of it. */
int wiring_supervise(struct sandbox *sb);
/* Once the loop is over: the terminal back, the report, and proctord's
 * exit code. */
int wiring_result(struct sandbox *sb);

#endif
