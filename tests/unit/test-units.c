// SPDX-License-Identifier: ISC
// Unit tests for the duration, size and count parsers and formatters.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "units.h"

static uint64_t dur_ok(const char *s)
{
	uint64_t v = 0;
	const char *err = units_parse_duration(s, 1, &v);

	if (err)
		fail_msg("duration \"%s\" rejected: %s", s, err);
	return v;
}

static uint64_t size_ok(const char *s)
{
	uint64_t v = 0;
	const char *err = units_parse_size(s, 1, &v);

	if (err)
		fail_msg("size \"%s\" rejected: %s", s, err);
	return v;
}

static void durations_accept_units_and_fractions(void **state)
{
	assert_int_equal(dur_ok("2"), 2000000);
	assert_int_equal(dur_ok("1.5s"), 1500000);
	assert_int_equal(dur_ok("250ms"), 250000);
	assert_int_equal(dur_ok("0.5ms"), 500);
	assert_int_equal(dur_ok("10us"), 10);
	assert_int_equal(dur_ok("2m"), 120000000);
	assert_int_equal(dur_ok("1h"), 3600000000u);
	assert_int_equal(dur_ok("1.25 s"), 1250000);
	assert_int_equal(dur_ok(" 3s "), 3000000);
	assert_int_equal(dur_ok("0"), 0);
	assert_int_equal(dur_ok(".5s"), 500000);
	assert_int_equal(dur_ok("1.0000000001s"), 1000000);
	assert_true(dur_ok("unlimited") == UNITS_UNLIMITED);
}

static void durations_reject_junk(void **state)
{
	const char *bad[] = {"", " ", "s", "-1s", "+1s", "1.s", "1x", "1 s s", "5parsecs",
			     "1e3", "0x10", "1..2s", "99999999999999999999s", "abc", NULL};
	uint64_t v;

	for (int i = 0; bad[i]; i++)
		if (!units_parse_duration(bad[i], 1, &v))
			fail_msg("duration \"%s\" accepted", bad[i]);
	assert_non_null(units_parse_duration("unlimited", 0, &v));
	assert_non_null(units_parse_duration(NULL, 1, &v));
	/* Beyond 31 years (the timers count in ns). */
	assert_non_null(units_parse_duration("18446744073709552us", 1, &v));
	assert_non_null(units_parse_duration("32y", 1, &v));
	assert_non_null(units_parse_duration("300000h", 1, &v));
	assert_null(units_parse_duration("8760h", 1, &v));
	/* 2^64 µs overflows on the multiplication by 1e6. */
	assert_non_null(units_parse_duration("18446744073710s", 1, &v));
}

static void sizes_accept_binary_units(void **state)
{
	assert_int_equal(size_ok("100B"), 100);
	assert_int_equal(size_ok("1K"), 1024);
	assert_int_equal(size_ok("1k"), 1024);
	assert_int_equal(size_ok("1KiB"), 1024);
	assert_int_equal(size_ok("256MiB"), 256u << 20);
	assert_int_equal(size_ok("256m"), 256u << 20);
	assert_int_equal(size_ok("16GiB"), 16ull << 30);
	assert_int_equal(size_ok("12 GiB"), 12ull << 30);
	assert_int_equal(size_ok("1.5GiB"), 3ull << 29);
	assert_int_equal(size_ok("1TiB"), 1ull << 40);
	assert_int_equal(size_ok("0.5K"), 512);
	assert_true(size_ok("UNLIMITED") == UNITS_UNLIMITED);
	/* 0 is 0 in any unit: it alone may be bare. */
	assert_int_equal(size_ok("0"), 0);
	assert_int_equal(size_ok(" 0 "), 0);
	assert_int_equal(size_ok("0.0"), 0);
}

/* isolate counts KiB, proctord once counted bytes: a bare 1048576 was 1 MiB
 * for one and 1 GiB for the other. It is refused, with the units named. */
static void a_bare_size_needs_its_unit(void **state)
{
	const char *bare[] = {"1", "100", "1048576", " 262144 ", "1.5", "0.1", NULL};
	uint64_t v = 7;

	for (int i = 0; bare[i]; i++) {
		const char *err = units_parse_size(bare[i], 1, &v);

		if (!err || !strstr(err, "needs its unit") || !strstr(err, "KiB (isolate's unit)"))
			fail_msg("bare size \"%s\": %s", bare[i], err ? err : "accepted");
	}
	assert_int_equal(v, 7);
}

/* "256mb": 256 MiB to Docker, 256 * 10^6 bytes to SI. Refused in any case. */
static void decimal_size_units_are_refused(void **state)
{
	const char *dec[] = {"1KB", "1kb", "1kB", "256mb", "2MB", "1GB", "1 gb", "1TB", "1.5Gb",
			     NULL};
	uint64_t v = 7;

	for (int i = 0; dec[i]; i++) {
		const char *err = units_parse_size(dec[i], 1, &v);

		if (!err || !strstr(err, "Docker"))
			fail_msg("size \"%s\": %s", dec[i], err ? err : "accepted");
	}
	assert_int_equal(v, 7);
}

