// SPDX-License-Identifier: ISC
// Fuzz target: the parsers of durations, sizes, CPU shares, counts and CPU lists, and their
// formatters.
#include <string.h>

#include "fuzz.h"
#include "units.h"

#define FUZZ_UNITS_MAX 256

static void fuzz_duration(const char *s, int unlimited)
{
	uint64_t v, back;
	char buf[64];

	if (units_parse_duration(s, unlimited, &v))
		return;
	FUZZ_CHECK(unlimited || v != UNITS_UNLIMITED);
	units_format_duration(v, buf, sizeof buf);
	/* What --check prints is accepted back, within its millisecond
	 * rounding (whole seconds are printed with three decimals). */
	FUZZ_CHECK(units_parse_duration(buf, 1, &back) == NULL);
	FUZZ_CHECK(back <= v && v - back < 1000);
}

static void fuzz_size(const char *s, int unlimited)
{
	uint64_t v, back;
	char buf[64];

	if (units_parse_size(s, unlimited, &v))
		return;
	FUZZ_CHECK(unlimited || v != UNITS_UNLIMITED);
	units_format_size(v, buf, sizeof buf);
	FUZZ_CHECK(units_parse_size(buf, 1, &back) == NULL);
	/* Exact, or two decimals of the largest binary unit below it, rounded
	 * down: short by less than a hundredth of that unit, and by the byte
	 * the parser drops when it rounds the fraction down in turn. */
	if (v != UNITS_UNLIMITED && back != v) {
		uint64_t unit = 1;

		while (unit < (1ull << 40) && v / 1024 >= unit)
			unit *= 1024;
		FUZZ_CHECK(back < v && v - back <= unit / 100 + 1);
	}
}

static void fuzz_cpus(const char *s, int unlimited)
{
	uint64_t v, back;
	char buf[64];

	if (units_parse_cpus(s, unlimited, &v))
		return;
	FUZZ_CHECK(v > 0);
	units_format_cpus(v, buf, sizeof buf);
	FUZZ_CHECK(units_parse_cpus(buf, 1, &back) == NULL);
	FUZZ_CHECK(back == v);
}

static void fuzz_count(const char *s, int unlimited)
{
	uint64_t v;

	if (units_parse_count(s, unlimited, &v))
		return;
	FUZZ_CHECK(unlimited || v != UNITS_UNLIMITED);
}

/* A CPU list: its canonical form reads back to the same set, and a list
 * refused leaves the set alone. */
static void fuzz_cpuset(const char *s)
{
	struct units_cpuset v, back, kept;
	char buf[4 * UNITS_CPUSET_MAX];

	memset(&kept, 0xa5, sizeof kept);
	v = kept;
	if (units_parse_cpuset(s, &v)) {
		FUZZ_CHECK(memcmp(&v, &kept, sizeof v) == 0);
		return;
	}
	FUZZ_CHECK(!units_cpuset_empty(&v));
	units_format_cpuset(&v, buf, sizeof buf);
	FUZZ_CHECK(units_parse_cpuset(buf, &back) == NULL);
	FUZZ_CHECK(memcmp(&v, &back, sizeof v) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[FUZZ_UNITS_MAX + 1];

	/* The parsers take C strings: whatever follows a NUL is invisible. */
	if (size > FUZZ_UNITS_MAX)
		size = FUZZ_UNITS_MAX;
	memcpy(s, data, size);
	s[size] = '\0';
	for (int unlimited = 0; unlimited < 2; unlimited++) {
		fuzz_duration(s, unlimited);
		fuzz_size(s, unlimited);
		fuzz_cpus(s, unlimited);
		fuzz_count(s, unlimited);
	}
	fuzz_cpuset(s);
	return 0;
}
