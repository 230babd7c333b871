// SPDX-License-Identifier: ISC
// Unit tests for the /proc walk (procwalk.c) on fake /proc trees.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

#include "procfix.h"
#include "procwalk.h"

/* Above the kernel's PID_MAX_LIMIT (2^22): no real process has these pids. */
#define ROOT 5000001
#define MAIN 5000002
#define THREAD 5000003
#define A 5000010
#define B 5000011 /* listed by its parent, but gone: no files */
#define C 5000012 /* forked by MAIN's second thread */
#define D 5000013 /* A's child, a zombie */
#define OTHER 5000099 /* not in the tree */

/* proctord (ROOT) -> MAIN (2 threads) -> A, B (gone); MAIN's second thread
 * -> C; A -> D (a zombie). */
static int make_tree(void **state)
{
	if (procfix_make(state) < 0)
		return -1;
	procfix_thread(ROOT, ROOT, "5000002\n");
	procfix_proc(MAIN, 'S', ROOT, 2, 0, 100, 50, "5000010 5000011 ");
	procfix_thread(MAIN, THREAD, "5000012 ");
	procfix_proc(A, 'S', MAIN, 1, 0, 101, 10, "5000013 ");
	procfix_proc(C, 'R', MAIN, 1, 0, 102, 10, "");
	procfix_proc(D, 'Z', A, 1, 0, 103, 0, "");
	procfix_proc(OTHER, 'S', 1, 1, 0, 104, 10, "");
	procfix_put("version", "not a process\n");
	return 0;
}

/* The parent the walk gave pid, -2 if not found; every parent is listed
 * before its children. */
static pid_t parent_of(const struct procwalk *w, pid_t pid)
{
	for (size_t i = 0; i < w->n; i++) {
		if (w->nodes[i].pid != pid)
			continue;
		if (w->nodes[i].ppid != ROOT) {
			size_t j;

			for (j = 0; j < i && w->nodes[j].pid != w->nodes[i].ppid; j++)
				;
			assert_true(j < i);
		}
		return w->nodes[i].ppid;
	}
	return -2;
}

/* The tree kill's walk (no visit): every thread's children. */
static void walk_every_thread(void **state)
{
	struct procwalk w;

	(void)state;
	procwalk_init(&w, procfix_dir, ROOT);
	assert_true(w.root_children_fd >= 0);
	assert_int_equal(procwalk_run(&w, NULL, NULL), 0);
	assert_int_equal(w.n, 5);
	assert_int_equal(parent_of(&w, MAIN), ROOT);
	assert_int_equal(parent_of(&w, A), MAIN);
	assert_int_equal(parent_of(&w, B), MAIN);
	assert_int_equal(parent_of(&w, C), MAIN);
	assert_int_equal(parent_of(&w, D), A);
	assert_int_equal(parent_of(&w, OTHER), -2);
	/* A second walk starts afresh. */
	assert_int_equal(procwalk_run(&w, NULL, NULL), 0);
	assert_int_equal(w.n, 5);
	procwalk_free(&w);
}

/* Without children files (a kernel without CONFIG_PROC_CHILDREN): every
 * process's parent from its stat. B, gone, has none. */
static void walk_scan(void **state)
{
	struct procwalk w;
	char rel[64];

	(void)state;
	snprintf(rel, sizeof rel, "%d/task", ROOT);
	procfix_rm(rel);
	procwalk_init(&w, procfix_dir, ROOT);
	assert_true(w.procfd >= 0);
	assert_true(w.root_children_fd < 0);
	assert_int_equal(procwalk_run(&w, NULL, NULL), 0);
	assert_int_equal(w.n, 4);
	assert_int_equal(parent_of(&w, MAIN), ROOT);
	assert_int_equal(parent_of(&w, A), MAIN);
	assert_int_equal(parent_of(&w, C), MAIN);
	assert_int_equal(parent_of(&w, D), A);
	assert_int_equal(parent_of(&w, B), -2);
	assert_int_equal(parent_of(&w, OTHER), -2);
	procwalk_free(&w);
}

/* A visit that gives MAIN's main-thread children itself (without B), says
 * MAIN has 2 threads (C comes from the walk), and skips A's children. */
