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
//
// A sample walks the tree from proctord down (procwalk.c) and
// keeps each process's /proc files open between samples, so that a wait on a
// single-threaded program costs a handful of preads.
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "measure.h"
#include "procstat.h"
#include "procwalk.h"
#include "util.h"

/* Descriptors kept open at most; beyond, files are opened per sample. A fork
 * bomb must not exhaust proctord's own descriptors. */
#define MEASURE_MAX_OPEN_FDS 192

void measure_init(struct measure *m, pid_t root, struct cgroup *cg)
{
	measure_init_at(m, root, cg, "/proc");
}

void measure_init_at(struct measure *m, pid_t root, struct cgroup *cg, const char *proc)
{
	long tck = sysconf(_SC_CLK_TCK);
	long ps = sysconf(_SC_PAGESIZE);
	memset(m, 0, sizeof *m);
	m->root = root;
	m->cg = cg;
	m->tick_ns = 1000000000u / (uint64_t)(tck > 0 ? tck : 100);
	m->page_size = (uint64_t)(ps > 0 ? ps : 4096);
	procwalk_init(&m->walk, proc, root);
}

static void measure_close_proc(struct measure *m, struct measure_proc *p)
{
	int *fds[] = {&p->stat_fd, &p->statm_fd, &p->children_fd};

	for (size_t i = 0; i < 3; i++) {
		if (*fds[i] >= 0) {
			close(*fds[i]);
			m->open_fds--;
		}
		*fds[i] = -1;
	}
}

void measure_free(struct measure *m)
{
	for (size_t i = 0; i < m->n; i++)
		measure_close_proc(m, &m->procs[i]);
	free(m->procs);
	free(m->cbuf);
	m->cbuf = NULL;
	procwalk_free(&m->walk);
	m->procs = NULL;
	m->n = m->cap = 0;
}

static int measure_cmp_pid(const void *a, const void *b)
{
	pid_t x = ((const struct measure_proc *)a)->pid;
	pid_t y = ((const struct measure_proc *)b)->pid;

	return (x > y) - (x < y);
}

static struct measure_proc *measure_find(struct measure_proc *procs, size_t n, pid_t pid)
{
	struct measure_proc key = {.pid = pid};

	/* bsearch's base must not be NULL, even for no elements. */
	if (n == 0)
		return NULL;
	return bsearch(&key, procs, n, sizeof *procs, measure_cmp_pid);
}

static uint64_t measure_hidden_ns(const struct measure_proc *p)
{
	return p->credited_ns > p->ticks_ns ? p->credited_ns : p->ticks_ns;
}

static uint64_t measure_ru_ns(const struct rusage *ru)
{
	return ((uint64_t)ru->ru_utime.tv_sec + (uint64_t)ru->ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru->ru_utime.tv_usec + (uint64_t)ru->ru_stime.tv_usec) * 1000u;
}

void measure_reaped(struct measure *m, pid_t pid, const struct rusage *ru)
{
	struct measure_proc *p = measure_find(m->procs, m->n, pid);
	uint64_t maxrss = (uint64_t)ru->ru_maxrss * 1024u;

	m->reaped_ns += measure_ru_ns(ru);
	m->reaped_user_ns += (uint64_t)ru->ru_utime.tv_sec * 1000000000u +
			     (uint64_t)ru->ru_utime.tv_usec * 1000u;
	m->reaped_sys_ns += (uint64_t)ru->ru_stime.tv_sec * 1000000000u +
			    (uint64_t)ru->ru_stime.tv_usec * 1000u;
	/* ru_maxrss is a process's own high-water mark (kilobytes). It can
	 * carry its parent's across execve, which here is proctord's small
	 * footprint: a lower bound, never an inflation worth correcting. */
	if (maxrss > m->peak_bytes)
		m->peak_bytes = maxrss;
	/* The same figures as wait4 gives isolate (max-rss, csw-voluntary,
	 * csw-forced): a reaped process's counts hold those it reaped. */
	if (maxrss > m->reaped_maxrss)
		m->reaped_maxrss = maxrss;
	m->reaped_nvcsw += ru->ru_nvcsw > 0 ? (uint64_t)ru->ru_nvcsw : 0;
	m->reaped_nivcsw += ru->ru_nivcsw > 0 ? (uint64_t)ru->ru_nivcsw : 0;
	if (p) {
		/* The rusage covers it and everything it reaped: forget it, so
		 * that its vanished children are not credited twice. */
		size_t i = (size_t)(p - m->procs);

		measure_close_proc(m, p);
		memmove(p, p + 1, (m->n - i - 1) * sizeof *p);
		m->n--;
	}
}

/* Read a /proc file through a cached descriptor, opening it when needed:
 * into buf (len bytes) or, with buf NULL, whole into m->cbuf. A descriptor
 * of a process that has died reads ESRCH; the pid may have been reused, so
 * reopen once. */
