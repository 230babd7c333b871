// SPDX-License-Identifier: ISC
// CPU spinner for the CPU-limit overshoot benchmark: burns CPU in N threads until killed.

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// volatile so the compiler cannot prove the loop useless and drop it.
static volatile unsigned long spin_sink;

static void *spin_thread(void *arg)
{
	(void)arg;
	for (;;)
		spin_sink++;
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = 1;

	if (argc > 2) {
		fprintf(stderr, "usage: spin [THREADS]\n");
		return 2;
	}
	if (argc == 2) {
		char *end;

		errno = 0;
		threads = strtol(argv[1], &end, 10);
		if (errno || *end || threads < 1 || threads > 256) {
			fprintf(stderr, "spin: bad thread count '%s'\n", argv[1]);
			return 2;
		}
	}
	// The main thread spins too, so THREADS threads burn CPU in all.
	for (long i = 1; i < threads; i++) {
		pthread_t t;
		int err = pthread_create(&t, NULL, spin_thread, NULL);

		if (err) {
			fprintf(stderr, "spin: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	spin_thread(NULL);
	return 0;
}
