// SPDX-License-Identifier: ISC
// Unit tests for the measure (measure.c) on fake /proc trees made by the test.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "measure.h"
#include "procfix.h"

/* Above the kernel's PID_MAX_LIMIT (2^22): no real process has these pids,
 * so their CPU clocks cannot be read and only the fixture's files count. */
#define ROOT 5000001
#define MAIN 5000002
#define THREAD 5000003
#define KIDS 40
#define KID0 5000100
#define THREAD_KID 5000200
#define GRANDKID 5000300

static int make_fixture(void **state)
{
	char list[KIDS * 12 + 1] = "";

	if (procfix_make(state) < 0)
		return -1;
	/* proctord (ROOT) has one child, MAIN: a program with two threads
	 * whose main thread forked 40 children and whose second thread one. */
	procfix_thread(ROOT, ROOT, "5000002 ");
	for (int i = 0; i < KIDS; i++) {
		size_t l = strlen(list);

		snprintf(list + l, sizeof list - l, "%d ", KID0 + i);
		procfix_proc(KID0 + i, 'S', MAIN, 1, 0, 1000 + i, 10, "");
	}
	procfix_proc(MAIN, 'S', ROOT, 2, 0, 999, 50, list);
	procfix_thread(MAIN, THREAD, "5000200 ");
	procfix_proc(THREAD_KID, 'S', MAIN, 1, 0, 2000, 7, "");
	return 0;
}

static struct measure_proc *record(struct measure *m, pid_t pid)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->procs[i].pid == pid)
			return &m->procs[i];
	return NULL;
}

/* A measure of the fixture, and its first sample. */
static void start(struct measure *m, uint64_t *cpu, uint64_t *rss)
{
	measure_init_at(m, ROOT, NULL, procfix_dir);
	measure_sample(m, cpu, rss);
}

/* The walk grows its list while it visits it: the 40 children of one
 * process move the list (realloc) in the middle of that process's visit,
 * which must then still find the children of its other thread. */
static void walk_finds_every_process(void **state)
{
	struct measure m;
	uint64_t cpu, rss, page;
	size_t n_kids = 0;

	(void)state;
	measure_init_at(&m, ROOT, NULL, procfix_dir);
	assert_true(m.walk.procfd >= 0);
	assert_true(m.walk.root_children_fd >= 0);
	page = m.page_size;
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(m.n, 1 + KIDS + 1);
	assert_non_null(record(&m, MAIN));
	assert_int_equal(record(&m, MAIN)->ppid, ROOT);
	assert_int_equal(record(&m, THREAD_KID)->ppid, MAIN);
	for (int i = 0; i < KIDS; i++)
		n_kids += record(&m, KID0 + i) && record(&m, KID0 + i)->ppid == MAIN;
	assert_int_equal(n_kids, KIDS);
	assert_int_equal(rss, (50 + KIDS * 10 + 7) * page);
	/* A second sample starts from the first one's records. */
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(m.n, 1 + KIDS + 1);
	assert_int_equal(rss, (50 + KIDS * 10 + 7) * page);
	measure_free(&m);
}

/* A child and its own child vanish without proctord reaping them: MAIN
 * reaped them, and what was seen of both is credited to it, so that the
 * CPU figure does not fall. */