static long visit(void *ctx, struct procwalk *w, size_t k, const char **children)
{
	int *calls = ctx;

	(*calls)++;
	if (w->nodes[k].pid == MAIN) {
		*children = "5000010 ";
		return 2;
	}
	if (w->nodes[k].pid == A)
		return 0;
	*children = NULL;
	return 1;
}

static void walk_with_visit(void **state)
{
	struct procwalk w;
	int calls = 0;

	(void)state;
	procwalk_init(&w, procfix_dir, ROOT);
	assert_int_equal(procwalk_run(&w, visit, &calls), 0);
	assert_int_equal(w.n, 3);
	assert_int_equal(calls, 3);
	assert_int_equal(parent_of(&w, A), MAIN);
	assert_int_equal(parent_of(&w, C), MAIN);
	assert_int_equal(parent_of(&w, B), -2);
	assert_int_equal(parent_of(&w, D), -2);
	procwalk_free(&w);
}

/* A children list longer than a page takes more than one read. */
#define MANY 1000
#define MANY0 5001000

static void long_children_list(void **state)
{
	char *list = test_malloc(MANY * 8 + 1);
	struct procwalk w;
	size_t found = 0;

	(void)state;
	list[0] = '\0';
	for (int i = 0; i < MANY; i++)
		snprintf(list + strlen(list), 9, "%d ", MANY0 + i);
	assert_true(strlen(list) > 4096);
	procfix_thread(C, C, list);
	test_free(list);
	procwalk_init(&w, procfix_dir, ROOT);
	assert_int_equal(procwalk_run(&w, NULL, NULL), 0);
	for (size_t i = 0; i < w.n; i++)
		found += w.nodes[i].pid >= MANY0 && w.nodes[i].pid < MANY0 + MANY &&
			 w.nodes[i].ppid == C;
	assert_int_equal(found, MANY);
	assert_int_equal(w.n, 5 + MANY);
	procwalk_free(&w);
}

/* The tree kill's check against a reused pid. */
static void ppid_now(void **state)
{
	struct procwalk w;

	(void)state;
	procwalk_init(&w, procfix_dir, ROOT);
	assert_int_equal(procwalk_ppid(&w, A), MAIN);
	assert_int_equal(procwalk_ppid(&w, D), A);
	assert_int_equal(procwalk_ppid(&w, B), -1);
	procfix_proc(A, 'S', OTHER, 1, 0, 200, 10, "");
	assert_int_equal(procwalk_ppid(&w, A), OTHER);
	procwalk_free(&w);
}

/* A /proc that does not open: the walk says so. */
static void no_proc(void **state)
{
	struct procwalk w;

	(void)state;
	procwalk_init(&w, "no-such-proc", ROOT);
	assert_int_equal(procwalk_run(&w, NULL, NULL), -1);
	assert_int_equal(w.n, 0);
	procwalk_free(&w);
}

static void add(void *ctx, pid_t pid, pid_t parent)
{
	char *out = ctx;
	size_t l = strlen(out);

	snprintf(out + l, 128 - l, "%d<%d ", (int)pid, (int)parent);
}

static void check_parse(const char *list, const char *want)
{
	char out[128] = "";

	procwalk_parse_children(list, 9, add, out);
	assert_string_equal(out, want);
}

static void parse_children(void **state)
{
	(void)state;
	check_parse("12 34 \n", "12<9 34<9 ");
	/* A list cut off in a number drops that number. */
	check_parse("12 1886", "12<9 ");
	check_parse("0 -5 7\n", "7<9 ");
	check_parse("", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(walk_every_thread, make_tree, procfix_remove),
	    cmocka_unit_test_setup_teardown(walk_scan, make_tree, procfix_remove),
	    cmocka_unit_test_setup_teardown(walk_with_visit, make_tree, procfix_remove),
	    cmocka_unit_test_setup_teardown(ppid_now, make_tree, procfix_remove),
	    cmocka_unit_test_setup_teardown(long_children_list, make_tree, procfix_remove),
	    cmocka_unit_test(no_proc),
	    cmocka_unit_test(parse_children),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