static ssize_t measure_read(struct measure *m, int *fd, const char *path, char *buf, size_t len)
{
	ssize_t n;

	for (int attempt = 0; attempt < 2; attempt++) {
		int use = *fd;

		if (use < 0) {
			use = openat(m->walk.procfd, path, O_RDONLY | O_CLOEXEC);
			if (use < 0)
				return -1;
		}
		n = buf ? pread_small(use, buf, len)
			: procwalk_pread_children(use, &m->cbuf, &m->cbuf_cap);
		if (*fd < 0 && m->open_fds >= MEASURE_MAX_OPEN_FDS) {
			close(use); /* over the budget: not kept */
			return n;
		}
		if (n >= 0) {
			if (*fd < 0) {
				*fd = use;
				m->open_fds++;
			}
			return n;
		}
		close(use);
		if (*fd >= 0)
			m->open_fds--;
		*fd = -1;
	}
	return -1;
}

/* The records of one sample, one per node of the walk (same index). */
struct measure_walk {
	struct measure *m;
	struct measure_proc *v;
	size_t n, cap;
};

/* The kernel's id of a process's CPU clock (all its threads), as
 * clock_getcpuclockid() makes it, without its extra system call. */
static clockid_t measure_cpuclock(pid_t pid)
{
	return (clockid_t)((~(unsigned)pid << 3) | 2u);
}

/* Node k of the walk, found: bring its history (CPU seen, cached
 * descriptors) from the previous sample, and read its CPU, its reaped
 * children's CPU, its resident memory and its main thread's children. */
static long measure_visit(void *ctx, struct procwalk *walk, size_t k, const char **children)
{
	struct measure_walk *w = ctx;
	struct measure *m = w->m;
	const pid_t pid = walk->nodes[k].pid;
	struct measure_proc *p, *old = measure_find(m->procs, m->n, pid);
	char path[64], buf[1024];
	struct procstat st;
	unsigned long long resident;
	long threads = 1;
	struct timespec ts;

	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->v = xreallocarray(w->v, w->cap, sizeof *w->v);
	}
	p = &w->v[w->n++]; /* the walk visits its nodes in order: w->n == k + 1 */
	memset(p, 0, sizeof *p);
	p->pid = pid;
	p->ppid = walk->nodes[k].ppid;
	p->stat_fd = p->statm_fd = p->children_fd = -1;
	if (old) {
		if (old->seen) {
			/* Listed twice: re-parented mid-walk. */
			p->pid = -1;
			return 0;
		}
		*p = *old;
		p->ppid = walk->nodes[k].ppid;
		old->seen = 1;
		old->stat_fd = old->statm_fd = old->children_fd = -1;
	}
	p->rss = 0;
	snprintf(path, sizeof path, "%d/stat", (int)pid);
	/* The init is ours, one thread, and its pid cannot be reused while it
	 * is our child: its stat only brings CPU, which the cgroup gave. */
	if (!(m->cpu_from_cg && pid == m->init_pid) &&
	    measure_read(m, &p->stat_fd, path, buf, sizeof buf) > 0 &&
	    procstat_parse(buf, &st) == 2) {
		uint64_t ch = (uint64_t)(st.cutime + st.cstime) * m->tick_ns;

		threads = st.num_threads;
		if (p->starttime != st.starttime) {
			/* A new process behind a reused pid: nothing we
			 * knew of the old one is its own. */
			p->starttime = st.starttime;
			p->own_ns = p->credited_ns = p->ticks_ns = 0;
		}
		if (ch > p->ticks_ns)
			p->ticks_ns = ch;
	}
	/* Where the cgroup gave this sample's CPU figure, the process's own
	 * clock is not needed: a wait costs a system call less per process. */
	if (!m->cpu_from_cg && clock_gettime(measure_cpuclock(pid), &ts) == 0) {
		uint64_t own = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;

		if (own > p->own_ns)
			p->own_ns = own;
	}
	snprintf(path, sizeof path, "%d/task/%d/children", (int)pid, (int)pid);
	*children = measure_read(m, &p->children_fd, path, NULL, 0) > 0 ? m->cbuf : NULL;
	/* The init's memory does not count once it has a child (below). */
	if (pid == m->init_pid && *children)
		return threads > 1 ? threads : 1;
	snprintf(path, sizeof path, "%d/statm", (int)pid);
	if (measure_read(m, &p->statm_fd, path, buf, sizeof buf) > 0 &&
	    sscanf(buf, "%*u %llu", &resident) == 1)
		p->rss = (uint64_t)resident * m->page_size;
	return threads > 1 ? threads : 1;
}

/* The walk's records sorted by pid, each once (a thread seen twice is one
 * process). Returns how many are left. */
static size_t measure_dedup(struct measure *m, struct measure_walk *w)
{
	size_t nn = 0;

	if (w->n > 1)
		qsort(w->v, w->n, sizeof *w->v, measure_cmp_pid);
	for (size_t i = 0; i < w->n; i++) {
		if (w->v[i].pid <= 0)
			continue;
		if (nn > 0 && w->v[i].pid == w->v[nn - 1].pid) {
			measure_close_proc(m, &w->v[i]);
			continue;
		}
		w->v[nn++] = w->v[i];
	}
	return nn;
}

/* A process that vanished without proctord reaping it was reaped by its
 * parent in the tree: credit what we saw of it to the nearest ancestor
 * still alive (in the new records, live[0..n)). If that chain ends in a
 * process proctord reaped (no record left), its rusage already holds it. */
