// SPDX-License-Identifier: ISC
// The supervisor: the program's life as a state machine, its timers, limits and end.
#ifndef PROCTOR_SUPERVISE_H
#define PROCTOR_SUPERVISE_H

#include <ev.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "fifo.h"
#include "sblimits.h"
#include "measure.h"
#include "output.h"
#include "prio.h"
#include "ptimer.h"
#include "spawn.h"
#include "status.h"
#include "sysfilter.h"

/*
 * The program's life, in states (what holds now) and events (what comes
 * from outside: SIGCHLD, a timer, the cgroup, the output pump, the system
 * call filter, a signal, the FIFOs). supervise.c has the whole table of
 * what each event does in each state; in short:
 *
 * RUNNING  --terminating wait--> GRACE
 * RUNNING, GRACE --SIGTERM, SIGINT...: passed on to the program--> SIGNALED
 * SIGNALED --a second signal--> KILLING
 * RUNNING, GRACE, SIGNALED --limit, grace over--> KILLING (tree SIGKILLed, main not yet reaped;
 *                                       the verdict is decided: answers say killed)
 * RUNNING, GRACE, SIGNALED, KILLING --main reaped (in a PID namespace: its init)--> SWEEPING (leftovers killed until none is left)
 * SWEEPING --no descendant left--> ENDED (figures frozen)
 * ENDED --the final answer is due--> REPORTED (report() called: the report is in place)
 * REPORTED --final answer delivered--> DONE (loop stops)
 * ENDED, REPORTED --interrupted--> DONE (interrupted before, SWEEPING ends in DONE)
 * RUNNING --the caller gone (--end-on-eof)--> GRACE, interrupted
 *
 * report() is called once when the sandbox has ended and its output is
 * delivered, before the final answer is composed: a client that reads that
 * answer finds the --report file in place.
 *
 * With an end descriptor (--end-fd), ENDED goes on to DONE by itself: once
 * the output is delivered, report() is called, one byte is written to the
 * descriptor and it is closed; no terminating wait is needed.
 *
 * Kills are for a limit (timers), the terminating wait, the output limit
 * (output.c) or a denied system call (sysfilter.c). With an output limit the
 * final answer waits in ENDED until the output left in the pipes is delivered.
 */
/* The signals that end proctord cleanly (grace, kill, clean-up, exit 4). */
#define SUPERVISE_N_END_SIGNALS 4
extern const int supervise_end_signals[SUPERVISE_N_END_SIGNALS];

enum sv_state {
	SV_RUNNING,
	SV_GRACE,
	SV_SIGNALED,
	SV_KILLING,
	SV_SWEEPING,
	SV_ENDED,
	SV_REPORTED,
	SV_DONE,
	SV_N_STATES
};

enum sv_event {
	SV_EV_CHILD,       /* SIGCHLD: something to reap */
	SV_EV_MAIN_GONE,   /* the main process (the init) has been reaped */
	SV_EV_SETUP,       /* the set-up pipe has something to say */
	SV_EV_WALL,        /* the wall-clock deadline */
	SV_EV_CPU,         /* the CPU deadline's check */
	SV_EV_GRACE,       /* the grace period is over */
	SV_EV_SWEEP,       /* time to look for leftovers again */
	SV_EV_OOM,         /* the cgroup's memory events changed */
	SV_EV_OUTPUT_OVER, /* the output passed an output limit (not --truncate-output) */
	SV_EV_OUTPUT_DONE, /* the output left after the end is delivered */
	SV_EV_SYSCALL,     /* a denied system call (its name in s->denied) */
	SV_EV_SIGNAL,      /* one of the signals that end proctord */
	SV_EV_TERMINATE,   /* a terminating wait arrived */
	SV_EV_CALLER_GONE, /* --end-on-eof: the caller closed its end */
	SV_EV_ANSWER,      /* a wait's answer is about to be composed */
	SV_EV_FINAL,       /* the terminating wait's answer is about to be composed */
	SV_EV_DELIVERED,   /* that answer has been delivered (or dropped) */
	SV_N_EVENTS
};

