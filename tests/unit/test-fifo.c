// SPDX-License-Identifier: ISC
// Unit tests for the purges of the FIFOs' queue of owed answers, and for the
// spare status FIFO that takes the name after each answer (fifo-priv.h).
//
// A queue is built by hand as fifo.c builds it: requests in arrival order,
// each with the read (batch) it came in and when. The purges must drop
// exactly the answers whose clients have gone, keep the others in their
// order, and leave head, tail and the count consistent.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fifo-priv.h"

#define NOW 100000000u /* µs: "now" in these tests */

struct fixture {
	struct ev_loop *loop;
	struct fifo f;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);

	if (!fx)
		return -1;
	fx->loop = ev_loop_new(EVFLAG_AUTO);
	if (!fx->loop) {
		free(fx);
		return -1;
	}
	fx->f.loop = fx->loop;
	fx->f.retry.fd = -1; /* no timer armed: fifo_release may stop it */
	fx->f.reader_fd = -1;
	ev_timer_init(&fx->f.timeout, NULL, FIFO_READER_TIMEOUT, 0.);
	fx->f.batch = 10; /* the current read of the wait FIFO */
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	while (fx->f.head) {
		struct fifo_request *r = fx->f.head;

		fx->f.head = r->next;
		free(r);
	}
	ev_loop_destroy(fx->loop);
	free(fx);
	return 0;
}

/* Queue a request read in batch, arrived at (µs); garbage[0] names it. */
static void push(struct fifo *f, char name, enum request_kind kind, unsigned long batch,
		 uint64_t arrived)
{
	struct fifo_request *r = calloc(1, sizeof *r);

	assert_non_null(r);
	r->kind = kind;
	r->batch = batch;
	r->arrived_us = arrived;
	r->garbage[0] = name;
	r->garbage_len = 1;
	fifo_append(f, r);
}

/* The queue's names in order; checks tail and pending on the way. */
static const char *names(const struct fifo *f)
{
	static char buf[64];
	size_t n = 0;
	const struct fifo_request *last = NULL;

	for (const struct fifo_request *r = f->head; r && n < sizeof buf - 1; r = r->next) {
		buf[n++] = r->garbage[0];
		last = r;
	}
	buf[n] = '\0';
	assert_ptr_equal(f->tail, last);
	assert_int_equal(f->pending, n);
	return buf;
}

/* A request of the current read is never stale: its client is writing. */
static void test_stale_never_in_the_current_read(void **state)
{
	struct fixture *fx = *state;
	struct fifo_request r = {.batch = 10, .arrived_us = 0};

	fx->f.last_taken_us = NOW;
	assert_false(fifo_is_stale(&fx->f, &r, NOW));
}

/* Of an earlier read: stale once a reader took an answer since it came
 * (its client moved on without reading), or once owed FIFO_STALE_US. */
static void test_stale_when_overtaken_or_old(void **state)
{
	struct fixture *fx = *state;
	struct fifo_request r = {.batch = 9, .arrived_us = NOW - 10};

	fx->f.last_taken_us = NOW - 20;
	assert_false(fifo_is_stale(&fx->f, &r, NOW));
	fx->f.last_taken_us = NOW - 5;
	assert_true(fifo_is_stale(&fx->f, &r, NOW));
	fx->f.last_taken_us = 0;
	r.arrived_us = NOW - FIFO_STALE_US;
	assert_false(fifo_is_stale(&fx->f, &r, NOW));
	r.arrived_us = NOW - FIFO_STALE_US - 1;
	assert_true(fifo_is_stale(&fx->f, &r, NOW));
}

/* Idle: every stale answer goes, the live ones stay in order. */
static void test_purge_keeps_live_in_order(void **state)
{
	struct fixture *fx = *state;
	struct fifo *f = &fx->f;

	f->last_taken_us = NOW - 100;
	push(f, 'a', REQUEST_CONTINUE, 3, NOW - 200);  /* overtaken */
	push(f, 'b', REQUEST_CONTINUE, 4, NOW - 50);   /* live: after the last take */
	push(f, 'c', REQUEST_INVALID, 5, NOW - 150);   /* overtaken */
	push(f, 'd', REQUEST_CONTINUE, 6, NOW - 40);   /* live */
	push(f, 'e', REQUEST_CONTINUE, 10, NOW - 300); /* the current read */
	fifo_purge_stale_at(f, NOW);
	assert_string_equal(names(f), "bde");
	assert_int_equal(f->state, FIFO_IDLE);
}

