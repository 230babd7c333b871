// SPDX-License-Identifier: ISC
// The status FIFO's opener: a thread that waits in a blocking open() for the
// reader an answer is owed to, and hands it the answer the moment it comes.
//
// A FIFO gives no event for a reader blocked in its open(): only a writer
// blocked in its own open() is woken when one comes (a bare FIFO server
// does exactly that). The loop must never block, so when a client has
// written its request but not yet opened the status FIFO, the loop hands the
// composed answer to this thread, which blocks in open() for it, writes it
// and closes, then tells the loop through an eventfd. Before it, the loop
// retried a non-blocking open from a timer, and a real-time proctord woke
// ahead of its client every time: the answer waited for the retry.
//
// The thread opens the FIFO through an O_PATH descriptor the loop holds
// (/proc/self/fd/N), so the loop can always reach the same FIFO: to give up
// a job (no reader within the deadline, the end), it sets cancel and opens
// that FIFO for reading itself, which lets the thread's open() return.
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "opener.h"
#include "util.h"

static void opener_fd_path(const struct opener *o, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/self/fd/%d", o->path_fd);
}

int opener_swap_status(int dirfd, const char *spare)
{
	/* The two names swapped: no inode made or freed, no unlinked FIFO to
	 * keep, the old one kept for reuse once its reader has gone. */
	if (renameat2(dirfd, spare, dirfd, "status", RENAME_EXCHANGE) == 0)
		return 1;
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return -1;
	/* A file system without the exchange. */
	return renameat(dirfd, spare, dirfd, "status") == 0 ? 2 : -1;
}

int opener_reader_gone(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR);
}

/* After our close of a write end: an event (IN_ATTRIB) behind its
 * IN_CLOSE_WRITE in the loop's inotify queue, which the loop reads later.
 * Without it, a read-write reader's close that comes meanwhile would be
 * merged with ours, and not be seen. */
static void opener_mark(const struct opener *o, mode_t mode)
{
	char path[64];

	opener_fd_path(o, path, sizeof path);
	/* Should it fail, a merged close costs that reader's successor one
	 * deadline (fifo.c), and no more: not worth a word per answer. */
	(void)chmod(path, mode & 07777);
}

/* A fast client writes its request and opens status at once: a terminating
 * wait 1.5 s after a client that wrote 1 and vanished got that client's
 * "running" (2 of 6 times with a C client), as the loop had not yet read
 * the 0 that makes it an orphan's (fifo_purge_stale_at). So a request
 * unread in the wait FIFO, or being read, sends the reader to the loop.
 * poll() only: the loop reads it. */
int opener_unread(int wait_fd)
{
	struct pollfd pfd = {.fd = wait_fd, .events = POLLIN};

	return wait_fd >= 0 && poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
}

/* With the lock held and an open descriptor on the FIFO: deliver, or hand
 * the descriptor over. */
static void opener_finish(struct opener *o, int fd)
{
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_uid != o->euid) {
		close(fd);
		o->result = OPENER_FAILED;
		o->result_err = 0;
		return;
	}
	/* Never block on it: a pipe some reader leaves full would hold the
	 * writer, and every later answer with it. */
	fcntl(fd, F_SETFL, O_WRONLY | O_NONBLOCK);
	if (now_us() - o->composed_us > OPENER_FRESH_US || o->reading || opener_unread(o->wait_fd)) {
		o->result = OPENER_LATE;
		o->result_fd = fd;
		return;
	}
	/* The reader keeps this FIFO to itself: the name goes to a fresh one
	 * before the write (a read-write reader may leave as soon as it has
	 * read, and the next client must not open this one), and no close is
	 * to be waited for. */
	if (o->rename_from[0]) {
		o->renamed = opener_swap_status(o->rename_dirfd, o->rename_from);
		if (o->renamed < 0)
			o->renamed = 0;
	}
	do
		n = write(fd, o->buf, o->len);
	while (n < 0 && errno == EINTR);
	o->result = OPENER_DELIVERED;
	o->result_err = n < 0 ? errno : n != (ssize_t)o->len ? EAGAIN : 0;
	if (o->renamed > 0) {
		close(fd);
		return;
	}
	/* A read-write reader needs no end of file: it may have read and
	 * gone already, and its close would be merged with ours. */
	if (o->result_err == 0 && opener_reader_gone(fd))
		o->result_err = EPIPE;
	close(fd);
	opener_mark(o, st.st_mode);
}