static void sizes_reject_junk_and_overflow(void **state)
{
	const char *bad[] = {"", "B", "-1", "1Q", "1 Mi", "1Mb b", "1.5.5G", "twelve",
			     "20000000TiB", "18446744073709551616", NULL};
	uint64_t v;

	for (int i = 0; bad[i]; i++)
		if (!units_parse_size(bad[i], 1, &v))
			fail_msg("size \"%s\" accepted", bad[i]);
}

static void counts_are_whole_numbers(void **state)
{
	uint64_t v;

	assert_null(units_parse_count("64", 0, &v));
	assert_int_equal(v, 64);
	assert_null(units_parse_count("0", 0, &v));
	assert_int_equal(v, 0);
	assert_null(units_parse_count("unlimited", 1, &v));
	assert_true(v == UNITS_UNLIMITED);
	assert_non_null(units_parse_count("1.5", 0, &v));
	assert_non_null(units_parse_count("-3", 0, &v));
	assert_non_null(units_parse_count("12k", 0, &v));
	assert_non_null(units_parse_count("", 0, &v));
	assert_non_null(units_parse_count("99999999999999999999999", 0, &v));
}

static void cpu_shares_take_cpus_or_percent(void **state)
{
	uint64_t v;

	assert_null(units_parse_cpus("1.5", 1, &v));
	assert_int_equal(v, 1500);
	assert_null(units_parse_cpus("150%", 1, &v));
	assert_int_equal(v, 1500);
	assert_null(units_parse_cpus("0.25", 1, &v));
	assert_int_equal(v, 250);
	assert_null(units_parse_cpus("unlimited", 1, &v));
	assert_true(v == UNITS_UNLIMITED);
	assert_non_null(units_parse_cpus("0", 1, &v));
	assert_non_null(units_parse_cpus("0%", 1, &v));
	assert_non_null(units_parse_cpus("-1", 1, &v));
	assert_non_null(units_parse_cpus("2 cores", 1, &v));
	assert_non_null(units_parse_cpus("", 1, &v));
}

/* The CPU list of --cpuset, as the kernel writes one; its canonical form
 * reads back to the same set. */
static void cpu_lists_take_numbers_and_ranges(void **state)
{
	struct units_cpuset set;
	char buf[64];

	assert_null(units_parse_cpuset("0", &set));
	assert_true(units_cpuset_has(&set, 0));
	assert_false(units_cpuset_has(&set, 1));
	assert_null(units_parse_cpuset("1-3", &set));
	assert_false(units_cpuset_has(&set, 0));
	assert_true(units_cpuset_has(&set, 1) && units_cpuset_has(&set, 2) &&
		    units_cpuset_has(&set, 3));
	assert_false(units_cpuset_has(&set, 4));
	assert_null(units_parse_cpuset("0,2", &set));
	assert_true(units_cpuset_has(&set, 0) && units_cpuset_has(&set, 2));
	assert_false(units_cpuset_has(&set, 1));
	units_format_cpuset(&set, buf, sizeof buf);
	assert_string_equal(buf, "0,2");
	/* Overlaps and out of order are fine; the form is canonical. */
	assert_null(units_parse_cpuset("5,0-2,1,3,7-8,63-64", &set));
	units_format_cpuset(&set, buf, sizeof buf);
	assert_string_equal(buf, "0-3,5,7-8,63-64");
	assert_null(units_parse_cpuset("1023", &set));
	assert_true(units_cpuset_has(&set, 1023));
	units_format_cpuset(&set, buf, sizeof buf);
	assert_string_equal(buf, "1023");
	assert_false(units_cpuset_empty(&set));
	memset(&set, 0, sizeof set);
	assert_true(units_cpuset_empty(&set));
	units_format_cpuset(&set, buf, sizeof buf);
	assert_string_equal(buf, "");
}

static void cpu_lists_reject_junk(void **state)
{
	static const char *const bad[] = {
		"", ",", "0,", ",0", "0,,1", "a", "0-", "-1", "3-1", "1-2-3", " 0", "0 ",
		"0;1", "+1", "1024", "0-1024", "99999999999999999999", "0x1", "1.5", NULL,
	};
	struct units_cpuset set;

	memset(&set, 0, sizeof set);
	units_cpuset_add(&set, 7);
	for (size_t i = 0; bad[i]; i++) {
		if (!units_parse_cpuset(bad[i], &set))
			fail_msg("CPU list \"%s\" accepted", bad[i]);
		/* A refused list leaves the set as it was. */
		assert_true(units_cpuset_has(&set, 7));
	}
	assert_non_null(strstr(units_parse_cpuset("3-1", &set), "go up"));
	assert_non_null(strstr(units_parse_cpuset("2000", &set), "1023"));
}