/* The last request stale: the tail moves back, and a new one goes after
 * the new tail. */
static void test_purge_moves_the_tail(void **state)
{
	struct fixture *fx = *state;
	struct fifo *f = &fx->f;

	push(f, 'a', REQUEST_CONTINUE, 9, NOW - 10);
	push(f, 'b', REQUEST_CONTINUE, 9, NOW - FIFO_STALE_US - 10);
	fifo_purge_stale_at(f, NOW);
	assert_string_equal(names(f), "a");
	push(f, 't', REQUEST_TERMINATE, 10, NOW);
	assert_string_equal(names(f), "at");
}

static void test_purge_everything_stale_empties(void **state)
{
	struct fixture *fx = *state;
	struct fifo *f = &fx->f;

	for (int c = 'a'; c <= 'e'; c++)
		push(f, (char)c, REQUEST_CONTINUE, 1, 0);
	fifo_purge_stale_at(f, NOW);
	assert_null(f->head);
	assert_string_equal(names(f), "");
}

/* An answer written and waiting for its reader to leave stays, stale or
 * not: the fifo is busy with it. */
static void test_purge_keeps_the_head_being_answered(void **state)
{
	struct fixture *fx = *state;
	struct fifo *f = &fx->f;

	f->state = FIFO_WAIT_CLOSE;
	push(f, 'h', REQUEST_CONTINUE, 1, 0);
	push(f, 'x', REQUEST_CONTINUE, 2, 0);
	push(f, 'y', REQUEST_CONTINUE, 9, NOW - 1);
	fifo_purge_stale_at(f, NOW);
	assert_string_equal(names(f), "hy");
	assert_int_equal(f->state, FIFO_WAIT_CLOSE);
}

/* An answer owed to a reader that never came, and stale: given up (the
 * fifo is idle again) and dropped with the others. */
static void test_purge_gives_up_a_stale_retry(void **state)
{
	struct fixture *fx = *state;
	struct fifo *f = &fx->f;

	f->state = FIFO_RETRY;
	push(f, 'h', REQUEST_CONTINUE, 1, 0);
	push(f, 'y', REQUEST_CONTINUE, 9, NOW - 1);
	fifo_purge_stale_at(f, NOW);
	assert_string_equal(names(f), "y");
	assert_int_equal(f->state, FIFO_IDLE);
}

/* ...but a live one is still being offered. */
static void test_purge_keeps_a_live_retry(void **state)
{
	struct fixture *fx = *state;
	struct fifo *f = &fx->f;

	f->state = FIFO_RETRY;
	push(f, 'h', REQUEST_CONTINUE, 9, NOW - 1);
	push(f, 'x', REQUEST_CONTINUE, 2, 0);
	fifo_purge_stale_at(f, NOW);
	assert_string_equal(names(f), "h");
	assert_int_equal(f->state, FIFO_RETRY);
}

/* The status FIFO was replaced: everything owed goes but the answer in
 * hand and the terminating wait. */
static void test_drop_owed_keeps_head_and_terminate(void **state)
{
	struct fixture *fx = *state;
	struct fifo *f = &fx->f;

	f->state = FIFO_WAIT_CLOSE;
	push(f, 'h', REQUEST_CONTINUE, 9, NOW);
	push(f, 'a', REQUEST_CONTINUE, 10, NOW);
	push(f, 'b', REQUEST_INVALID, 10, NOW);
	push(f, 't', REQUEST_TERMINATE, 10, NOW);
	fifo_drop_owed(f);
	assert_string_equal(names(f), "ht");
	push(f, 'z', REQUEST_CONTINUE, 10, NOW);
	fifo_drop_owed(f);
	assert_string_equal(names(f), "ht");
}

