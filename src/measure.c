// SPDX-License-Identifier: ISC
// CPU time and resident memory of the sandboxed tree, from /proc and rusage.
//
// The CPU figure is the sum of three parts, each a lower bound of the truth
// that only grows, so that line 1 of a response never decreases:
//  - the exact rusage of every process proctord reaped (a reaped process's
//    rusage includes the descendants it waited for);
//  - the CPU clock of every live process (all its threads, in ns);
//  - for every live process, the CPU of children it reaped itself: the larger
//    of what we saw of them before they vanished and its cutime + cstime.
// Once the whole tree is reaped, only the first part remains, and it is exact.
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"
#include "util.h"

void measure_init(struct measure *m, pid_t root)
{
	long tck = sysconf(_SC_CLK_TCK);
	long ps = sysconf(_SC_PAGESIZE);

	memset(m, 0, sizeof *m);
	m->root = root;
	m->tick_ns = 1000000000u / (uint64_t)(tck > 0 ? tck : 100);
	m->page_size = (uint64_t)(ps > 0 ? ps : 4096);
	tree_list_init(&m->scratch);
}

void measure_free(struct measure *m)
{
	free(m->procs);
	tree_list_free(&m->scratch);
	m->procs = NULL;
	m->n = m->cap = 0;
}

static int measure_cmp_pid(const void *a, const void *b)
{
	pid_t x = ((const struct measure_proc *)a)->pid;
	pid_t y = ((const struct measure_proc *)b)->pid;

	return (x > y) - (x < y);
}

static struct measure_proc *measure_find(struct measure *m, pid_t pid)
{
	struct measure_proc key = {.pid = pid};

	return bsearch(&key, m->procs, m->n, sizeof *m->procs, measure_cmp_pid);
}

static uint64_t measure_ru_ns(const struct rusage *ru)
{
	return ((uint64_t)ru->ru_utime.tv_sec + (uint64_t)ru->ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru->ru_utime.tv_usec + (uint64_t)ru->ru_stime.tv_usec) * 1000u;
}

void measure_reaped(struct measure *m, pid_t pid, const struct rusage *ru)
{
	struct measure_proc *p = measure_find(m, pid);

	m->reaped_ns += measure_ru_ns(ru);
	if (p) {
		/* The rusage covers it and everything it reaped: forget it, so
		 * that its vanished children are not credited twice. */
		size_t i = (size_t)(p - m->procs);

		memmove(p, p + 1, (m->n - i - 1) * sizeof *p);
		m->n--;
	}
}

/* cutime + cstime of a live process, and its resident pages. */
static void measure_read_proc(struct measure *m, pid_t pid, uint64_t *children_ns,
			      uint64_t *rss_bytes)
{
	char path[64], buf[1024], *p;
	unsigned long long cut = 0, cst = 0, size = 0, resident = 0;

	*children_ns = 0;
	*rss_bytes = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (read_small_file(AT_FDCWD, path, buf, sizeof buf) > 0 && (p = strrchr(buf, ')'))) {
		/* After "comm)": state ppid pgrp session tty tpgid flags minflt
		 * cminflt majflt cmajflt utime stime cutime cstime */
		if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %llu %llu",
			   &cut, &cst) == 2)
			*children_ns = (uint64_t)(cut + cst) * m->tick_ns;
	}
	snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
	if (read_small_file(AT_FDCWD, path, buf, sizeof buf) > 0 &&
	    sscanf(buf, "%llu %llu", &size, &resident) == 2)
		*rss_bytes = (uint64_t)resident * m->page_size;
}

static int measure_own_ns(pid_t pid, uint64_t *ns)
{
	struct timespec ts;
	clockid_t clk;

	if (clock_getcpuclockid(pid, &clk) != 0 || clock_gettime(clk, &ts) != 0)
		return -1;
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return 0;
}

void measure_sample(struct measure *m, uint64_t *cpu_us, uint64_t *rss_bytes)
{
	struct measure_proc *next;
	size_t nn = 0;
	uint64_t live_ns = 0, rss = 0, total_us;

	tree_collect(m->root, &m->scratch);
	next = xcalloc(m->scratch.n + 1, sizeof *next);
	for (size_t i = 0; i < m->scratch.n; i++) {
		next[nn].pid = m->scratch.nodes[i].pid;
		next[nn].ppid = m->scratch.nodes[i].ppid;
		nn++;
	}
	qsort(next, nn, sizeof *next, measure_cmp_pid);
	/* Drop duplicates (a process re-parented during the walk). */
	if (nn > 1) {
		size_t w = 1;

		for (size_t i = 1; i < nn; i++)
			if (next[i].pid != next[w - 1].pid)
				next[w++] = next[i];
		nn = w;
	}

	/* Carry the history of processes that are still there. */
	for (size_t i = 0; i < m->n; i++)
		m->procs[i].seen = 0;
	for (size_t i = 0; i < nn; i++) {
		struct measure_proc *old = measure_find(m, next[i].pid);

		if (old) {
			next[i].own_ns = old->own_ns;
			next[i].hidden_ns = old->hidden_ns;
			old->seen = 1;
		}
	}

	/* A process that vanished without proctord reaping it was reaped by its
	 * parent in the tree: credit what we saw of it to the nearest ancestor
	 * still alive. If that chain ends in a process proctord reaped (no
	 * record left), its rusage already holds it. */
	for (size_t i = 0; i < m->n; i++) {
		struct measure_proc *gone = &m->procs[i], *anc;
		struct measure_proc key;
		pid_t up = gone->ppid;
		size_t hops = 0;

		if (gone->seen)
			continue;
		for (;;) {
			anc = measure_find(m, up);
			if (!anc || anc->seen || ++hops > m->n)
				break;
			up = anc->ppid;
		}
		if (!anc || !anc->seen)
			continue;
		key.pid = anc->pid;
		anc = bsearch(&key, next, nn, sizeof *next, measure_cmp_pid);
		if (anc)
			anc->hidden_ns += gone->own_ns + gone->hidden_ns;
	}

	for (size_t i = 0; i < nn; i++) {
		uint64_t own, children_ns, bytes;

		if (measure_own_ns(next[i].pid, &own) == 0 && own > next[i].own_ns)
			next[i].own_ns = own;
		measure_read_proc(m, next[i].pid, &children_ns, &bytes);
		if (children_ns > next[i].hidden_ns)
			next[i].hidden_ns = children_ns;
		live_ns += next[i].own_ns + next[i].hidden_ns;
		rss += bytes;
	}

	free(m->procs);
	m->procs = next;
	m->n = nn;
	m->cap = m->scratch.n + 1;

	total_us = (m->reaped_ns + live_ns) / 1000u;
	if (total_us < m->last_cpu_us)
		total_us = m->last_cpu_us;
	m->last_cpu_us = total_us;
	*cpu_us = total_us;
	*rss_bytes = rss;
}

uint64_t measure_cpu_us_settled(struct measure *m)
{
	uint64_t total_us = m->reaped_ns / 1000u;

	if (total_us < m->last_cpu_us)
		total_us = m->last_cpu_us;
	m->last_cpu_us = total_us;
	return total_us;
}
