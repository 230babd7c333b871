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
#include "report.h"
#include "spawn.h"
#include "sysfilter.h"

/*
 * RUNNING  --terminating wait or SIGTERM--> GRACE
 * RUNNING, GRACE --limit, grace over--> KILLING (tree SIGKILLed, main not yet reaped;
 *                                       the verdict is decided: answers say killed)
 * RUNNING, GRACE, KILLING --main reaped (in a PID namespace: its init)--> SWEEPING (leftovers killed until none is left)
 * SWEEPING --no descendant left--> ENDED (figures frozen)
 * ENDED --final answer delivered, or interrupted--> DONE (loop stops)
 *
 * finished() is called once when the sandbox has ended and its output is
 * delivered, before the final answer is composed: a client that reads that
 * answer finds the --report file in place.
 *
 * With an end descriptor (--end-fd), ENDED goes on to DONE by itself: once
 * the output is delivered, finished() is called, one byte is written to the
 * descriptor and it is closed; no terminating wait is needed.
 *
 * Kills are for a limit (timers), the terminating wait, the output limit
 * (output.c) or a denied system call (sysfilter.c). With --output-limit the
 * final answer waits in ENDED until the output left in the pipes is delivered.
 */
/* The signals that end proctord cleanly (grace, kill, clean-up, exit 4). */
#define SUPERVISE_N_END_SIGNALS 4
extern const int supervise_end_signals[SUPERVISE_N_END_SIGNALS];

enum sv_state {
	SV_RUNNING,
	SV_GRACE,
	SV_KILLING,
	SV_SWEEPING,
	SV_ENDED,
	SV_DONE,
};

struct supervisor {
	struct ev_loop *loop;
	struct limits limits;
	enum sv_state state;
	struct spawn_child child;
	int exec_checked;          /* the set-up pipe said EOF or failure */
	int exec_failed;
	struct outcome failure;
	int main_reaped;           /* proctord's child (the init in a PID namespace) */
	int program_ended;         /* main_wstatus and main_ru are known (the init's report) */
	int main_wstatus;
	enum kill_reason kill_reason;
	struct outcome outcome;
	int interrupted;           /* a signal to proctord ends it */
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
	struct fifo *fifo;
	struct output *output;     /* NULL without --output-limit */
	struct sysfilter_watch sysfilter; /* .loop NULL without --seccomp */
	char syscall[64];          /* the denied call that ended the program */
	ev_signal sigchld;
	ev_signal sigend[SUPERVISE_N_END_SIGNALS]; /* SIGTERM and the others that end it */
	ev_io err_io;
	struct ptimer wall_timer, cpu_timer, grace_timer;
	ev_timer sweep_timer;
	void (*finished)(void *ctx); /* NULL: nothing to do at the end */
	void *finished_ctx;
	int finished_called;
	int end_fd;                /* --end-fd: written and closed at the end; -1 */
};

/* Start supervising a spawned child; output (NULL if none) is pumped from
 * now on, and filter_sock (-1 if none) brings the system call filter's
 * listener. Returns 0, or -1 with errno set. */
int supervise_init(struct supervisor *s, struct ev_loop *loop, const struct limits *l,
		    const struct spawn_child *child, struct fifo *fifo, struct cgroup *cg,
		    uint64_t start_us, struct output *output, int filter_sock);
/* Add the signals that end proctord to set. */
void supervise_end_sigset(sigset_t *set);
void supervise_finish(struct supervisor *s);
/* Call s->finished now if it has not been called (the loop stopped without
 * a final answer: a signal). */
void supervise_call_finished(struct supervisor *s);

/* --end-fd N: a close-on-exec copy of inherited descriptor N (N is
 * closed), open for writing. Returns it, or -1 with a message in err. */
int supervise_end_fd_take(const char *arg, char *err, size_t errlen);

extern const struct fifo_ops supervise_fifo_ops;

#endif