/* The spare: made ahead, given status's mode and group, swapped in for
 * status after an answer, and then followed (status_pfd, its inode). The
 * FIFO it replaced is used again once nobody holds it, not while a reader
 * does. */
static void test_spare_takes_the_name(void **state)
{
	struct fixture *fx = *state;
	struct fifo *f = &fx->f;
	const char *tmp = getenv("TMPDIR");
	char dir[4096], spare[64];
	struct stat st, sp, old;
	int held;

	snprintf(dir, sizeof dir, "%s/test-fifo.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	f->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(f->dirfd >= 0);
	f->euid = geteuid();
	f->pid = getpid();
	f->ino_fd = f->status_wd = f->status_pfd = -1;
	assert_int_equal(mkfifoat(f->dirfd, "status", 0600), 0);
	/* A mode given to status after the start: a group of clients. */
	assert_int_equal(fchmodat(f->dirfd, "status", 0640, 0), 0);
	assert_int_equal(fstatat(f->dirfd, "status", &old, AT_SYMLINK_NOFOLLOW), 0);

	snprintf(spare, sizeof spare, ".status.%ld.%u", (long)getpid(), f->swaps);
	assert_int_equal(fifo_spare_make(f), 0);
	assert_true(f->spare);
	assert_string_equal(f->spare_name, spare);
	assert_int_equal(fstatat(f->dirfd, spare, &sp, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISFIFO(sp.st_mode));
	/* Made once: asked again before it is used, it is the same one. */
	assert_int_equal(fifo_spare_make(f), 0);
	assert_string_equal(f->spare_name, spare);

	fifo_spare_fit(f, &old);
	assert_int_equal(f->spare_mode, 0640);

	assert_int_equal(fifo_spare_install(f), 0);
	assert_false(f->spare);
	assert_int_equal(fstatat(f->dirfd, "status", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(st.st_ino == sp.st_ino && st.st_dev == sp.st_dev);
	assert_int_equal(st.st_mode & 07777, 0640);
	/* Followed by the name from now on: the descriptor is made again when
	 * the opener needs it. */
	assert_int_equal(f->status_pfd, -1);
	assert_int_equal(fifo_status_follow(f), 0);
	assert_true(fifo_status_is(f, &st));
	/* Without a spare there is nothing to install. */
	assert_int_equal(fifo_spare_install(f), -1);

	/* The old status, now at the spare's name (where the file system can
	 * exchange two names), is the next spare: nobody holds it. */
	if (fstatat(f->dirfd, spare, &sp, AT_SYMLINK_NOFOLLOW) == 0) {
		assert_true(sp.st_ino == old.st_ino);
		assert_int_equal(fifo_spare_make(f), 0);
		assert_string_equal(f->spare_name, spare);
		assert_int_equal(fifo_spare_install(f), 0);
		assert_int_equal(fstatat(f->dirfd, "status", &st, AT_SYMLINK_NOFOLLOW), 0);
		assert_true(st.st_ino == old.st_ino);
		/* ...but not while a reader holds it: a fresh one then, and
		 * the held one's name let go. */
		held = openat(f->dirfd, spare, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		assert_true(held >= 0);
		assert_int_equal(fifo_spare_make(f), 0);
		assert_string_not_equal(f->spare_name, spare);
		assert_int_equal(fstatat(f->dirfd, spare, &sp, AT_SYMLINK_NOFOLLOW), -1);
		close(held);
		assert_int_equal(unlinkat(f->dirfd, f->spare_name, 0), 0);
	}

	if (f->status_pfd >= 0)
		close(f->status_pfd);
	assert_int_equal(unlinkat(f->dirfd, "status", 0), 0);
	close(f->dirfd);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_stale_never_in_the_current_read),
		T(test_stale_when_overtaken_or_old),
		T(test_purge_keeps_live_in_order),
		T(test_purge_moves_the_tail),
		T(test_purge_everything_stale_empties),
		T(test_purge_keeps_the_head_being_answered),
		T(test_purge_gives_up_a_stale_retry),
		T(test_purge_keeps_a_live_retry),
		T(test_drop_owed_keeps_head_and_terminate),
		T(test_spare_takes_the_name),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
