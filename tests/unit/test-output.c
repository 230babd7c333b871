// SPDX-License-Identifier: ISC
// Unit tests for the --output-limit pump (output.c), driven through real pipes in a private loop.
//
// The test plays the program (it writes into the write ends output_open
// made) and the destination's reader: a memfd stands for a file, a pipe for
// a FIFO or a terminal. No file system is touched.
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "output.h"
#include "units.h"

struct fixture {
	struct ev_loop *loop;
	struct output o;
	int opened;
	int prog[2];  /* the program's stdout and stderr */
	int dst[2];   /* what the test reads the destinations from */
	int exceeded; /* calls of the callbacks */
	int done;
};

static void on_exceeded(void *ctx)
{
	((struct fixture *)ctx)->exceeded++;
}

static void on_done(void *ctx)
{
	((struct fixture *)ctx)->done++;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);

	if (!fx)
		return -1;
	fx->loop = ev_loop_new(EVFLAG_AUTO);
	fx->prog[0] = fx->prog[1] = fx->dst[0] = fx->dst[1] = -1;
	*state = fx;
	return fx->loop ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	if (fx->opened)
		output_close(&fx->o);
	for (int i = 0; i < 2; i++) {
		if (fx->prog[i] >= 0)
			close(fx->prog[i]);
		if (fx->dst[i] >= 0)
			close(fx->dst[i]);
	}
	ev_loop_destroy(fx->loop);
	free(fx);
	return 0;
}

/* The limits of the tests: both streams together, nothing on each alone. */
static struct output_limits total_limit(uint64_t limit)
{
	return (struct output_limits){limit, {UNITS_UNLIMITED, UNITS_UNLIMITED}, 0};
}

/* Open with both streams going to memfds (regular files), under lim. */
static void open_files_lim(struct fixture *fx, const struct output_limits *lim)
{
	struct output_dest d[2];

	for (int i = 0; i < 2; i++) {
		fx->dst[i] = memfd_create(i ? "stderr" : "stdout", MFD_CLOEXEC);
		assert_true(fx->dst[i] >= 0);
		d[i] = (struct output_dest){.path = NULL, .fd = fx->dst[i]};
	}
	assert_int_equal(output_open(&fx->o, fx->loop, lim, &d[0], &d[1]), 0);
	fx->opened = 1;
}

static void open_files(struct fixture *fx, uint64_t limit)
{
	struct output_limits lim = total_limit(limit);

	open_files_lim(fx, &lim);
}

/* Open with stdout into a pipe of pipe_size bytes (the test holds its read
 * end, non-blocking) and stderr into a memfd. */