static void cpu_lists_too_long_for_the_buffer_are_marked_cut(void **state)
{
	struct units_cpuset set;
	char buf[12];

	assert_null(units_parse_cpuset("0,2,4,6,8,10,12,14", &set));
	units_format_cpuset(&set, buf, sizeof buf);
	assert_string_equal(buf, "0,2,4,6,...");
	units_format_cpuset(&set, buf, 9);
	assert_string_equal(buf, "0,2,...");
	assert_null(units_parse_cpuset("100-200", &set));
	units_format_cpuset(&set, buf, 6);
	assert_string_equal(buf, "...");
}

/* Every accepted value stays clear of overflow where it is converted: CPUs
 * to a quota of 100 µs per thousandth, durations to nanoseconds. */
static void limits_whose_arithmetic_overflows_are_refused(void **state)
{
	uint64_t v;

	/* 184467440737095517 * 100 wrapped to 1000 µs before. */
	assert_non_null(units_parse_cpus("184467440737095.517", 1, &v));
	assert_non_null(units_parse_cpus("65536.001", 1, &v));
	assert_non_null(units_parse_cpus("6553601%", 1, &v));
	assert_null(units_parse_cpus("6553600%", 1, &v));
	assert_null(units_parse_cpus("65536", 1, &v));
	assert_true(v == UNITS_CPUS_MAX_MILLI);
	assert_true(v * 100u / 100u == v && v * 100u < (1ull << 44));
	/* The longest duration, in ns, with the 1000 of the timers. */
	assert_null(units_parse_duration("1000000000000000us", 1, &v));
	assert_true(v * 1000u / 1000u == v);
	assert_non_null(units_parse_duration("1000000000000001us", 1, &v));
	/* Sizes stay in bytes: up to 2^64 - 2, the largest that is not
	 * "unlimited". */
	assert_null(units_parse_size("18446744073709551614B", 1, &v));
	assert_true(v == UINT64_MAX - 1);
	assert_non_null(units_parse_size("18446744073709551615B", 1, &v));
	assert_non_null(units_parse_size("16777216T", 1, &v));
}

static void formatting_reads_back(void **state)
{
	char buf[32];

	units_format_duration(1000000, buf, sizeof buf);
	assert_string_equal(buf, "1.000s");
	units_format_duration(2500000, buf, sizeof buf);
	assert_string_equal(buf, "2.500s");
	units_format_duration(50000, buf, sizeof buf);
	assert_string_equal(buf, "50ms");
	units_format_duration(1500, buf, sizeof buf);
	assert_string_equal(buf, "1500us");
	units_format_size(256u << 20, buf, sizeof buf);
	assert_string_equal(buf, "256MiB");
	units_format_size(10u << 20, buf, sizeof buf);
	assert_string_equal(buf, "10MiB");
	/* A decimal size is written in bytes: KB..TB do not read back. */
	units_format_size(1000000, buf, sizeof buf);
	assert_string_equal(buf, "1000000B");
	units_format_size(1500, buf, sizeof buf);
	assert_string_equal(buf, "1.46KiB");
	units_format_size(100, buf, sizeof buf);
	assert_string_equal(buf, "100B");
	units_format_size(UNITS_UNLIMITED, buf, sizeof buf);
	assert_string_equal(buf, "unlimited");
}

/* Found by fuzz-units: rounded to nearest, the largest sizes printed as
 * 2^64 bytes, which does not read back. */
static void formatted_sizes_round_down_and_read_back(void **state)
{
	char buf[32];
	uint64_t v;

	units_format_size(18446744073709184615u, buf, sizeof buf);
	assert_string_equal(buf, "16777215.99TiB");
	assert_null(units_parse_size(buf, 0, &v));
	assert_true(v <= 18446744073709184615u);
	units_format_size((1u << 20) - 1, buf, sizeof buf);
	assert_string_equal(buf, "1023.99KiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations_accept_units_and_fractions),
		cmocka_unit_test(durations_reject_junk),
		cmocka_unit_test(sizes_accept_binary_units),
		cmocka_unit_test(a_bare_size_needs_its_unit),
		cmocka_unit_test(decimal_size_units_are_refused),
		cmocka_unit_test(sizes_reject_junk_and_overflow),
		cmocka_unit_test(counts_are_whole_numbers),
		cmocka_unit_test(cpu_shares_take_cpus_or_percent),
		cmocka_unit_test(cpu_lists_take_numbers_and_ranges),
		cmocka_unit_test(cpu_lists_reject_junk),
		cmocka_unit_test(cpu_lists_too_long_for_the_buffer_are_marked_cut),
		cmocka_unit_test(limits_whose_arithmetic_overflows_are_refused),
		cmocka_unit_test(formatting_reads_back),
		cmocka_unit_test(formatted_sizes_round_down_and_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
