// SPDX-License-Identifier: ISC
// How an answer reaches its reader: the status FIFO writer's state machine.
//
// The status writer never blocks and never writes into a pipe that a
// previous reader still holds. An answer is composed only when its reader is
// there: an O_WRONLY|O_NONBLOCK open of the status FIFO succeeds exactly when
// a client is waiting in its open (or holds it open). Then the answer goes in
// one write() and our end is closed, so the reader sees the answer and EOF.
// If nobody is there yet (ENXIO), the answer goes to the opener thread
// (opener.c), which waits for the reader in a blocking open(): a FIFO gives
// no event for a reader blocked in its open(), and an answer left in the
// pipe in advance could be read stale by the next client. Without that
// thread, the open is retried from a timer with a short backoff.
// Before the write, a fresh FIFO made ahead (the spare, fifo_spare_make)
// takes the name status: the reader keeps the old one to itself, no later
// answer can go into its pipe, whenever and however it closes, and no later
// client can open it, however soon after its answer the reader leaves (a
// read-write reader needs no end of file). A reader's close is not waited
// for: a read-write reader's IN_CLOSE_WRITE is merged by inotify with our
// own when the two come in a row, and could not be told from it. Only
// where no spare can be had is the close waited for (inotify
// IN_CLOSE_NOWRITE, or IN_CLOSE_WRITE counted against our own closes for a
// reader that opened it read-write) before the next answer: a reader still
// blocked in read() would otherwise take the next answer as part of its own.
// Deadlines bound the waits, so a client that never comes or never leaves
// delays others by at most FIFO_READER_TIMEOUT and never stalls proctord.
// A reader still there at the deadline keeps the status FIFO it holds, and
// a fresh one is renamed over the name: later answers must not go into a
// pipe that reader may hold for ever. What it left unread is thrown away,
// and a client waiting on that FIFO gets the next answer there.
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "answer.h"
#include "fifo-priv.h"
#include "log.h"
#include "status.h"
#include "util.h"

/* The head's answer, from the state brought up to date for it. */
static size_t answer_compose(struct fifo *f, char *buf, size_t len)
{
	f->ops->prepare(f->ctx, f->head);
	return f->ops->compose(f->ctx, f->head, buf, len);
}

/* (Re)start the deadline for the head's reader. */
static void answer_deadline(struct fifo *f)
{
	ev_timer_stop(f->loop, &f->timeout);
	ev_timer_set(&f->timeout, FIFO_READER_TIMEOUT, 0.);
	ev_timer_start(f->loop, &f->timeout);
}

/* An answer is out: now for its reader to leave, within the deadline. */
static void answer_await_close(struct fifo *f)
{
	ptimer_stop(&f->retry);
	f->state = FIFO_WAIT_CLOSE;
	answer_deadline(f);
}

/* The reader is there (fd, the status FIFO open for writing): the head's
 * answer, buf's if len > 0 else one composed now, goes to it. Returns 0, or
 * 1 if its reader has gone already (the head is popped). */
static int answer_deliver_fd(struct fifo *f, int fd, char *buf, size_t len)
{
	ssize_t n;
	int gone, installed;

	if (!f->spare)
		fifo_forget_events(f);
	if (len == 0)
		len = answer_compose(f, buf, REPORT_RESPONSE_MAX);
	/* The spare takes the name before the write: a read-write reader
	 * needs no end of file and may leave as soon as it has read, and the
	 * next client must then find the fresh FIFO, not open this one. */
	installed = fifo_spare_install(f) == 0;
	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len && !(n < 0 && errno == EPIPE))
		log_warn("write status FIFO");
	f->last_taken_us = now_us();
	/* The reader keeps this FIFO to itself: no close to wait for. Without
	 * a spare nor inotify, none can be seen: it is not waited for. */
	if (installed || f->ino_fd < 0) {
		close(fd);
		fifo_drop_head(f);
		return 1;
	}
	/* Its rename failed: the reader's close is to be seen after all. */
	if (f->status_wd < 0 && fifo_status_follow(f) == 0 && fifo_watch(f) == 0)
		fifo_forget_events(f);
	/* EPIPE: the reader came and went before the answer, its close taken
	 * above for an earlier one's. A reader that has read and gone already
	 * (read-write, it needs no end of file) would have its close merged
	 * with ours. Either way no close is to come. */
	gone = (n < 0 && errno == EPIPE) || opener_reader_gone(fd);
	if (fifo_close_own(f, fd) || gone) {
		fifo_drop_head(f);
		return 1;
	}
	answer_await_close(f);
	return 0;
}

