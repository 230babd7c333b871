// SPDX-License-Identifier: ISC
// Spins on the CPU forever, in N threads (default 1), for CPU-time limit tests.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *spin_thread(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	for (;;)
		n++;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t;

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
