// SPDX-License-Identifier: ISC
// The sandbox: what proctord sets up for its program, step by step (the
// start), the --report file (the report), and the one teardown that undoes
// the start in reverse order (the end).
#ifndef PROCTOR_SANDBOX_H
#define PROCTOR_SANDBOX_H

#include <ev.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "box.h"
#include "boxowner.h"
#include "boxstrip.h"
#include "cgroup.h"
#include "fifo.h"
#include "identity.h"
#include "options.h"
#include "output.h"
#include "prio.h"
#include "report.h"
#include "reportfile.h"
#include "sbdir.h"
#include "spawn.h"
#include "supervise.h"
#include "sysfilter.h"

/*
 * A sandbox's life has four phases, and these words name them everywhere:
 *
 *   start   the set-up steps below, in order (sandbox_start)
 *   run     the event loop: the supervisor watches the program until its
 *           tree is gone (supervise.c)
 *   report  the --report file and the answer to the terminating wait
 *           (supervise.c's REPORTED state; sandbox_report after the loop)
 *   end     the teardown: every step that the start completed, undone in
 *           reverse order (sandbox_end), on every way out of proctord
 *
 * The steps, in the order of the start (src/daemon/README: Teardown says
 * what undoes each). sb->done counts those completed: the teardown undoes
 * steps done - 1 down to 0. A step either completes or leaves nothing of
 * its own behind.
 */
enum sandbox_step {
	SB_IDENTITY,  /* the program's user and group, namespaces to unshare */
	SB_BOX,       /* --box: its sources opened O_PATH, links distrusted */
	SB_STDIO,     /* copies of the caller's /dev/fd/N, --end-fd, --end-on-eof */
	SB_SIGNALS,   /* the signals that end proctord held for the loop */
	SB_REPORT,    /* the --report file's temporary, --report-fd */
	SB_ENV,       /* the program's environment */
	/* Before the fork of --daemonize: on cgroup v2, a proctord alone in
	 * its cgroup moves into a leaf of its own to hand out controllers,
	 * and the caller waiting for the daemon would share the cgroup. */
	SB_CGROUPS,   /* the sandbox's cgroups */
	SB_LIMITS,    /* pids.max, what the cgroups cannot hold, --strict */
	SB_DAEMONIZE, /* --daemonize: the fork; the readiness pipe */
	SB_SUBREAPER, /* proctord the subreaper of the program's orphans */
	SB_LOOP,      /* the event loop */
	SB_DIR,       /* the sandbox directory and its lock file */
	SB_APART,     /* --box: the directory out of the box's reach */
	SB_FIFOS,     /* DIR/wait and DIR/status, the inotify instance */
	SB_PRIO,      /* proctord real-time */
	SB_ANNOUNCE,  /* the directory printed */
	SB_OUTPUT,    /* the output limits' pipes */
	SB_FILTER,    /* --seccomp's filter, or the box's */
	SB_LISTENER,  /* the socket pair for the filter's listener */
	SB_PROGRAM,   /* the program started */
	SB_SUPERVISE, /* its supervisor */
	SB_N_STEPS
};

/* What proctord sets up for its sandbox, in the order it does. main holds
 * one, static: the teardown of a fatal error (log_fatal) may use it from
 * anywhere. */
struct sandbox {
	struct options *o;
	size_t done;  /* how many steps of the start are complete */
	pid_t owner;  /* the process whose teardown this is (--daemonize: the daemon) */
	const char *fail_at; /* PROCTORD_FAIL_AT: the step after which to fail */
	const char *pause_at; /* PROCTORD_PAUSE_AT: STEP:MS, a pause after STEP */
	pid_t tty_group; /* --tty-foreground: the group proctord left for the program's; 0 */
	/* SB_IDENTITY */
	struct identity iso;
	/* What the program's child does of iso: without the ids where the
	 * init took uid and gid 0 of a mapped user namespace already. */
	struct identity child_iso;
	/* SB_BOX */
	struct box box;
	/* SB_STDIO */
	int in_fd, out_fd, err_fd; /* the caller's /dev/fd/N, or -1 */
	int end_fd;   /* --end-fd: the descriptor the supervisor writes at the end, else -1 */
	int eof_fd;   /* --end-on-eof: the caller's end, which the supervisor watches, else -1 */
	/* SB_REPORT: --report FILE, then --report-fd N; n_reports of them are
	 * open until the report phase writes them. */
	struct report_file reports[2];
	size_t n_reports;
	int report_failed; /* the report could not be written */
	/* SB_ENV, SB_DAEMONIZE, SB_SUBREAPER */
	char **env;
	int ready_fd; /* --daemonize: the readiness pipe, else -1 */
	int nice_value;
	/* SB_LOOP, SB_DIR, SB_FIFOS */
	struct ev_loop *loop;
	struct sbdir dir;
	struct fifo fifo;
	/* SB_CGROUPS, SB_LIMITS */
	struct cgroup cg;
	uint64_t nproc;            /* the program's RLIMIT_NPROC (cgroup_pids_by_rlimit); 0 */
	int cpu_blind;             /* sandbox_cpu_blind */
	/* SB_PRIO */
	struct prio prio;
	/* SB_OUTPUT */
	struct output output, *out; /* out: &output when a stream is piped, else NULL */
	/* SB_FILTER, SB_LISTENER */
	struct sysfilter filter;
	int filter_sv[2];	    /* the seccomp listener's socket pair, or -1 */
	/* SB_PROGRAM */
	struct spawn_config sc;
	int join_fds[CG_MAX_HIER];
	const char *join_paths[CG_MAX_HIER];
	cpu_set_t affinity; /* --cpuset where no cpuset cgroup pins the tree */
	struct spawn_child child;
	struct boxstrip strip; /* DIR and the read-write binds, for the end */
	struct boxowner lent;  /* DIR, the program's uid's for the run */
	int stripped;          /* strip has run */
	uint64_t start_us;
	/* SB_SUPERVISE */
	struct supervisor sv;
	int init_counted; /* the PID namespace's init is one of the cgroup's processes */
};

/* The step's name, as PROCTORD_FAIL_AT and the README spell it. */
const char *sandbox_step_name(enum sandbox_step step);
/* Every step of the start, in order. Returns 0 with the program running
 * under its supervisor; or, once the teardown has undone what was done, an
 * exit code (EXIT_SETUP: a step failed, or --strict refused a limit;
 * EXIT_USAGE: an option refused). */
int sandbox_start(struct sandbox *sb, struct options *o);
/* Once the loop is over: the terminal back, the report, and proctord's
 * exit code. */
int sandbox_report(struct sandbox *sb);
/* The teardown: every completed step undone, the last first. */
void sandbox_end(struct sandbox *sb);

#endif