/* Try to hand the head's answer to a reader: the one composed in buf if any
 * (len > 0), else one composed now. Returns 0 if delivered, 1 if done with
 * (dropped, or its reader gone: the caller goes on with the next answer, a
 * loop, not a recursion, so a full queue of them costs no stack), -1 if
 * nobody is there yet. */
static int answer_try_deliver(struct fifo *f, char *buf, size_t len)
{
	struct stat st;
	int fd;

	if (f->reader_fd >= 0) {
		/* A reader already waits on it (the opener's, given up). */
		fd = f->reader_fd;
		f->reader_fd = -1;
	} else {
		fd = openat(f->dirfd, "status", O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		if (errno == ENXIO)
			return -1;
		log_warn("open status FIFO; answer dropped");
		fifo_drop_head(f);
		return 1;
	}
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_uid != f->euid) {
		log_warnx("status is not a FIFO of ours; answer dropped");
		close(fd);
		fifo_drop_head(f);
		return 1;
	}
	/* A request still unread may be a terminating wait whose reader this
	 * is (answer_late): read it first. If the head went with the stale
	 * answers, the reader, held, is the next answer's (1: on with it). */
	if (opener_unread(f->wait_rfd)) {
		const struct fifo_request *head = f->head;

		f->reader_fd = fd;
		fifo_read_requests(f);
		if (f->reader_fd < 0)
			return 0; /* an answer went to it meanwhile */
		if (f->state != FIFO_RETRY || f->head != head)
			return 1;
		f->reader_fd = -1;
	}
	/* The spare is to take on its mode and group; without one, its
	 * reader's close is to be seen. */
	if (f->spare)
		fifo_spare_fit(f, &st);
	else if (!fifo_status_is(f, &st))
		fifo_status_moved(f);
	return answer_deliver_fd(f, fd, buf, len);
}

static void answer_opener_cb(void *ctx, enum opener_result r, int fd, int err);

/* Nobody there yet: the opener waits for the reader (0), or it cannot be
 * had (-1: poll). */
static int answer_hand_over(struct fifo *f, const char *buf, size_t len, uint64_t composed_us)
{
	/* Without inotify the thread's close would come before the FIFO's
	 * renewal: the loop polls. */
	if (f->opener_failed || f->ino_fd < 0 || fifo_status_follow(f) < 0)
		return -1;
	if (!f->opener.started &&
	    opener_start(&f->opener, f->loop, f->status_pfd, answer_opener_cb, f) < 0) {
		log_warn("cannot start a thread to wait for readers; polling for them instead");
		f->opener_failed = 1;
		return -1;
	}
	if (!f->spare)
		fifo_forget_events(f);
	f->closed_early = 0;
	opener_rename_after(&f->opener, f->dirfd, f->spare ? f->spare_name : NULL);
	/* The end waits for the terminating wait's answer: its delivery is
	 * told at once (nothing else would wake the loop). */
	opener_submit(&f->opener, buf, len, composed_us, f->head->kind == REQUEST_TERMINATE,
		      f->wait_rfd);
	answer_deadline(f);
	return 0;
}

/* ...and on to the next answer: the head is done with. */
static void answer_next(struct fifo *f)
{
	fifo_drop_head(f);
	answer_dispatch(f, FIFO_EV_KICK, -1, 0);
}

/*
 * The transitions, one function each: fn(f, fd, err), fd and err being the
 * opener's (or -1 and 0).
 */

/* IDLE -> RETRY, -> WAIT_CLOSE, or back to IDLE for the next answer. */
static void answer_offer(struct fifo *f, int fd, int err)
{
	char buf[REPORT_RESPONSE_MAX];
	size_t len;

	for (;;) {
		int r;

		if (!f->head || !f->ops->ready(f->ctx, f->head))
			return;
		f->state = FIFO_RETRY;
		f->owed_since_us = now_us();
		/* Without a spare, its reader's close is to be seen. */
		if (fifo_spare_make(f) < 0 && fifo_status_follow(f) == 0)
			fifo_watch(f);
		/* Compose before the first open: meanwhile the client, which has
		 * just written its request, reaches its open of the status FIFO. */
		len = answer_compose(f, buf, sizeof buf);
		r = answer_try_deliver(f, buf, len);
		if (r == 0)
			return;
		if (r < 0)
			break;
	}
	if (answer_hand_over(f, buf, len, f->owed_since_us) == 0)
		return;
	f->retry_ns = FIFO_RETRY_MIN_NS;
	ptimer_arm(&f->retry, f->retry_ns);
}

