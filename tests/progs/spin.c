// SPDX-License-Identifier: ISC
// Spins on the CPU in N threads (default 1), for CPU-time limit tests:
// forever, or until the process has used MS ms of CPU, then exits 0.
//
// usage: spin [N [MS]]
// A budget of CPU, not of wall time, is the same work on an idle machine
// and beside CPU hogs, where a spinner gets what the scheduler leaves it.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long budget_ns; /* 0: forever */

static long long cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *spin_thread(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	for (;;) {
		n++;
		if (budget_ns > 0 && (n & 0xffffUL) == 0 && cpu_ns() >= budget_ns)
			exit(0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t;

	if (argc > 2)
		budget_ns = atoll(argv[2]) * 1000000LL;
	/* The main thread is one of the N spinners. */
	for (int i = 1; i < threads; i++) {
		if (pthread_create(&t, NULL, spin_thread, NULL) != 0) {
			fprintf(stderr, "spin: pthread_create failed\n");
			return 1;
		}
	}
	spin_thread(NULL);
	return 0;
}
