// SPDX-License-Identifier: ISC
// Unit tests for the /proc walk of measure.c, on a fake /proc tree made by the test.
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "measure.h"

/* Above the kernel's PID_MAX_LIMIT (2^22): no real process has these pids,
 * so their CPU clocks cannot be read and only the fixture's files count. */
#define ROOT 5000001
#define MAIN 5000002
#define THREAD 5000003
#define KIDS 40
#define KID0 5000100
#define THREAD_KID 5000200

static char fixture[64];

static void put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", fixture, rel);
	/* mkdir -p of the file's directory */
	for (slash = strchr(path + strlen(fixture) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A process: its stat (num_threads threads, no CPU), its statm (resident
 * pages), and the children file of its main thread. */
static void put_proc(int pid, int ppid, int threads, int resident, const char *children)
{
	char rel[128], text[512];

	snprintf(rel, sizeof rel, "%d/stat", pid);
	snprintf(text, sizeof text,
		 "%d (prog) S %d %d %d 0 -1 0 0 0 0 0 0 0 0 0 20 0 %d 0 %d 0 0\n", pid, ppid, pid,
		 pid, threads, 1000 + pid % 1000);
	put(rel, text);
	snprintf(rel, sizeof rel, "%d/statm", pid);
	snprintf(text, sizeof text, "100 %d 0 0 0 0 0\n", resident);
	put(rel, text);
	snprintf(rel, sizeof rel, "%d/task/%d/children", pid, pid);
	put(rel, children);
}

static int make_fixture(void **state)
{
	char list[KIDS * 12 + 1] = "", rel[128];

	(void)state;
	snprintf(fixture, sizeof fixture, "measure-fixture.XXXXXX");
	assert_non_null(mkdtemp(fixture));
	/* proctord (ROOT) has one child, MAIN: a program with two threads
	 * whose main thread forked 40 children and whose second thread one. */
	snprintf(rel, sizeof rel, "%d/task/%d/children", ROOT, ROOT);
	put(rel, "5000002 ");
	for (int i = 0; i < KIDS; i++) {
		size_t l = strlen(list);

		snprintf(list + l, sizeof list - l, "%d ", KID0 + i);
		put_proc(KID0 + i, MAIN, 1, 10, "");
	}
	put_proc(MAIN, ROOT, 2, 50, list);
	snprintf(rel, sizeof rel, "%d/task/%d/children", MAIN, THREAD);
	put(rel, "5000200 ");
	put_proc(THREAD_KID, MAIN, 1, 7, "");
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int remove_fixture(void **state)
{
	(void)state;
	return nftw(fixture, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The walk grows its list while it visits it: the 40 children of one
 * process move the list (realloc) in the middle of that process's visit,
 * which must then still find the children of its other thread. */
static void walk_finds_every_process(void **state)
{
	struct measure m;
	uint64_t cpu, rss, page;
	size_t n_kids = 0;
	int main_seen = 0, thread_kid_seen = 0;

	(void)state;
	measure_init_at(&m, ROOT, NULL, fixture);
	assert_true(m.procfd >= 0);
	assert_true(m.root_children_fd >= 0);
	page = m.page_size;
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(m.n, 1 + KIDS + 1);
	for (size_t i = 0; i < m.n; i++) {
		if (m.procs[i].pid == MAIN)
			main_seen = 1;
		else if (m.procs[i].pid == THREAD_KID)
			thread_kid_seen = m.procs[i].ppid == MAIN;
		else if (m.procs[i].pid >= KID0 && m.procs[i].pid < KID0 + KIDS)
			n_kids += m.procs[i].ppid == MAIN;
	}
	assert_true(main_seen);
	assert_true(thread_kid_seen);
	assert_int_equal(n_kids, KIDS);
	assert_int_equal(rss, (50 + KIDS * 10 + 7) * page);
	/* A second sample starts from the first one's records. */
	measure_sample(&m, &cpu, &rss);
	assert_int_equal(m.n, 1 + KIDS + 1);
	assert_int_equal(rss, (50 + KIDS * 10 + 7) * page);
	measure_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(walk_finds_every_process, make_fixture, remove_fixture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