static void *opener_main(void *arg)
{
	struct opener *o = arg;
	char path[64];

	pthread_mutex_lock(&o->lock);
	for (;;) {
		int fd, err, notify;

		while (!o->quit && (!o->job || o->done))
			pthread_cond_wait(&o->cond, &o->lock);
		if (o->quit)
			break;
		fd = -1;
		err = 0;
		if (!o->cancel) {
			opener_fd_path(o, path, sizeof path);
			pthread_mutex_unlock(&o->lock);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			err = errno;
			pthread_mutex_lock(&o->lock);
		}
		if (o->cancel) {
			/* A reader may be there besides the canceller's own:
			 * closing would give it an empty answer. */
			if (fd >= 0)
				fcntl(fd, F_SETFL, O_WRONLY | O_NONBLOCK);
			o->result = OPENER_LATE;
			o->result_fd = fd;
		} else if (fd < 0) {
			o->result = OPENER_FAILED;
			o->result_err = err;
		} else {
			opener_finish(o, fd);
		}
		o->job = 0;
		o->done = 1;
		pthread_cond_broadcast(&o->cond);
		/* A delivered answer needs nothing of the loop at once: the
		 * next request, or the deadline, wakes it, and it takes the
		 * result then (opener_poll). Waking it now would put it
		 * between the reader and its answer, on the reader's CPU.
		 * But for the terminating wait's (want_word from the start):
		 * no request comes after it, the spare took the name status
		 * so no reader's close is watched, and proctord's end would
		 * wait out the deadline. */
		notify = !o->cancel && (o->result != OPENER_DELIVERED || o->want_word);
		pthread_mutex_unlock(&o->lock);
		if (notify)
			eventfd_write(o->event_fd, 1);
		pthread_mutex_lock(&o->lock);
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

/* The result of the job in flight, taken with the lock held. */
static void opener_take(struct opener *o, enum opener_result *r, int *fd, int *err)
{
	*r = o->result;
	*fd = o->result == OPENER_LATE ? o->result_fd : -1;
	*err = o->result_err;
	o->done = 0;
	o->in_flight = 0;
}

int opener_poll(struct opener *o)
{
	enum opener_result r;
	int fd, err, done;

	if (!o->started || o->wedged || !o->in_flight)
		return 0;
	pthread_mutex_lock(&o->lock);
	/* A cancelled job's word comes too: nothing is in flight then. */
	done = o->in_flight && o->done && !o->cancel;
	if (done)
		opener_take(o, &r, &fd, &err);
	else
		o->want_word = 1; /* the loop asked too early: it is told */
	pthread_mutex_unlock(&o->lock);
	if (done)
		o->cb(o->ctx, r, fd, err);
	return done;
}

static void opener_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct opener *o = w->data;
	eventfd_t count;

	eventfd_read(o->event_fd, &count);
	opener_poll(o);
}

int opener_start(struct opener *o, struct ev_loop *loop, int path_fd, opener_cb cb, void *ctx)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int rc;

	memset(o, 0, sizeof *o);
	o->loop = loop;
	o->path_fd = path_fd;
	o->cb = cb;
	o->ctx = ctx;
	o->euid = geteuid();
	o->cancel_fd = -1;
	o->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (o->event_fd < 0)
		return -1;
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->cond, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)64 * 1024);
	/* Signals are the loop's (its signalfd): none for the thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&o->thread, &attr, opener_main, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		pthread_mutex_destroy(&o->lock);
		pthread_cond_destroy(&o->cond);
		close(o->event_fd);
		o->event_fd = -1;
		errno = rc;
		return -1;
	}
	/* SCHED_RESET_ON_FORK gave the thread a normal policy: it must wake as
	 * soon as the reader comes, as the loop would. */
	if (sched_getscheduler(0) == SCHED_FIFO) {
		struct sched_param sp;

		if (sched_getparam(0, &sp) == 0)
			pthread_setschedparam(o->thread, SCHED_FIFO, &sp);
	}
	o->started = 1;
	ev_io_init(&o->io, opener_io_cb, o->event_fd, EV_READ);
	o->io.data = o;
	ev_io_start(loop, &o->io);
	return 0;
}

void opener_set_path(struct opener *o, int path_fd)
{
	if (!o->started || o->wedged)
		return;
	pthread_mutex_lock(&o->lock);
	o->path_fd = path_fd;
	pthread_mutex_unlock(&o->lock);
}

