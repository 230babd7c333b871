// SPDX-License-Identifier: ISC
// proctord's own scheduling: ahead of the program it supervises, within a CPU budget.
#ifndef PROCTOR_PRIO_H
#define PROCTOR_PRIO_H

#include <ev.h>
#include <stdint.h>

/* While real-time, proctord uses at most PRIO_RT_BUDGET_NS of CPU in a
 * window of PRIO_WINDOW_NS (half of one CPU); past that it runs at its nice
 * value until the window ends. Measured on 2 CPUs with a 500-thread program:
 * 1 to 11 ms per window with a client polling every 10 ms, 20 to 45 ms with
 * one polling every 5 ms (each wait walks /proc over every thread). */
#define PRIO_WINDOW_NS 100000000u
#define PRIO_RT_BUDGET_NS 50000000u

struct prio {
	struct ev_loop *loop;
	int rt;		    /* SCHED_FIFO could be set at all */
	int rt_now;	    /* and is set now (not over the budget) */
	uint64_t window_ns; /* CLOCK_MONOTONIC at the window's start */
	uint64_t cpu_ns;    /* proctord's CPU time at the window's start */
	uint64_t read_ns;   /* CLOCK_MONOTONIC when that CPU time was last read */
	uint64_t used_ns;   /* the CPU time used in the window then */
	ev_check check;
	ev_timer restore;
};

/* Whether prio_raise would get SCHED_FIFO (CAP_SYS_NICE or RLIMIT_RTPRIO),
 * without changing anything: for --check. */
int prio_rt_permitted(void);
/* Whether the kernel grants proctord SCHED_FIFO now, privilege and
 * real-time group scheduling (a cgroup's cpu.rt_runtime_us) included: tried,
 * then undone. 0, or the errno of the refusal. */
int prio_rt_probe(void);
/* Lower proctord's nice value by 10 from nice_value (where permitted), then
 * make it SCHED_FIFO 1 with SCHED_RESET_ON_FORK (so no child inherits it),
 * budgeted in loop. Returns 1 if real-time, 0 if only the nice value. */
int prio_raise(struct prio *p, struct ev_loop *loop, int nice_value);
/* Back to the nice value for good: no deadline is left to keep (the
 * program ended or is being killed; reaping a process of many threads
 * costs proctord up to a second in the kernel, not to be spent real-time). */
void prio_lower(struct prio *p);

#endif