struct supervisor {
	struct ev_loop *loop;
	struct limits limits;
	enum sv_state state;
	struct spawn_child child;
	int exec_checked;          /* the set-up pipe said EOF or failure */
	int exec_failed;
	struct outcome failure;
	struct spawn_baseline setup; /* the init's, on the set-up pipe (known -1: not yet) */
	int main_reaped;           /* proctord's child (the init in a PID namespace) */
	int program_ended;         /* main_wstatus and main_ru are known (the init's report) */
	int main_wstatus;
	enum kill_reason kill_reason;
	struct outcome outcome;
	int interrupted;           /* a signal to proctord ends it */
	int interrupt_signo;       /* the first such signal (the report's interrupt_signal) */
	int exit_code;
	unsigned ncpus;
	uint64_t start_us, end_us;
	uint64_t final_cpu_us;
	uint64_t main_cpu_us;      /* main process's own rusage (with what it waited for) */
	struct rusage main_ru;
	struct measure measure;
	struct cgroup *cg;         /* the sandbox's cgroups (may serve nothing) */
	struct prio *prio;         /* proctord's priority, lowered once no deadline is left; NULL */
	uint64_t oom_kills;
	ev_io oom_io;
	ev_timer oom_timer;        /* reads the OOM count again (v1 counts late) */
	unsigned oom_rechecks;
	struct fifo *fifo;
	struct output *output;     /* NULL when no stream passes through proctord */
	struct sysfilter_watch sysfilter; /* .loop NULL without --seccomp */
	char syscall[64];          /* the denied call that ended the program */
	const char *denied;        /* SV_EV_SYSCALL's call, while it is handled */
	int signo;                 /* SV_EV_SIGNAL's signal, while it is handled */
	ev_signal sigchld;
	ev_signal sigend[SUPERVISE_N_END_SIGNALS]; /* SIGTERM and the others that end it */
	ev_io err_io;
	struct ptimer wall_timer, cpu_timer, grace_timer;
	ev_timer sweep_timer;
	/* Called once no process of the tree is left (SWEEPING -> ENDED),
	 * before any answer says so; NULL: nothing. */
	void (*ended)(void *ctx);
	void *ended_ctx;
	void (*report)(void *ctx); /* the report phase (the --report file); NULL: none */
	void *report_ctx;
	int reported;              /* report() has been called */
	int end_fd;                /* --end-fd: written and closed at the end; -1 */
	int eof_fd;                /* --end-on-eof: the caller's pipe or socket; -1 */
	int shares_group;          /* proctord is in the program's process group (the terminal's) */
	pid_t home_group;          /* with shares_group: proctord's own group, to go back to */
	ev_io eof_io;
};

/* Start supervising a spawned child; output (NULL if none) is pumped from
 * now on, and filter_sock (-1 if none) brings the system call filter's
 * listener. Returns 0, or -1 with errno set. */
int supervise_init(struct supervisor *s, struct ev_loop *loop, const struct limits *l,
		    const struct spawn_child *child, struct fifo *fifo, struct cgroup *cg,
		    uint64_t start_us, struct output *output, int filter_sock);
/* Once the caller has set the hooks above (ended, report, end_fd), just
 * before the loop runs: take in a child that ended before supervise_init.
 * Returns 0 when that has ended the run already (the loop is not to be
 * run), 1 otherwise. */
int supervise_start(struct supervisor *s);
/* Add the signals that end proctord to set. */
void supervise_end_sigset(sigset_t *set);
/* The supervisor's part of the end (sandbox_end): its watchers stopped, its
 * descriptors closed. */
void supervise_close(struct supervisor *s);
/* Call s->report now if it has not been called (the loop stopped without
 * a final answer: a signal). */
void supervise_report_once(struct supervisor *s);

/* --end-fd N: a close-on-exec copy of inherited descriptor N (N is
 * closed), open for writing. Returns it, or -1 with a message in err. */
int supervise_end_fd_take(const char *arg, char *err, size_t errlen);
/* --end-on-eof N: the same for a pipe or socket open for reading, whose
 * end (the last writer gone) ends the run as a terminating wait would. */
int supervise_eof_fd_take(const char *arg, char *err, size_t errlen);

extern const struct fifo_ops supervise_fifo_ops;

/* The transition table by name ("-" for nothing), for its unit test, which
 * checks it against the table in supervise.c's comment. */
const char *supervise_state_name(enum sv_state st);
const char *supervise_event_name(enum sv_event ev);
const char *supervise_action_name(enum sv_state st, enum sv_event ev);

#endif