/* RETRY -> WAIT_CLOSE: the opener wrote the answer; or on, if its reader
 * has gone already. */
static void answer_sent(struct fifo *f, int fd, int err)
{
	int how;

	f->last_taken_us = now_us();
	how = opener_take_renamed(&f->opener);
	if (how) {
		/* Its reader keeps the old FIFO: no close to wait for. */
		fifo_spare_taken(f, how);
		if (err && err != EPIPE)
			log_warnx("write status FIFO: %s", strerror(err));
		answer_next(f);
		return;
	}
	f->wclose_balance--; /* the thread's close, now known */
	if (err == EPIPE) {
		/* The reader came and went before the answer, or has read it
		 * and gone already. */
		answer_next(f);
		return;
	}
	if (err)
		log_warnx("write status FIFO: %s", strerror(err));
	answer_await_close(f);
	if (f->closed_early || f->wclose_balance > 0)
		answer_next(f);
}

/* RETRY: the reader came late, or before a request the loop has not read;
 * it gets figures from when it came. The requests are read first: a
 * terminating wait among them makes the head an orphan's if it is stale
 * (fifo_purge_stale_at: -> IDLE, the head dropped), and then this reader,
 * held, gets the next answer owed (answer_try_deliver), the final one once
 * the program has ended. */
static void answer_late(struct fifo *f, int fd, int err)
{
	char buf[REPORT_RESPONSE_MAX];
	const struct fifo_request *head = f->head;

	if (f->reader_fd >= 0)
		close(f->reader_fd);
	f->reader_fd = fd;
	fifo_read_requests(f);
	/* An answer offered meanwhile went to it (answer_try_deliver takes
	 * the held reader first). */
	if (f->reader_fd < 0)
		return;
	if (f->state == FIFO_RETRY && f->head == head) {
		fd = f->reader_fd;
		f->reader_fd = -1;
		if (answer_deliver_fd(f, fd, buf, 0) == 0)
			return;
	}
	answer_dispatch(f, FIFO_EV_KICK, -1, 0);
}

/* A reader's descriptor for an answer no longer owed. */
static void answer_stray(struct fifo *f, int fd, int err)
{
	if (fd >= 0)
		close(fd);
}

/* RETRY: the thread cannot open the FIFO (no /proc, a descriptor limit):
 * the loop polls for the reader from now on. Or what it opened is not
 * ours: -> IDLE, the answer dropped. */
static void answer_failed(struct fifo *f, int fd, int err)
{
	if (err) {
		log_warnx("the opener cannot open the status FIFO (%s); polling for readers "
			  "instead",
			  strerror(err));
		f->opener_failed = 1;
		f->retry_ns = FIFO_RETRY_MIN_NS;
		ptimer_arm(&f->retry, f->retry_ns);
		return;
	}
	log_warnx("status is not a FIFO of ours; answer dropped");
	answer_next(f);
}

/* RETRY, polling: an open without blocking, the reader to get figures from
 * when it came; else back off, or drop the answer past the deadline. */
static void answer_retry(struct fifo *f, int fd, int err)
{
	char buf[REPORT_RESPONSE_MAX];

	switch (answer_try_deliver(f, buf, 0)) {
	case 0:
		return;
	case 1:
		answer_dispatch(f, FIFO_EV_KICK, -1, 0);
		return;
	}
	if (now_us() - f->owed_since_us > (uint64_t)(FIFO_READER_TIMEOUT * 1e6)) {
		log_warnx("no client opened the status FIFO within %.0fs; answer dropped",
			  FIFO_READER_TIMEOUT);
		answer_next(f);
		return;
	}
	f->retry_ns = f->retry_ns * 2 > FIFO_RETRY_MAX_NS ? FIFO_RETRY_MAX_NS : f->retry_ns * 2;
	ptimer_arm(&f->retry, f->retry_ns);
}

/* RETRY: a reader closed while the opener worked; its answer may be the
 * one it took (answer_sent looks). */
static void answer_early(struct fifo *f, int fd, int err)
{
	if (f->opener.in_flight)
		f->closed_early = 1;
}

/* WAIT_CLOSE -> IDLE: the reader has gone. */
static void answer_done(struct fifo *f, int fd, int err)
{
	answer_next(f);
}

