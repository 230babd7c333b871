// SPDX-License-Identifier: ISC
// What the fuzz targets share: the libFuzzer entry point and a check that aborts.
#ifndef PROCTOR_FUZZ_H
#define PROCTOR_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant of the code under test, checked in every build (assert() would
 * vanish under NDEBUG): a violation aborts, which libFuzzer and the replay
 * driver report as a crash with the input that caused it. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__,     \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
