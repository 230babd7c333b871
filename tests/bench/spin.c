// SPDX-License-Identifier: ISC
// CPU spinner for the limit overshoot benchmarks: burns CPU in N threads until killed.
//
// usage: spin [THREADS [stamp]]   With "stamp", first prints "PID NS" on stdout:
// its pid and CLOCK_MONOTONIC in ns, the moment the program started.

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

	if (argc > 3 || (argc == 3 && strcmp(argv[2], "stamp") != 0)) {
		fprintf(stderr, "usage: spin [THREADS [stamp]]\n");
		return 2;
	}
	if (argc == 3) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("%ld %lld\n", (long)getpid(),
		       (long long)ts.tv_sec * 1000000000 + ts.tv_nsec);
		if (fflush(stdout) != 0)
			return 1;
	}
	if (argc >= 2) {
		char *end;

		errno = 0;
		threads = strtol(argv[1], &end, 10);
		if (errno || *end || threads < 1 || threads > 1000) {
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
