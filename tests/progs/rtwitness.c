// SPDX-License-Identifier: ISC
// A witness of the machine's own stalls, for timing checks: one thread per
// CPU it may use, each pinned there, real-time (SCHED_FIFO 1, as proctord)
// where that is granted, waking every 2 ms on an absolute timer. On SIGTERM
// it prints the worst lateness of any wake-up, in µs, and whether the
// threads were real-time (1 or 0), then exits 0.
//
// usage: rtwitness
// It ends by itself after 120 s, or when its parent dies, printing the same:
// a test killed before it stops its witness leaves nothing real-time behind.
// A CPU the machine stalls (a host that takes it away, a long stretch of
// kernel code that does not reschedule) delays proctord's deadline timer as
// much as it delays the witness there, while another CPU may go on running
// the program: a check of a kill's punctuality allows what the witness saw.
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 2000000ull
#define LIFETIME_S 120

static _Atomic uint64_t worst_ns;
static atomic_int not_rt;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *witness(void *arg)
{
	struct sched_param sp = {.sched_priority = 1};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	uint64_t next = now_ns(), expirations;

	(void)arg;
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
		atomic_store(&not_rt, 1);
	if (fd < 0) {
		perror("rtwitness: timerfd_create");
		_exit(1);
	}
	for (;;) {
		struct itimerspec its = {0};
		uint64_t t, late, w;

		next += PERIOD_NS;
		its.it_value.tv_sec = (time_t)(next / 1000000000ull);
		its.it_value.tv_nsec = (long)(next % 1000000000ull);
		if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ||
		    read(fd, &expirations, sizeof expirations) < 0) {
			perror("rtwitness: timer");
			_exit(1);
		}
		t = now_ns();
		late = t > next ? t - next : 0;
		w = atomic_load(&worst_ns);
		while (late > w && !atomic_compare_exchange_weak(&worst_ns, &w, late))
			;
		/* A stall measured once, not again by every period it spanned. */
		if (late > PERIOD_NS)
			next = t;
	}
	return NULL;
}

int main(void)
{
	pid_t parent = getppid();
	cpu_set_t allowed;
	sigset_t stop;
	int cpu, n = 0;

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	/* The threads inherit the mask: only the wait below takes the signal,
	 * also the one the parent's death sends. */
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		return 1;
	if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) {
		perror("rtwitness: sched_getaffinity");
		return 1;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		pthread_attr_t attr;
		pthread_t th;
		cpu_set_t one;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof one, &one);
		if (pthread_create(&th, &attr, witness, NULL) != 0) {
			perror("rtwitness: pthread_create");
			return 1;
		}
		pthread_attr_destroy(&attr);
		n++;
	}
	if (n == 0) {
		fprintf(stderr, "rtwitness: no CPU to run on\n");
		return 1;
	}
	{
		struct timespec lifetime = {.tv_sec = LIFETIME_S};

		(void)sigtimedwait(&stop, NULL, &lifetime);
	}
	printf("%llu %d\n", (unsigned long long)(atomic_load(&worst_ns) / 1000u), !atomic_load(&not_rt));
	fflush(stdout);
	_exit(0);
}