static void measure_credit_gone(struct measure *m, struct measure_proc *live, size_t n)
{
	for (size_t i = 0; i < m->n; i++) {
		struct measure_proc *gone = &m->procs[i], *anc;
		pid_t up = gone->ppid;
		size_t hops = 0;

		if (gone->seen)
			continue;
		measure_close_proc(m, gone);
		for (;;) {
			anc = measure_find(m->procs, m->n, up);
			if (!anc || anc->seen || ++hops > m->n)
				break;
			up = anc->ppid;
		}
		if (!anc || !anc->seen)
			continue;
		anc = measure_find(live, n, anc->pid);
		if (anc)
			anc->credited_ns += gone->own_ns + measure_hidden_ns(gone);
	}
}

/* The init's memory is a copy of proctord's, not the program's: it counts
 * only before the program is there (as the program's own copy before its
 * execve did), so that a running tree never reads 0. */
static void measure_drop_init(const struct measure *m, struct measure_proc *live, size_t n)
{
	for (size_t i = 0; i < n && m->init_pid > 0; i++) {
		if (live[i].ppid == m->init_pid) {
			for (size_t j = 0; j < n; j++)
				if (live[j].pid == m->init_pid)
					live[j].rss = 0;
			return;
		}
	}
}

/* Updates the measurement's own records (its table of live processes, the
 * floor that keeps CPU time monotonic, the peak), never the supervisor's
 * state. */
void measure_sample(struct measure *m, uint64_t *cpu_us, uint64_t *rss_bytes)
{
	struct measure_walk w = {.m = m};
	uint64_t live_ns = 0, rss = 0, total_us, cg_cpu = 0;
	size_t nn;
	/* The CPU of the whole tree, waited for or not, from the cgroup where
	 * there is one. Resident memory always comes from the walk: a memory
	 * cgroup's memory.stat is flushed lazily (below about 64 pages per CPU
	 * of change, only every 2 s), so a small program read 0 for seconds
	 * after its start; statm is exact at the moment it is read. */
	int cg = m->cg && cgroup_cpu(m->cg, &cg_cpu, NULL, NULL) == 0;

	m->cpu_from_cg = cg;
	for (size_t i = 0; i < m->n; i++)
		m->procs[i].seen = 0;
	procwalk_run(&m->walk, measure_visit, &w);
	nn = measure_dedup(m, &w);
	measure_credit_gone(m, w.v, nn);
	measure_drop_init(m, w.v, nn);
	for (size_t i = 0; i < nn; i++) {
		live_ns += w.v[i].own_ns + measure_hidden_ns(&w.v[i]);
		rss += w.v[i].rss;
	}
	free(m->procs);
	m->procs = w.v;
	m->n = nn;
	m->cap = w.cap;

	total_us = measure_program_us(m, cg ? cg_cpu : (m->reaped_ns + live_ns) / 1000u, cg, 0);
	if (total_us < m->last_cpu_us)
		total_us = m->last_cpu_us;
	m->last_cpu_us = total_us;
	if (rss > m->peak_bytes)
		m->peak_bytes = rss;
	*cpu_us = total_us;
	*rss_bytes = rss;
}

uint64_t measure_cpu_us_settled(struct measure *m)
{
	uint64_t total_us = m->reaped_ns / 1000u, cg_cpu;
	int cg = 0;

	/* Once the cgroup is empty, its figure is final, and it also holds
	 * what nobody waited for. */
	if (m->cg && cgroup_cpu(m->cg, &cg_cpu, NULL, NULL) == 0) {
		total_us = cg_cpu;
		cg = 1;
	}
	total_us = measure_program_us(m, total_us, cg, 1);

	if (total_us < m->last_cpu_us)
		total_us = m->last_cpu_us;
	m->last_cpu_us = total_us;
	return total_us;
}

void measure_setup_known(struct measure *m, int known, uint64_t cg_ns, uint64_t all_ns)
{
	m->setup_pending = 0;
	m->setup_cg_ns = known ? cg_ns : 0;
	m->setup_all_ns = known ? all_ns : 0;
}

/* Rounded down: what is left over is the program's, never the reverse. */
static uint64_t measure_setup_us(const struct measure *m, int from_cg)
{
	return (from_cg ? m->setup_cg_ns : m->setup_all_ns) / 1000u;
}

uint64_t measure_program_us(const struct measure *m, uint64_t us, int from_cg, int settled)
{
	uint64_t setup;

	if (m->setup_pending)
		return settled ? us : 0;
	setup = measure_setup_us(m, from_cg);
	return us > setup ? us - setup : 0;
}

void measure_program_split(const struct measure *m, uint64_t *user_us, uint64_t *sys_us,
			   int from_cg)
{
	uint64_t setup = m->setup_pending ? 0 : measure_setup_us(m, from_cg);
	uint64_t from_sys = setup < *sys_us ? setup : *sys_us;

	*sys_us -= from_sys;
	setup -= from_sys;
	*user_us -= setup < *user_us ? setup : *user_us;
}