/* RETRY -> IDLE: no reader opened status within the deadline. */
static void answer_drop(struct fifo *f, int fd, int err)
{
	log_warnx("no client opened the status FIFO within %.0fs; answer dropped",
		  FIFO_READER_TIMEOUT);
	answer_next(f);
}

/* The head's answer, into the status FIFO just replaced, for the client
 * that waits on it. No close is waited for: no later answer goes there. */
static void answer_to_old(struct fifo *f, int fd)
{
	char buf[REPORT_RESPONSE_MAX];
	size_t len = answer_compose(f, buf, sizeof buf);
	ssize_t n;

	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len && !(n < 0 && errno == EPIPE))
		log_warn("write status FIFO");
	f->last_taken_us = now_us();
	fifo_pop(f);
}

/* WAIT_CLOSE -> IDLE: the reader holds status past the deadline. It keeps
 * that FIFO, later clients get a fresh one. A client that came meanwhile
 * waits on the old one: it gets the next answer owed there (composed now);
 * the others owed are dropped (but a terminating wait's), as theirs would
 * go to the wrong reader. */
static void answer_stuck(struct fifo *f, int fd, int err)
{
	int old = fifo_replace_status(f);

	if (old < 0) {
		answer_next(f); /* ENXIO: it had gone, unseen */
		return;
	}
	log_warnx("a client held the status FIFO for over %.0fs; it keeps that one, "
		  "later clients get a new one",
		  FIFO_READER_TIMEOUT);
	fifo_drop_head(f);
	/* A request written just now is one of theirs. */
	fifo_read_requests(f);
	if (f->head) {
		fifo_drop_owed(f);
		if (f->ops->ready(f->ctx, f->head))
			answer_to_old(f, old);
	}
	close(old);
	answer_dispatch(f, FIFO_EV_KICK, -1, 0);
}

/*
 * What each event does in each state ("-": nothing), as the supervisor's
 * table (supervise.c). Rows are events, columns states; the C table below
 * is the same, by state, and the unit test test-answer checks that the two
 * agree.
 *
 *              IDLE      RETRY     WAIT_CLOSE
 * request      offer     -         -
 * kick         offer     -         -
 * delivered    -         sent      -
 * late         stray     late      stray
 * failed       -         failed    -
 * retry        -         retry     -
 * close        -         early     done
 * rw-close     -         -         done
 * deadline     -         drop      stuck
 *
 * request: clients wrote to wait; their requests are queued first, in any
 * state (a terminating one drops the answers owed to clients that have
 * gone, the head's too if no reader came for it: fifo_purge_stale_at).
 * kick: the supervisor says the head may be answerable now. offer: while
 * the head can be answered, -> RETRY: compose it, open status without
 * blocking; a reader there gets it (-> WAIT_CLOSE, or on to the next answer
 * if it has gone already); none: the opener thread waits for it, else the
 * retry timer polls. delivered, late, failed: the opener's word. sent: its
 * thread wrote the answer: -> WAIT_CLOSE, or on if the reader has gone (its
 * close came early, or a read-write close counted over our own). late: the
 * reader came more than OPENER_FRESH_US after the answer was composed, or
 * while a request was unread in (or being read from) the wait FIFO: the
 * requests are read first, and the reader gets the head's answer composed
 * now, or, held, the next one owed if a terminating wait dropped the head
 * as stale. The loop's own open reads an unread request first too. stray:
 * a descriptor for an answer no longer owed, closed. failed: the thread
 * cannot open status (poll from now on), or found no FIFO of ours (the
 * answer dropped). retry: the timer's open; past the
 * deadline the answer is dropped. close: a reader closed status
 * (IN_CLOSE_NOWRITE, or events were lost); early: while the opener worked,
 * sent looks at it. done: -> IDLE, on to the next answer. rw-close: an
 * IN_CLOSE_WRITE that is none of our own write ends': a reader that opened
 * status read-write has closed it; in RETRY the opener's own close may be
 * among them unknown, and sent counts them. deadline: FIFO_READER_TIMEOUT.
 * drop: nobody opened status for the answer. stuck: the reader still holds
 * it; a fresh FIFO is renamed over status for later clients, what the
 * reader left unread is thrown away, a client waiting on the old FIFO gets
 * the next answer there, the other answers owed are dropped (a 0's kept).
 *
 * Whatever wakes the loop takes the opener's word first (opener_poll): a
 * delivered answer does not wake it by itself, but for the terminating
 * wait's, which nothing else would (no request follows it, no reader's
 * close is watched once the spare took the name), and which the end waits
 * for.
 */