void opener_submit(struct opener *o, const char *buf, size_t len, uint64_t composed_us, int wake,
		   int wait_fd)
{
	pthread_mutex_lock(&o->lock);
	if (len > sizeof o->buf)
		len = sizeof o->buf;
	memcpy(o->buf, buf, len);
	o->len = len;
	o->composed_us = composed_us;
	o->wait_fd = wait_fd;
	o->renamed = 0;
	o->cancel = 0;
	o->done = 0;
	o->want_word = wake;
	o->job = 1;
	o->in_flight = 1;
	pthread_cond_broadcast(&o->cond);
	pthread_mutex_unlock(&o->lock);
}

void opener_reading(struct opener *o, int on)
{
	if (!o->started || o->wedged)
		return;
	pthread_mutex_lock(&o->lock);
	o->reading = on;
	pthread_mutex_unlock(&o->lock);
}

void opener_forget_wait(struct opener *o)
{
	if (!o->started || o->wedged)
		return;
	pthread_mutex_lock(&o->lock);
	o->wait_fd = -1;
	pthread_mutex_unlock(&o->lock);
}

void opener_rename_after(struct opener *o, int dirfd, const char *spare)
{
	pthread_mutex_lock(&o->lock);
	o->rename_dirfd = dirfd;
	snprintf(o->rename_from, sizeof o->rename_from, "%s", spare ? spare : "");
	pthread_mutex_unlock(&o->lock);
}

int opener_take_renamed(struct opener *o)
{
	int r;

	if (!o->started)
		return 0;
	pthread_mutex_lock(&o->lock);
	r = o->renamed;
	o->renamed = 0;
	pthread_mutex_unlock(&o->lock);
	return r;
}

/* Wait up to a second for the job in flight to end, with the lock held.
 * Returns 0, or -1 if it has not. */
static int opener_wait_done(struct opener *o)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	while (!o->done)
		if (pthread_cond_timedwait(&o->cond, &o->lock, &until) == ETIMEDOUT)
			return o->done ? 0 : -1;
	return 0;
}

int opener_cancel(struct opener *o)
{
	struct pollfd pfd;
	char path[64];
	int wedged = 0, fd = -1;

	if (!o->started || o->wedged || !o->in_flight)
		return -1;
	pthread_mutex_lock(&o->lock);
	if (!o->done) {
		o->cancel = 1;
		opener_fd_path(o, path, sizeof path);
		pthread_mutex_unlock(&o->lock);
		/* Our own reader: the thread's open() returns, if it is in
		 * one, or finds one at once. */
		o->cancel_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		pthread_mutex_lock(&o->lock);
		wedged = opener_wait_done(o) < 0;
	}
	if (o->done && o->result == OPENER_LATE)
		fd = o->result_fd;
	o->done = 0;
	o->in_flight = 0;
	pthread_mutex_unlock(&o->lock);
	if (o->cancel_fd >= 0)
		close(o->cancel_fd);
	o->cancel_fd = -1;
	/* A reader left (POLLERR: none) is a client waiting for an answer. */
	if (fd >= 0) {
		pfd.fd = fd;
		pfd.events = 0;
		if (poll(&pfd, 1, 0) != 0) {
			close(fd);
			fd = -1;
		}
	}
	if (wedged) {
		/* Not reachable but by someone who broke the FIFO under us:
		 * the thread is left in its open(), and not used again. */
		log_warnx("the status FIFO's opener did not return; answers are now polled for");
		ev_io_stop(o->loop, &o->io);
		pthread_detach(o->thread);
		o->wedged = 1;
	}
	return fd;
}

void opener_close(struct opener *o)
{
	int fd;

	if (!o->started)
		return;
	fd = opener_cancel(o);
	if (fd >= 0)
		close(fd);
	if (o->wedged)
		return; /* left behind, with what it uses */
	pthread_mutex_lock(&o->lock);
	o->quit = 1;
	pthread_cond_broadcast(&o->cond);
	pthread_mutex_unlock(&o->lock);
	pthread_join(o->thread, NULL);
	ev_io_stop(o->loop, &o->io);
	close(o->event_fd);
	o->event_fd = -1;
	pthread_mutex_destroy(&o->lock);
	pthread_cond_destroy(&o->cond);
	o->started = 0;
}