static void vanished_credited_to_parent(void **state)
{
	struct measure m;
	uint64_t cpu, rss, tick;
	char rel[64];

	(void)state;
	procfix_proc(KID0, 'S', MAIN, 1, 30, 1000, 10, "5000300 ");
	procfix_proc(GRANDKID, 'S', KID0, 1, 4, 3000, 1, "");
	measure_init_at(&m, ROOT, NULL, procfix_dir);
	tick = m.tick_ns;
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(m.n, 1 + KIDS + 1 + 1);
	assert_int_equal(record(&m, GRANDKID)->ppid, KID0);
	assert_int_equal(cpu, 34 * tick / 1000);
	assert_int_equal(record(&m, MAIN)->credited_ns, 0);

	procfix_put("5000002/task/5000002/children", "5000101 ");
	snprintf(rel, sizeof rel, "%d", KID0);
	procfix_rm(rel);
	snprintf(rel, sizeof rel, "%d", GRANDKID);
	procfix_rm(rel);
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(m.n, 1 + 1 + 1);
	assert_null(record(&m, KID0));
	assert_null(record(&m, GRANDKID));
	assert_int_equal(record(&m, MAIN)->credited_ns, 34 * tick);
	assert_int_equal(cpu, 34 * tick / 1000);
	assert_int_equal(rss, (50 + 10 + 7) * m.page_size);
	measure_free(&m);
}

/* Listed by its parent, gone before its files are read (or some of them):
 * counted as nothing, and the walk goes on. */
static void vanished_mid_walk(void **state)
{
	struct measure m;
	uint64_t cpu, rss;
	char rel[64];

	(void)state;
	snprintf(rel, sizeof rel, "%d", KID0);
	procfix_rm(rel);                       /* no files at all */
	snprintf(rel, sizeof rel, "%d/statm", KID0 + 1);
	procfix_rm(rel);                       /* stat, but no statm */
	snprintf(rel, sizeof rel, "%d/task", MAIN);
	procfix_rm(rel);                       /* MAIN's children files gone */
	procfix_thread(MAIN, MAIN, "5000100 5000101 5000102 ");
	procfix_proc(KID0 + 2, 'S', MAIN, 3, 0, 1002, 10, NULL); /* no task/ */
	start(&m, &cpu, &rss);
	assert_int_equal(m.n, 4);
	assert_non_null(record(&m, KID0));
	assert_int_equal(record(&m, KID0)->rss, 0);
	assert_int_equal(record(&m, KID0 + 1)->rss, 0);
	assert_int_equal(record(&m, KID0 + 1)->starttime, 1001);
	/* MAIN's second thread's file is gone: its child is not found. */
	assert_null(record(&m, THREAD_KID));
	assert_int_equal(rss, (50 + 10) * m.page_size);
	measure_free(&m);
}

/* A zombie: no memory, but the CPU of the children it reaped counts. */
static void zombie(void **state)
{
	struct measure m;
	uint64_t cpu, rss;

	(void)state;
	procfix_proc(KID0, 'Z', MAIN, 1, 12, 1000, 0, "");
	start(&m, &cpu, &rss);
	assert_int_equal(m.n, 1 + KIDS + 1);
	assert_int_equal(record(&m, KID0)->rss, 0);
	assert_int_equal(cpu, 12 * m.tick_ns / 1000);
	assert_int_equal(rss, (50 + (KIDS - 1) * 10 + 7) * m.page_size);
	measure_free(&m);
}

/* A pid reused between two samples (another start time): nothing known of
 * the old process is the new one's. */
static void pid_reuse(void **state)
{
	struct measure m;
	uint64_t cpu, rss;

	(void)state;
	procfix_proc(KID0, 'S', MAIN, 1, 50, 1000, 10, "");
	start(&m, &cpu, &rss);
	assert_int_equal(record(&m, KID0)->ticks_ns, 50 * m.tick_ns);
	procfix_proc(KID0, 'S', MAIN, 1, 5, 4000, 10, "");
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(record(&m, KID0)->starttime, 4000);
	assert_int_equal(record(&m, KID0)->ticks_ns, 5 * m.tick_ns);
	/* The same process again: its figure only grows. */
	procfix_proc(KID0, 'S', MAIN, 1, 2, 4000, 10, "");
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(record(&m, KID0)->ticks_ns, 5 * m.tick_ns);
	measure_free(&m);
}

/* The init of a PID namespace (here MAIN) is a copy of proctord: once it has
 * a child, its memory does not count, and is not even read. */