static void open_pipe_lim(struct fixture *fx, const struct output_limits *lim, int pipe_size)
{
	struct output_dest d[2];
	int p[2];

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_true(fcntl(p[0], F_SETPIPE_SZ, pipe_size) >= pipe_size);
	assert_int_equal(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
	fx->dst[0] = p[0];
	d[0] = (struct output_dest){.path = NULL, .fd = p[1]};
	fx->dst[1] = memfd_create("stderr", MFD_CLOEXEC);
	assert_true(fx->dst[1] >= 0);
	d[1] = (struct output_dest){.path = NULL, .fd = fx->dst[1]};
	assert_int_equal(output_open(&fx->o, fx->loop, lim, &d[0], &d[1]), 0);
	close(p[1]); /* output has its own */
	fx->opened = 1;
}

static void open_pipe(struct fixture *fx, uint64_t limit, int pipe_size)
{
	struct output_limits lim = total_limit(limit);

	open_pipe_lim(fx, &lim, pipe_size);
}

/* The program starts: it keeps copies of the write ends, as it would hold
 * its descriptors 1 and 2, and the pump starts. */
static void start(struct fixture *fx)
{
	for (int i = 0; i < 2; i++) {
		fx->prog[i] = fcntl(output_child_fd(&fx->o, i), F_DUPFD_CLOEXEC, 3);
		assert_true(fx->prog[i] >= 0);
		assert_int_equal(fcntl(fx->prog[i], F_SETFL, O_NONBLOCK), 0);
	}
	output_start(&fx->o, on_exceeded, on_done, fx);
}

static void put(struct fixture *fx, int which, char c, size_t n)
{
	char buf[4096];

	memset(buf, c, sizeof buf);
	while (n > 0) {
		size_t k = n < sizeof buf ? n : sizeof buf;
		ssize_t w = write(fx->prog[which], buf, k);

		assert_true(w > 0);
		n -= (size_t)w;
	}
}

static void program_exits(struct fixture *fx)
{
	for (int i = 0; i < 2; i++) {
		close(fx->prog[i]);
		fx->prog[i] = -1;
	}
}

/* Let the loop run a few rounds without waiting. */
static void spin(struct fixture *fx, int rounds)
{
	for (int i = 0; i < rounds; i++)
		ev_run(fx->loop, EVRUN_NOWAIT);
}

/* What a memfd destination holds; all bytes must be c. */
static size_t file_size(struct fixture *fx, int which, char c)
{
	char buf[4096];
	size_t total = 0;
	ssize_t n;

	while ((n = pread(fx->dst[which], buf, sizeof buf, (off_t)total)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			assert_int_equal(buf[i], c);
		total += (size_t)n;
	}
	return total;
}

/* Empty the pipe destination; returns how many bytes were there. */
static size_t pipe_take(struct fixture *fx)
{
	char buf[4096];
	size_t total = 0;
	ssize_t n;

	while ((n = read(fx->dst[0], buf, sizeof buf)) > 0)
		total += (size_t)n;
	return total;
}

/* Past the limit: exactly the bytes up to it are delivered, the exceeded
 * callback comes once, and nothing more is read. */
static void test_limit_delivers_exactly_the_limit(void **state)
{
	struct fixture *fx = *state;

	open_files(fx, 10);
	start(fx);
	put(fx, 0, 'x', 25);
	spin(fx, 8);
	assert_int_equal(fx->exceeded, 1);
	assert_int_equal(file_size(fx, 0, 'x'), 10);
	assert_int_equal(output_total(&fx->o), 10);
	put(fx, 0, 'x', 5);
	put(fx, 1, 'y', 5);
	spin(fx, 8);
	assert_int_equal(fx->exceeded, 1);
	assert_int_equal(file_size(fx, 0, 'x'), 10);
	assert_int_equal(file_size(fx, 1, 'y'), 0);
	assert_int_equal(fx->done, 0); /* not before output_end */
}

/* The limit is on the two streams together. */
static void test_limit_counts_both_streams(void **state)
{
	struct fixture *fx = *state;

	open_files(fx, 10);
	start(fx);
	put(fx, 0, 'o', 6);
	spin(fx, 8);
	assert_int_equal(fx->exceeded, 0);
	put(fx, 1, 'e', 6);
	spin(fx, 8);
	assert_int_equal(fx->exceeded, 1);
	assert_int_equal(file_size(fx, 0, 'o'), 6);
	assert_int_equal(file_size(fx, 1, 'e'), 4);
	assert_int_equal(output_total(&fx->o), 10);
}

/* Exactly at the limit is not past it. */
static void test_limit_reached_is_not_exceeded(void **state)
{
	struct fixture *fx = *state;

	open_files(fx, 10);
	start(fx);
	put(fx, 0, 'x', 10);
	spin(fx, 8);
	assert_int_equal(fx->exceeded, 0);
	assert_int_equal(output_drain(&fx->o), 0);
	assert_int_equal(file_size(fx, 0, 'x'), 10);
}

/* The main process ended: what is in the pipes moves now, without the
 * loop, so that a file holds it before the status is final. */
static void test_drain_moves_what_the_pipes_hold(void **state)
{
	struct fixture *fx = *state;

	open_files(fx, UNITS_UNLIMITED);
	start(fx);
	put(fx, 0, 'o', 20000);
	put(fx, 1, 'e', 300);
	assert_int_equal(output_drain(&fx->o), 0);
	assert_int_equal(file_size(fx, 0, 'o'), 20000);
	assert_int_equal(file_size(fx, 1, 'e'), 300);
	assert_int_equal(fx->exceeded, 0);
}

/* A drain that passes the limit says so, and not through the callback
 * (the caller decides the verdict itself). */
static void test_drain_reports_the_limit_itself(void **state)
{
	struct fixture *fx = *state;

	open_files(fx, 5);
	start(fx);
	put(fx, 0, 'o', 8);
	assert_int_equal(output_drain(&fx->o), 1);
	assert_int_equal(fx->exceeded, 0);
	assert_int_equal(file_size(fx, 0, 'o'), 5);
}

/* Nothing left after the end: done at once, and once. */
static void test_end_with_empty_pipes_is_done_at_once(void **state)
{
	struct fixture *fx = *state;

	open_files(fx, UNITS_UNLIMITED);
	start(fx);
	put(fx, 0, 'o', 100);
	program_exits(fx);
	output_end(&fx->o);
	assert_int_equal(fx->done, 1);
	assert_true(output_done(&fx->o));
	assert_int_equal(file_size(fx, 0, 'o'), 100);
	spin(fx, 4);
	assert_int_equal(fx->done, 1);
}

/* A slow destination: done only once it has taken everything. */
static void test_done_waits_for_the_destination(void **state)
{
	struct fixture *fx = *state;
	size_t got = 0;

	open_pipe(fx, UNITS_UNLIMITED, 4096);
	start(fx);
	put(fx, 0, 'o', 40000);
	program_exits(fx);
	output_end(&fx->o);
	assert_int_equal(fx->done, 0);
	assert_false(output_done(&fx->o));
	for (int i = 0; i < 1000 && !fx->done; i++) {
		got += pipe_take(fx);
		spin(fx, 1);
	}
	got += pipe_take(fx);
	assert_int_equal(fx->done, 1);
	assert_int_equal(got, 40000);
	/* The destination's reader sees end of file. */
	assert_int_equal(read(fx->dst[0], (char[1]){0}, 1), 0);
}

/* The destination's reader has gone: that stream is over, and the program
 * gets EPIPE on its next write, as it would have. */
static void test_gone_reader_closes_the_stream(void **state)
{
	struct fixture *fx = *state;
	int err;

	signal(SIGPIPE, SIG_IGN);
	open_pipe(fx, UNITS_UNLIMITED, 4096);
	start(fx);
	close(fx->dst[0]);
	fx->dst[0] = -1;
	put(fx, 0, 'o', 100);
	spin(fx, 8);
	errno = 0;
	assert_int_equal(write(fx->prog[0], "z", 1), -1);
	err = errno;
	assert_int_equal(err, EPIPE);
	program_exits(fx);
	output_end(&fx->o);
	assert_int_equal(fx->done, 1);
}

/* A stream's own limit: that stream is cut, and the kill names it. */
static void test_stream_limit_is_its_own(void **state)
{
	struct fixture *fx = *state;
	struct output_limits lim = {UNITS_UNLIMITED, {10, UNITS_UNLIMITED}, 0};

	open_files_lim(fx, &lim);
	start(fx);
	put(fx, 1, 'e', 100);
	spin(fx, 8);
	assert_int_equal(fx->exceeded, 0);
	put(fx, 0, 'o', 25);
	spin(fx, 8);
	assert_int_equal(fx->exceeded, 1);
	assert_int_equal(output_hit(&fx->o), LIMIT_STDOUT);
	assert_int_equal(file_size(fx, 0, 'o'), 10);
	assert_int_equal(file_size(fx, 1, 'e'), 100);
	assert_int_equal(output_stream_bytes(&fx->o, 0), 10);
	assert_int_equal(output_stream_bytes(&fx->o, 1), 100);
}

/* --truncate-output: the first bytes are kept, the rest is read and
 * dropped, no kill, and the other stream goes on. */
static void test_truncate_keeps_the_first_bytes(void **state)
{
	struct fixture *fx = *state;
	struct output_limits lim = {UNITS_UNLIMITED, {10, UNITS_UNLIMITED}, 1};

	open_files_lim(fx, &lim);
	start(fx);
	put(fx, 0, 'o', 10);
	spin(fx, 8);
	assert_int_equal(output_truncated(&fx->o), 0); /* exactly the limit */
	put(fx, 0, 'o', 1);
	spin(fx, 8);
	assert_int_equal(output_truncated(&fx->o), LIMIT_STDOUT);
	put(fx, 0, 'o', 50000);
	put(fx, 1, 'e', 70);
	spin(fx, 8);
	assert_int_equal(fx->exceeded, 0);
	assert_int_equal(output_hit(&fx->o), 0);
	assert_int_equal(file_size(fx, 0, 'o'), 10);
	assert_int_equal(file_size(fx, 1, 'e'), 70);
	assert_int_equal(output_stream_bytes(&fx->o, 0), 50011);
	assert_int_equal(output_total(&fx->o), 50081);
}

/* The total truncates both streams, and says it was the total. */
static void test_truncate_total(void **state)
{
	struct fixture *fx = *state;
	struct output_limits lim = {10, {UNITS_UNLIMITED, UNITS_UNLIMITED}, 1};

	open_files_lim(fx, &lim);
	start(fx);
	put(fx, 0, 'o', 6);
	spin(fx, 8);
	put(fx, 1, 'e', 6);
	spin(fx, 8);
	put(fx, 0, 'o', 3);
	spin(fx, 8);
	assert_int_equal(fx->exceeded, 0);
	assert_int_equal(output_truncated(&fx->o), LIMIT_OUTPUT);
	assert_int_equal(file_size(fx, 0, 'o'), 6);
	assert_int_equal(file_size(fx, 1, 'e'), 4);
	assert_int_equal(output_total(&fx->o), 15);
}

/* Past the limit the program is not held up by a destination that has
 * not taken the kept bytes yet: what follows is dropped at once. */
static void test_truncate_never_waits_for_the_destination(void **state)
{
	struct fixture *fx = *state;
	struct output_limits lim = {UNITS_UNLIMITED, {5000, UNITS_UNLIMITED}, 1};

	open_pipe_lim(fx, &lim, 4096);
	start(fx);
	put(fx, 0, 'o', 6000);
	spin(fx, 8);
	/* The 64 KiB pipe of the program would refuse the second put (put
	 * asserts that a non-blocking write goes through). */
	for (int i = 0; i < 4; i++) {
		put(fx, 0, 'o', 60000);
		spin(fx, 8);
	}
	assert_int_equal(output_stream_bytes(&fx->o, 0), 246000);
	assert_int_equal(output_truncated(&fx->o), LIMIT_STDOUT);
	program_exits(fx);
	output_end(&fx->o);
	{
		size_t got = 0;

		for (int i = 0; i < 1000 && !fx->done; i++) {
			got += pipe_take(fx);
			spin(fx, 1);
		}
		got += pipe_take(fx);
		assert_int_equal(got, 5000);
	}
	assert_int_equal(fx->done, 1);
}

/* The main process ended with bytes past the limit still in its pipe
 * behind a slow destination: truncated already, before they are read. */
static void test_drain_foresees_truncation(void **state)
{
	struct fixture *fx = *state;
	struct output_limits lim = {UNITS_UNLIMITED, {70000, UNITS_UNLIMITED}, 1};

	open_pipe_lim(fx, &lim, 4096);
	start(fx);
	put(fx, 0, 'o', 60000);
	spin(fx, 8);
	put(fx, 0, 'o', 20000);
	spin(fx, 8);
	assert_int_equal(output_truncated(&fx->o), 0);
	assert_int_equal(output_drain(&fx->o), 0);
	assert_int_equal(output_truncated(&fx->o), LIMIT_STDOUT);
}

/* A stream with no destination given does not pass through proctord. */
static void test_stream_not_counted(void **state)
{
	struct fixture *fx = *state;
	struct output_limits lim = total_limit(10);
	struct output_dest d;

	fx->dst[0] = memfd_create("stdout", MFD_CLOEXEC);
	assert_true(fx->dst[0] >= 0);
	d = (struct output_dest){.path = NULL, .fd = fx->dst[0]};
	assert_int_equal(output_open(&fx->o, fx->loop, &lim, &d, NULL), 0);
	fx->opened = 1;
	assert_true(output_child_fd(&fx->o, 0) >= 0);
	assert_int_equal(output_child_fd(&fx->o, 1), -1);
	fx->prog[0] = fcntl(output_child_fd(&fx->o, 0), F_DUPFD_CLOEXEC, 3);
	output_start(&fx->o, on_exceeded, on_done, fx);
	put(fx, 0, 'o', 7);
	spin(fx, 8);
	assert_int_equal(output_stream_bytes(&fx->o, 1), UNITS_UNLIMITED);
	assert_int_equal(output_total(&fx->o), 7);
	program_exits(fx);
	output_end(&fx->o);
	assert_int_equal(fx->done, 1);
	assert_int_equal(file_size(fx, 0, 'o'), 7);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_limit_delivers_exactly_the_limit), T(test_limit_counts_both_streams),
	    T(test_limit_reached_is_not_exceeded),    T(test_drain_moves_what_the_pipes_hold),
	    T(test_drain_reports_the_limit_itself),   T(test_end_with_empty_pipes_is_done_at_once),
	    T(test_done_waits_for_the_destination),   T(test_gone_reader_closes_the_stream),
	    T(test_stream_limit_is_its_own),          T(test_truncate_keeps_the_first_bytes),
	    T(test_truncate_total),                   T(test_truncate_never_waits_for_the_destination),
	    T(test_drain_foresees_truncation),        T(test_stream_not_counted),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
