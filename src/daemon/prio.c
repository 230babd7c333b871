// SPDX-License-Identifier: ISC
// proctord's own scheduling: ahead of the program it supervises, within a CPU budget.
//
// A CPU-time deadline is only as punctual as proctord's wake-up. At nice -10,
// proctord is one weight among the program's threads: 500 spinning threads
// on 2 CPUs delayed its timer by tens of milliseconds to a second. A
// real-time task preempts every normal one at once, so where it may,
// proctord is SCHED_FIFO at the lowest priority. It sleeps unless a timer,
// the program or a client wakes it; a client (or the program itself) that
// floods the FIFOs could keep it busy, so the loop meters its own CPU time
// and drops to its nice value for the rest of a window once it has used its
// budget there.
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgdiscover.h"
#include "log.h"
#include "prio.h"

static uint64_t prio_clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int prio_set(int rt)
{
	struct sched_param sp = {.sched_priority = rt ? sched_get_priority_min(SCHED_FIFO) : 0};

	return sched_setscheduler(0, (rt ? SCHED_FIFO : SCHED_OTHER) | SCHED_RESET_ON_FORK, &sp);
}

static void prio_new_window(struct prio *p)
{
	p->window_ns = p->read_ns = prio_clock_ns(CLOCK_MONOTONIC);
	p->cpu_ns = prio_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	p->used_ns = 0;
}

static void prio_restore_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct prio *p = w->data;

	if (prio_set(1) == 0)
		p->rt_now = 1;
	prio_new_window(p);
}

/* Back to the nice value for wait_ns, then real-time again (a new window). */
static void prio_drop(struct prio *p, struct ev_loop *loop, uint64_t wait_ns)
{
	if (prio_set(0) < 0)
		return;
	p->rt_now = 0;
	ev_timer_set(&p->restore, (double)wait_ns / 1e9, 0.);
	ev_timer_start(loop, &p->restore);
}

/* After every loop iteration: over the budget, back to the nice value until
 * the window ends. An iteration longer than a window (a wait that walks a
 * tree of thousands of processes) is metered too: past the budget's share of
 * the time it took, real-time comes back only once that share holds again
 * (used / (elapsed + wait) = budget / window). */
static void prio_check_cb(struct ev_loop *loop, ev_check *w, int revents)
{
	struct prio *p = w->data;
	uint64_t now, used, elapsed;

	if (!p->rt_now)
		return;
	now = prio_clock_ns(CLOCK_MONOTONIC);
	elapsed = now - p->window_ns;
	/* A thread uses no more CPU time than the time that passes: while what
	 * it had used at the last reading plus the time since stays under the
	 * budget, the CPU clock (a system call, where the monotonic clock is
	 * not) need not be read. */
	if (elapsed < PRIO_WINDOW_NS && p->used_ns + (now - p->read_ns) < PRIO_RT_BUDGET_NS)
		return;
	used = prio_clock_ns(CLOCK_THREAD_CPUTIME_ID) - p->cpu_ns;
	p->used_ns = used;
	p->read_ns = now;
	if (elapsed >= PRIO_WINDOW_NS) {
		uint64_t fair = used / PRIO_RT_BUDGET_NS * PRIO_WINDOW_NS +
				used % PRIO_RT_BUDGET_NS * PRIO_WINDOW_NS / PRIO_RT_BUDGET_NS;

		if (fair > elapsed)
			prio_drop(p, loop, fair - elapsed);
		else
			prio_new_window(p);
		return;
	}
	if (used >= PRIO_RT_BUDGET_NS)
		prio_drop(p, loop, PRIO_WINDOW_NS - elapsed);
}

/* Whether proctord is in the initial user namespace. */
static int prio_initial_userns(void)
{
	char buf[256];
	int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 1; /* no /proc: assume the usual case */
	buf[n] = '\0';
	return cgd_uidmap_initial(buf);
}

int prio_rt_permitted(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	struct rlimit rl;

	if (getrlimit(RLIMIT_RTPRIO, &rl) == 0 && rl.rlim_cur >= 1)
		return 1;
	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) < 0)
		return 0;
	if (!((d[CAP_SYS_NICE / 32].effective >> (CAP_SYS_NICE % 32)) & 1u))
		return 0;
	/* The kernel wants CAP_SYS_NICE in the initial user namespace: a
	 * container's or unshare's root has it only in its own. */
	return prio_initial_userns();
}

int prio_rt_probe(void)
{
	struct sched_param none = {.sched_priority = 0};
	int policy = sched_getscheduler(0);

	if (policy < 0)
		return errno;
	if ((policy & ~SCHED_RESET_ON_FORK) == SCHED_FIFO ||
	    (policy & ~SCHED_RESET_ON_FORK) == SCHED_RR)
		return 0;
	if (prio_set(1) < 0)
		return errno;
	/* Back to the policy proctord had (a normal one: priority 0). */
	if (sched_setscheduler(0, policy, &none) < 0)
		log_warn("sched_setscheduler back to policy %d", policy);
	return 0;
}

int prio_raise(struct prio *p, struct ev_loop *loop, int nice_value)
{
	int want = nice_value - 10 < -20 ? -20 : nice_value - 10;

	p->loop = loop;
	p->rt = p->rt_now = 0;
	if (setpriority(PRIO_PROCESS, 0, want) < 0 && errno != EACCES && errno != EPERM)
		log_warn("setpriority");
	/* EPERM without the privilege, and also where real-time group
	 * scheduling gives proctord's cgroup no real-time runtime. */
	if (prio_set(1) < 0) {
		if (errno != EPERM)
			log_warn("sched_setscheduler SCHED_FIFO");
		return 0;
	}
	p->rt = p->rt_now = 1;
	prio_new_window(p);
	ev_check_init(&p->check, prio_check_cb);
	ev_init(&p->restore, prio_restore_cb);
	p->check.data = p->restore.data = p;
	ev_check_start(loop, &p->check);
	return 1;
}

void prio_lower(struct prio *p)
{
	if (!p->rt)
		return;
	ev_check_stop(p->loop, &p->check);
	ev_timer_stop(p->loop, &p->restore);
	if (p->rt_now && prio_set(0) < 0)
		log_warn("sched_setscheduler SCHED_OTHER");
	p->rt = p->rt_now = 0;
}