static void init_memory(void **state)
{
	struct measure m;
	uint64_t cpu, rss;

	(void)state;
	measure_init_at(&m, ROOT, NULL, procfix_dir);
	m.init_pid = MAIN;
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(rss, (KIDS * 10 + 7) * m.page_size);
	assert_int_equal(record(&m, MAIN)->rss, 0);
	assert_int_equal(record(&m, MAIN)->statm_fd, -1);
	assert_true(record(&m, KID0)->statm_fd >= 0);
	/* Without a child, it is what there is. */
	procfix_put("5000002/task/5000002/children", "");
	procfix_put("5000002/task/5000003/children", "");
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(m.n, 1);
	assert_int_equal(rss, 50 * m.page_size);
	measure_free(&m);
}

/* The set-up's CPU time before the program's execve is left out: nothing
 * counts until the init has said what it was (the program has not started),
 * then everything but it; the report's split loses it from the system time
 * first. */
static void setup_left_out(void **state)
{
	struct measure m;
	uint64_t cpu, rss, tick, user = 10, sys = 3;

	(void)state;
	procfix_proc(KID0, 'S', MAIN, 1, 30, 1000, 10, "");
	procfix_proc(THREAD_KID, 'S', MAIN, 1, 4, 2000, 7, "");
	measure_init_at(&m, ROOT, NULL, procfix_dir);
	tick = m.tick_ns;
	m.setup_pending = 1;
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(cpu, 0);
	/* Never said (a set-up that failed): the end counts it all. */
	assert_int_equal(measure_program_us(&m, 1234, 0, 1), 1234);
	measure_setup_known(&m, 1, 7000, 4 * tick);
	assert_int_equal(m.setup_pending, 0);
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(cpu, 30 * tick / 1000);
	/* The cgroup's figure loses what the cgroup counted of it. */
	assert_int_equal(measure_program_us(&m, 10, 1, 0), 3);
	assert_int_equal(measure_program_us(&m, 5, 1, 0), 0);
	/* 7 us: 3 from the system time, 4 from the user time. */
	measure_program_split(&m, &user, &sys, 1);
	assert_int_equal(user, 6);
	assert_int_equal(sys, 0);
	user = 10, sys = 8;
	measure_program_split(&m, &user, &sys, 1);
	assert_int_equal(user, 10);
	assert_int_equal(sys, 1);
	/* None came: nothing left out. */
	measure_setup_known(&m, 0, 7000, 4 * tick);
	assert_int_equal(measure_program_us(&m, 10, 1, 0), 10);
	measure_free(&m);
}

/* Without children files, the measure still finds the tree. */
static void without_children_files(void **state)
{
	struct measure m;
	uint64_t cpu, rss;
	char rel[64];

	(void)state;
	snprintf(rel, sizeof rel, "%d/task", ROOT);
	procfix_rm(rel);
	start(&m, &cpu, &rss);
	assert_int_equal(m.n, 1 + KIDS + 1);
	assert_int_equal(record(&m, THREAD_KID)->ppid, MAIN);
	assert_int_equal(rss, (50 + KIDS * 10 + 7) * m.page_size);
	measure_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(walk_finds_every_process, make_fixture, procfix_remove),
	    cmocka_unit_test_setup_teardown(vanished_credited_to_parent, make_fixture,
					    procfix_remove),
	    cmocka_unit_test_setup_teardown(vanished_mid_walk, make_fixture, procfix_remove),
	    cmocka_unit_test_setup_teardown(zombie, make_fixture, procfix_remove),
	    cmocka_unit_test_setup_teardown(pid_reuse, make_fixture, procfix_remove),
	    cmocka_unit_test_setup_teardown(without_children_files, make_fixture, procfix_remove),
	    cmocka_unit_test_setup_teardown(init_memory, make_fixture, procfix_remove),
	    cmocka_unit_test_setup_teardown(setup_left_out, make_fixture, procfix_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
