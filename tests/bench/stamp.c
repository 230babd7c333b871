// SPDX-License-Identifier: ISC
// Prints CLOCK_MONOTONIC in ns as the first thing it does, then exits: the end of a start-up.

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("%" PRIu64 "\n", (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	return fflush(stdout) == 0 ? 0 : 1;
}
