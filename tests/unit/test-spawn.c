// SPDX-License-Identifier: ISC
// Unit tests for spawn_plan_build and its pure parts: the program's rlimits
// as the child sets them, and the checks that keep a limit the child could
// not set from reaching it.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "spawn.h"
#include "units.h"

static void test_rlimits_default(void **state)
{
	struct spawn_rlimit rl[SPAWN_MAX_RLIMITS];
	struct limits l;

	(void)state;
	limits_init(&l);
	/* Nothing asked for: no core files, nothing else. */
	assert_int_equal(spawn_plan_rlimits(rl, &l, 0), 1);
	assert_int_equal(rl[0].resource, RLIMIT_CORE);
	assert_int_equal(rl[0].soft, 0);
	assert_int_equal(rl[0].hard, 0);
	assert_false(rl[0].userns_only);
}

static void test_rlimits_all(void **state)
{
	struct spawn_rlimit rl[SPAWN_MAX_RLIMITS];
	struct limits l;

	(void)state;
	limits_init(&l);
	l.cpu_time_us = 1500000; /* 1.5 s: 2 whole seconds, + 1 for the backstop */
	l.address_space = 1 << 26;
	l.fsize = 1 << 20;
	l.stack = 1 << 23;
	l.nofile = 64;
	assert_int_equal(spawn_plan_rlimits(rl, &l, 17), SPAWN_MAX_RLIMITS);
	/* In the order the child sets them: RLIMIT_NPROC first, in its user
	 * namespace only. */
	assert_int_equal(rl[0].resource, RLIMIT_NPROC);
	assert_int_equal(rl[0].hard, 17);
	assert_true(rl[0].userns_only);
	assert_string_equal(rl[0].key, "pids");
	assert_int_equal(rl[1].resource, RLIMIT_CORE);
	assert_int_equal(rl[2].resource, RLIMIT_CPU);
	assert_int_equal(rl[2].soft, 3);
	assert_int_equal(rl[2].hard, 4);
	assert_int_equal(rl[3].resource, RLIMIT_AS);
	assert_int_equal(rl[3].soft, 1 << 26);
	assert_int_equal(rl[4].resource, RLIMIT_FSIZE);
	assert_int_equal(rl[5].resource, RLIMIT_STACK);
	assert_int_equal(rl[6].resource, RLIMIT_NOFILE);
	assert_int_equal(rl[6].soft, 64);
	assert_int_equal(rl[6].hard, 64);
	assert_string_equal(rl[6].name, "RLIMIT_NOFILE");
	assert_false(rl[6].userns_only);
}

static void test_check(void **state)
{
	struct spawn_rlimit rl[SPAWN_MAX_RLIMITS];
	uint64_t cur[SPAWN_MAX_RLIMITS] = {UNITS_UNLIMITED, UNITS_UNLIMITED};
	struct limits l;
	char err[256] = "";
	size_t n;

	(void)state;
	limits_init(&l);
	l.nofile = 4096;
	n = spawn_plan_rlimits(rl, &l, 0);
	assert_int_equal(n, 2);
	/* Within proctord's hard limit: fine, raising or not. */
	cur[1] = 4096;
	assert_int_equal(spawn_plan_check_rlimits(rl, n, cur, 0, 1048576, "why", err, sizeof err), 0);
	/* Above it: only where the child can raise it. */
	cur[1] = 1024;
	assert_int_equal(spawn_plan_check_rlimits(rl, n, cur, 1, 1048576, "why", err, sizeof err), 0);
	assert_int_equal(spawn_plan_check_rlimits(rl, n, cur, 0, 1048576, "why", err, sizeof err),
			 -1);
	assert_string_equal(err,
			    "nofile: RLIMIT_NOFILE 4096 is above proctord's hard limit (1024), why");
	/* fs.nr_open holds for root too; 0 is unknown. */
	cur[1] = UNITS_UNLIMITED;
	assert_int_equal(spawn_plan_check_rlimits(rl, n, cur, 1, 4095, "why", err, sizeof err), -1);
	assert_string_equal(err, "nofile: RLIMIT_NOFILE 4096 is above the kernel's fs.nr_open (4095)");
	assert_int_equal(spawn_plan_check_rlimits(rl, n, cur, 1, 0, "why", err, sizeof err), 0);
	/* RLIMIT_CORE 0 is never above anything. */
	cur[0] = 0;
	assert_int_equal(spawn_plan_check_rlimits(rl, 1, cur, 0, 0, "why", err, sizeof err), 0);
}

/* The plan of a plain start: the config's fields, /dev/null open, the maps
 * of an unprivileged namespace written out. */
static void test_build(void **state)
{
	char *argv[] = {"true", NULL};
	struct spawn_config c;
	struct spawn_plan p;
	struct identity iso = {.new_session = 1};
	struct limits l;
	char err[256] = "", want[32];

	(void)state;
	limits_init(&l);
	spawn_config_init(&c);
	c.argv = argv;
	c.limits = &l;
	c.identity = &iso;
	c.stdout_path = "/out";
	c.stdout_err = 13;
	c.pidns = SPAWN_PIDNS_USER;
	assert_int_equal(spawn_plan_build(&p, &c, err, sizeof err), 0);
	assert_ptr_equal(p.c.argv, argv);
	assert_int_equal(p.stdio[0].fd, -1);
	assert_string_equal(p.stdio[1].path, "/out");
	assert_int_equal(p.stdio[1].err, 13);
	assert_true(p.iso.new_session);
	assert_null(p.c.box);
	assert_null(p.c.identity);
	assert_null(p.c.limits);
	assert_false(p.pin);
	assert_true(p.null_fd > 2);
	assert_int_equal(p.n_rlimits, 1);
	snprintf(want, sizeof want, "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
	assert_string_equal(p.uid_map, want);
	snprintf(want, sizeof want, "%u %u 1", (unsigned)getegid(), (unsigned)getegid());
	assert_string_equal(p.gid_map, want);
	spawn_plan_free(&p);
	assert_int_equal(p.null_fd, -1);

	/* A plain PID namespace: no maps for the init to write. */
	c.pidns = SPAWN_PIDNS;
	assert_int_equal(spawn_plan_build(&p, &c, err, sizeof err), 0);
	assert_string_equal(p.uid_map, "");
	spawn_plan_free(&p);
}

/* A limit that no process can be given fails the build, in proctord. */
static void test_build_refused(void **state)
{
	char *argv[] = {"true", NULL};
	struct spawn_config c;
	struct spawn_plan p;
	struct limits l;
	char err[256] = "";
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");
	unsigned long long nr_open = 0;

	(void)state;
	if (!f || fscanf(f, "%llu", &nr_open) != 1)
		nr_open = 0;
	if (f)
		fclose(f);
	if (!nr_open)
		skip();
	limits_init(&l);
	l.nofile = nr_open + 1;
	spawn_config_init(&c);
	c.argv = argv;
	c.limits = &l;
	c.pidns = SPAWN_PIDNS_NONE;
	assert_int_equal(spawn_plan_build(&p, &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "is above the kernel's fs.nr_open"));
	spawn_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rlimits_default), cmocka_unit_test(test_rlimits_all),
	    cmocka_unit_test(test_check),	    cmocka_unit_test(test_build),
	    cmocka_unit_test(test_build_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
