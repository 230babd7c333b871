// SPDX-License-Identifier: ISC
// A judge's solution in every way it can end, for proctor-isolate's tests
// (tests/blackbox/isolate.sh).
//
// usage: isoprog sum | segv | exit N | loop | sleep | alloc MIB | burn MS
// sum: read two integers, print their sum; segv: die of SIGSEGV; exit N:
// exit N; loop: spin on the CPU for ever; sleep: sleep for ever; alloc:
// touch MIB MiB; burn: spin MS ms of CPU time, then exit 0.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	volatile unsigned long spin = 0;

	if (strcmp(cmd, "sum") == 0) {
		long a, b;

		if (scanf("%ld %ld", &a, &b) != 2)
			return 3;
		printf("%ld\n", a + b);
		return 0;
	}
	if (strcmp(cmd, "segv") == 0)
		raise(SIGSEGV);
	if (strcmp(cmd, "exit") == 0 && argc == 3)
		return atoi(argv[2]);
	if (strcmp(cmd, "loop") == 0)
		for (;;)
			spin++;
	if (strcmp(cmd, "sleep") == 0)
		for (;;)
			pause();
	if (strcmp(cmd, "alloc") == 0 && argc == 3) {
		size_t n = (size_t)atol(argv[2]) << 20;
		volatile char *p = malloc(n);

		if (!p)
			return 4;
		for (size_t i = 0; i < n; i += 4096)
			p[i] = 1;
		free((char *)p);
		return 0;
	}
	if (strcmp(cmd, "burn") == 0 && argc == 3) {
		double end = cpu_ms() + atof(argv[2]);

		while (cpu_ms() < end)
			spin++;
		return 0;
	}
	fprintf(stderr,
		"usage: isoprog sum | segv | exit N | loop | sleep | alloc MIB | burn MS\n");
	return 2;
}