struct answer_action {
	void (*fn)(struct fifo *f, int fd, int err);
	const char *name;
};

/* A table reads best as one: clang-format would spread it out. */
// clang-format off
#define A(fn, name) {answer_##fn, name}
static const struct answer_action answer_actions[FIFO_N_STATES][FIFO_N_EVENTS] = {
	[FIFO_IDLE] = {
		[FIFO_EV_REQUEST] = A(offer, "offer"),
		[FIFO_EV_KICK] = A(offer, "offer"),
		[FIFO_EV_LATE] = A(stray, "stray"),
	},
	[FIFO_RETRY] = {
		[FIFO_EV_DELIVERED] = A(sent, "sent"),
		[FIFO_EV_LATE] = A(late, "late"),
		[FIFO_EV_FAILED] = A(failed, "failed"),
		[FIFO_EV_RETRY] = A(retry, "retry"),
		[FIFO_EV_CLOSE] = A(early, "early"),
		[FIFO_EV_DEADLINE] = A(drop, "drop"),
	},
	[FIFO_WAIT_CLOSE] = {
		[FIFO_EV_LATE] = A(stray, "stray"),
		[FIFO_EV_CLOSE] = A(done, "done"),
		[FIFO_EV_RW_CLOSE] = A(done, "done"),
		[FIFO_EV_DEADLINE] = A(stuck, "stuck"),
	},
};
#undef A
// clang-format on

/* An action may dispatch in turn (an answer done with kicks the next): each
 * dispatch reads the state as the previous action left it. */
void answer_dispatch(struct fifo *f, enum answer_event ev, int fd, int err)
{
	const struct answer_action *a = &answer_actions[f->state][ev];

	if (a->fn)
		a->fn(f, fd, err);
}

/* The names the table's comment uses, for its unit test. */
const char *answer_state_name(enum fifo_state st)
{
	static const char *const names[FIFO_N_STATES] = {
		[FIFO_IDLE] = "IDLE",
		[FIFO_RETRY] = "RETRY",
		[FIFO_WAIT_CLOSE] = "WAIT_CLOSE",
	};

	return st < FIFO_N_STATES ? names[st] : NULL;
}

const char *answer_event_name(enum answer_event ev)
{
	static const char *const names[FIFO_N_EVENTS] = {
		[FIFO_EV_REQUEST] = "request",     [FIFO_EV_KICK] = "kick",
		[FIFO_EV_DELIVERED] = "delivered", [FIFO_EV_LATE] = "late",
		[FIFO_EV_FAILED] = "failed",       [FIFO_EV_RETRY] = "retry",
		[FIFO_EV_CLOSE] = "close",         [FIFO_EV_RW_CLOSE] = "rw-close",
		[FIFO_EV_DEADLINE] = "deadline",
	};

	return ev < FIFO_N_EVENTS ? names[ev] : NULL;
}

const char *answer_action_name(enum fifo_state st, enum answer_event ev)
{
	const struct answer_action *a =
		st < FIFO_N_STATES && ev < FIFO_N_EVENTS ? &answer_actions[st][ev] : NULL;

	return !a ? NULL : a->fn ? a->name : "-";
}

/*
 * The event sources: each callback only says what happened.
 */

static void answer_opener_cb(void *ctx, enum opener_result r, int fd, int err)
{
	static const enum answer_event ev[] = {
		[OPENER_DELIVERED] = FIFO_EV_DELIVERED,
		[OPENER_LATE] = FIFO_EV_LATE,
		[OPENER_FAILED] = FIFO_EV_FAILED,
	};

	answer_dispatch(ctx, ev[r], fd, err);
}

void answer_ino_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fifo *f = w->data;
	int seen;

	opener_poll(&f->opener);
	seen = fifo_read_events(f);
	if (seen & FIFO_SEEN_CLOSE)
		answer_dispatch(f, FIFO_EV_CLOSE, -1, 0);
	else if (seen & FIFO_SEEN_RW_CLOSE)
		answer_dispatch(f, FIFO_EV_RW_CLOSE, -1, 0);
}

void answer_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct fifo *f = w->data;

	opener_poll(&f->opener);
	/* The opener's word started a deadline of its own (or ended the
	 * wait): this one is past. */
	if (ev_is_active(&f->timeout))
		return;
	answer_dispatch(f, FIFO_EV_DEADLINE, -1, 0);
}

void answer_retry_cb(struct ptimer *t)
{
	answer_dispatch(t->data, FIFO_EV_RETRY, -1, 0);
}
