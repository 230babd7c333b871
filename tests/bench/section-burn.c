// SPDX-License-Identifier: ISC
// Burns CPU on command and says how much it used by its own getrusage, for the section benchmark.
//
// usage: section-burn IN OUT     (two FIFOs the benchmark holds open)
// Writes "ready US" to OUT, then for each line "MS" read from IN burns MS
// milliseconds of CPU and writes its getrusage(RUSAGE_SELF) user + system
// total in µs; blocks in read(2) between commands, so it uses no CPU while
// the benchmark takes proctord's readings. Ends at EOF on IN.

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

// The loop's result goes here, so the compiler cannot drop the loop.
static volatile uint64_t burn_sink;

static long long burn_rusage_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0) {
		perror("section-burn: getrusage");
		exit(1);
	}
	return (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec +
	       (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
}

static long long burn_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	char line[64];
	FILE *in, *out;

	if (argc != 3) {
		fprintf(stderr, "usage: section-burn IN OUT\n");
		return 2;
	}
	in = fopen(argv[1], "re");
	out = in ? fopen(argv[2], "we") : NULL;
	if (!in || !out) {
		fprintf(stderr, "section-burn: %s: %s\n", in ? argv[2] : argv[1], strerror(errno));
		return 1;
	}
	fprintf(out, "ready %lld\n", burn_rusage_us());
	fflush(out);
	while (fgets(line, sizeof line, in)) {
		char *end;
		long ms = strtol(line, &end, 10);
		long long stop;

		if (end == line || ms < 0 || ms > 60000) {
			fprintf(stderr, "section-burn: bad command \"%s\"\n", line);
			return 1;
		}
		stop = burn_cpu_ns() + (long long)ms * 1000000;
		while (burn_cpu_ns() < stop)
			for (int i = 0; i < 1000; i++)
				burn_sink += (uint64_t)i * 2654435761u;
		fprintf(out, "%lld\n", burn_rusage_us());
		if (fflush(out) != 0)
			return 1;
	}
	return 0;
}
