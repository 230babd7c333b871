// SPDX-License-Identifier: ISC
// CPU time and resident memory of the sandboxed tree, from /proc and rusage.
#ifndef PROCTOR_MEASURE_H
#define PROCTOR_MEASURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "procwalk.h"

struct measure_proc {
	pid_t pid;
	pid_t ppid;
	unsigned long long starttime; /* tells a reused pid from the process we knew */
	uint64_t own_ns;    /* the process's own CPU clock, last seen */
	/* CPU of the children it reaped itself, two lower bounds of one
	 * figure, of which the larger counts (never their sum): */
	uint64_t credited_ns; /* what we saw of them before they vanished */
	uint64_t ticks_ns;    /* its cutime + cstime, in clock ticks */
	uint64_t rss;       /* resident bytes in the current sample */
	int seen;           /* present in the current sample */
	/* /proc files kept open between samples: a wait costs a few preads,
	 * not a directory walk. -1 when not (yet) open. */
	int stat_fd, statm_fd, children_fd;
};

struct cgroup;

struct measure {
	pid_t root;
	/* The PID namespace's init (0 if none): a copy of proctord, whose
	 * resident memory is not the program's (it counts only while the
	 * init has no child). Its CPU counts (it reaps the orphans: their
	 * rusage reaches proctord through it). */
	pid_t init_pid;
	struct cgroup *cg;           /* the figures it serves come from it; NULL */                  /* proctord itself: the tree is below it */
	struct measure_proc *procs;  /* sorted by pid */
	size_t n, cap;
	uint64_t reaped_ns;          /* exact: rusage of every process proctord reaped */
	uint64_t reaped_user_ns, reaped_sys_ns;
	uint64_t peak_bytes;         /* largest resident figure seen (samples, ru_maxrss) */
	uint64_t reaped_maxrss;      /* largest ru_maxrss of a reaped process, bytes */
	uint64_t reaped_nvcsw, reaped_nivcsw; /* context switches of the reaped ones */
	uint64_t last_cpu_us;        /* what was last reported: line 1 never decreases */
	/* The CPU time of the set-up before the program's execve, left out of
	 * every figure (measure_setup_known): pending until the init says it
	 * (the figure is 0 until then: the program has not started). */
	int setup_pending;
	uint64_t setup_cg_ns, setup_all_ns; /* what the cgroup counted of it; all of it */
	uint64_t tick_ns;
	uint64_t page_size;
	struct procwalk walk;        /* the tree below root, in /proc */
	char *cbuf;                  /* scratch for children files */
	size_t cbuf_cap;
	size_t open_fds;             /* descriptors held in procs[] */
	int cpu_from_cg;             /* the current sample's CPU is the cgroup's: the
				      * walk does not read the processes' CPU clocks
				      * (their own_ns lag; the cgroup's figure holds
				      * them, and a failing cgroup read falls back to
				      * the lower bound they are) */
};

void measure_init(struct measure *m, pid_t root, struct cgroup *cg);
/* The same on a /proc tree at another place (the unit tests' fixtures). */
void measure_init_at(struct measure *m, pid_t root, struct cgroup *cg, const char *proc);
void measure_free(struct measure *m);

/* Figures of the tree now: CPU µs since start (monotonic) and resident bytes
 * of the live processes. It updates the measurement's own records (the
 * live processes, the monotonic floor, the peak), never the supervisor's
 * state: an answer composed with it changes no verdict. */
void measure_sample(struct measure *m, uint64_t *cpu_us, uint64_t *rss_bytes);

/* The set-up's CPU time, from the init (struct spawn_baseline): known 0
 * when none came, then nothing is left out. */
void measure_setup_known(struct measure *m, int known, uint64_t cg_ns, uint64_t all_ns);
/* A CPU figure of the tree (us, from the cgroup or not) without the
 * set-up's; settled: the tree is gone, and a set-up never reported (it
 * failed before the program was ready) counts whole. */
uint64_t measure_program_us(const struct measure *m, uint64_t us, int from_cg, int settled);
/* The same for the report's split: the set-up is taken from the system
 * time first (it is system calls and page faults), then from the user
 * time, so that the two still add up to the CPU figure. */
void measure_program_split(const struct measure *m, uint64_t *user_us, uint64_t *sys_us,
			   int from_cg);

/* proctord reaped pid with this rusage (its own CPU and that of every
 * descendant it waited for). */
void measure_reaped(struct measure *m, pid_t pid, const struct rusage *ru);

/* CPU µs counted so far without sampling /proc; exact once the tree is gone. */
uint64_t measure_cpu_us_settled(struct measure *m);

#endif
