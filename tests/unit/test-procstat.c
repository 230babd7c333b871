// SPDX-License-Identifier: ISC
// Unit tests for procstat_parse(), the one parser of /proc/PID/stat.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "procstat.h"

/* A whole stat line with COMM, ppid 77, cutime 16, cstime 17, 3 threads,
 * starttime 4242. */
static void line(char *buf, size_t size, const char *comm)
{
	snprintf(buf, size,
		 "1234 (%s) S 77 1234 1234 0 -1 4194560 100 200 0 0 5 6 16 17 20 0 3 0 4242 "
		 "12345678 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
		 comm);
}

static void check_full(const char *comm)
{
	struct procstat st = {0};
	char buf[1024];

	line(buf, sizeof buf, comm);
	assert_int_equal(procstat_parse(buf, &st), 2);
	assert_int_equal(st.ppid, 77);
	assert_int_equal(st.cutime, 16);
	assert_int_equal(st.cstime, 17);
	assert_int_equal(st.num_threads, 3);
	assert_int_equal(st.starttime, 4242);
}

static void test_plain(void **state)
{
	(void)state;
	check_full("sleep");
}

/* comm is free text of up to 15 bytes: a naive parse stops at its first
 * ')' or space and reads the wrong fields. */
static void test_tricky_comm(void **state)
{
	(void)state;
	check_full("a b");
	check_full(")");
	check_full("))");
	check_full(") S 1 2 3");
	check_full("x) R 999 (y");
	check_full("(");
	check_full("");
	check_full(" ");
	check_full("9 (9) 9");
}

/* Only up to ppid: the tree walk needs no more; the rest stays untouched. */
static void test_short(void **state)
{
	struct procstat st = {.cutime = 5, .num_threads = 9};

	(void)state;
	assert_int_equal(procstat_parse("12 (a) b) Z 44 1 2", &st), 1);
	assert_int_equal(st.ppid, 44);
	assert_int_equal(st.cutime, 5);
	assert_int_equal(st.num_threads, 9);
}

static void test_garbage(void **state)
{
	struct procstat st = {.ppid = 3};

	(void)state;
	assert_int_equal(procstat_parse("", &st), 0);
	assert_int_equal(procstat_parse("12 (no closing paren S 1", &st), 0);
	assert_int_equal(procstat_parse("12 (a) S", &st), 0);
	assert_int_equal(procstat_parse("12 (a) S x", &st), 0);
	assert_int_equal(st.ppid, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_tricky_comm),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
