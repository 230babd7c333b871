// SPDX-License-Identifier: ISC
// The two FIFOs: creation, the wait reader and the status writer.
//
// The status writer never blocks. For each answer it opens the status FIFO
// O_RDWR (which never blocks, and wakes a client blocked in its open), learns
// from inotify that a reader's open completed (IN_OPEN), writes the answer in
// one write() and closes, so that the reader sees the answer and then EOF.
// It then waits for that reader's close (IN_CLOSE_NOWRITE) before opening the
// FIFO for the next answer: an answer written while the previous reader still
// holds the pipe would land in a pipe that is about to be discarded.
// Deadlines bound both waits, so a client that never comes or never leaves
// delays others by at most FIFO_READER_TIMEOUT and never stalls proctord.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fifo.h"
#include "log.h"
#include "report.h"
#include "util.h"

static void fifo_deliver(struct fifo *f);

static int fifo_make(int dirfd, const char *name, int *created, char *err, size_t errlen)
{
	struct stat st;

	*created = 0;
	if (mkfifoat(dirfd, name, 0600) == 0) {
		*created = 1;
		return 0;
	}
	if (errno != EEXIST) {
		snprintf(err, errlen, "cannot create FIFO %s: %s", name, strerror(errno));
		return -1;
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		snprintf(err, errlen, "cannot stat %s: %s", name, strerror(errno));
		return -1;
	}
	if (!S_ISFIFO(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a FIFO (%s); refusing to use it", name,
			 S_ISLNK(st.st_mode)  ? "a symbolic link"
			 : S_ISREG(st.st_mode) ? "a regular file"
			 : S_ISDIR(st.st_mode) ? "a directory"
					       : "another kind of file");
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "FIFO %s belongs to uid %u, not to us; refusing to use it",
			 name, (unsigned)st.st_uid);
		return -1;
	}
	return 0;
}

/* Open a FIFO without following links, and check what was opened. */
static int fifo_open_checked(int dirfd, const char *name, int flags, char *err, size_t errlen)
{
	struct stat st;
	int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open FIFO %s: %s", name, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s is not a FIFO of ours; refusing to use it", name);
		close(fd);
		return -1;
	}
	return fd;
}

static void fifo_request_cb(void *ctx, enum request_kind kind, const char *garbage)
{
	struct fifo *f = ctx;
	struct fifo_request *r;

	if (!f->accepting)
		return; /* after the terminating wait: nothing more is answered */
	if (f->pending >= FIFO_MAX_PENDING && kind != REQUEST_TERMINATE) {
		/* Bounded: a flood of requests nobody reads costs nothing. The
		 * terminating wait is always taken. */
		if (!f->overflowed)
			log_warnx("more than %d unanswered requests; dropping further ones",
				  FIFO_MAX_PENDING);
		f->overflowed = 1;
		return;
	}
	f->overflowed = 0;
	r = xcalloc(1, sizeof *r);
	r->kind = kind;
	if (garbage)
		snprintf(r->garbage, sizeof r->garbage, "%s", garbage);
	f->ops->request(f->ctx, r);
	if (kind == REQUEST_TERMINATE)
		f->accepting = 0;
	if (f->tail)
		f->tail->next = r;
	else
		f->head = r;
	f->tail = r;
	f->pending++;
}

static void fifo_wait_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fifo *f = w->data;
	char buf[4096];

	for (;;) {
		ssize_t n = read(f->wait_rfd, buf, sizeof buf);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				log_warn("read wait FIFO");
			break;
		}
		/* We hold a write end ourselves, so n == 0 does not happen;
		 * treat it like EAGAIN should it ever. */
		if (n == 0)
			break;
		request_parse(&f->parser, buf, (size_t)n, fifo_request_cb, f);
		request_flush(&f->parser, fifo_request_cb, f);
	}
	fifo_kick(f);
}

static void fifo_pop(struct fifo *f)
{
	struct fifo_request *r = f->head;

	f->head = r->next;
	if (!f->head)
		f->tail = NULL;
	f->pending--;
	if (r->kind == REQUEST_TERMINATE)
		f->ops->final_delivered(f->ctx);
	free(r);
}

static void fifo_release(struct fifo *f)
{
	if (f->status_fd >= 0) {
		close(f->status_fd);
		f->status_fd = -1;
	}
	ev_timer_stop(f->loop, &f->timeout);
	f->state = FIFO_IDLE;
}

static void fifo_drain_inotify(struct fifo *f)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t n = read(f->ino_fd, buf, sizeof buf);
		char *p;

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		for (p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->mask & IN_Q_OVERFLOW) {
				/* Events were lost: assume the reader came and went,
				 * rather than wait for what will not arrive. */
				f->reader_opens++;
				f->reader_closes++;
			}
			if (ev->mask & IN_OPEN) {
				if (f->own_opens > 0)
					f->own_opens--;
				else
					f->reader_opens++;
			}
			if (ev->mask & IN_CLOSE_NOWRITE)
				f->reader_closes++;
			p += sizeof *ev + ev->len;
		}
	}
}

static void fifo_step(struct fifo *f)
{
	if (f->state == FIFO_WAIT_READER && f->reader_opens > 0)
		fifo_deliver(f);
	if (f->state == FIFO_WAIT_CLOSE && f->reader_closes > 0) {
		fifo_release(f);
		fifo_pop(f);
		fifo_kick(f);
	}
}

static void fifo_ino_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fifo *f = w->data;

	fifo_drain_inotify(f);
	fifo_step(f);
}

static void fifo_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct fifo *f = w->data;

	if (f->state == FIFO_WAIT_READER)
		log_warnx("no reader opened the status FIFO within %.0fs; answer dropped",
			  FIFO_READER_TIMEOUT);
	else if (f->state == FIFO_WAIT_CLOSE)
		log_warnx("a reader held the status FIFO for over %.0fs; moving on",
			  FIFO_READER_TIMEOUT);
	fifo_release(f);
	fifo_pop(f);
	fifo_kick(f);
}

/* A reader is there: compose the answer now, so its figures are as fresh as
 * the client's open, write it, and close our end so the reader sees EOF. */
static void fifo_deliver(struct fifo *f)
{
	char buf[REPORT_RESPONSE_MAX], junk[4096];
	size_t len = f->ops->compose(f->ctx, f->head, buf, sizeof buf);
	ssize_t n;

	/* Bytes a reader left unread would precede this answer: discard them. */
	while (read(f->status_fd, junk, sizeof junk) > 0)
		;
	do
		n = write(f->status_fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != len)
		log_warn("write status FIFO");
	f->reader_closes = 0;
	close(f->status_fd);
	f->status_fd = -1;
	f->state = FIFO_WAIT_CLOSE;
	ev_timer_stop(f->loop, &f->timeout);
	ev_timer_set(&f->timeout, FIFO_READER_TIMEOUT, 0.);
	ev_timer_start(f->loop, &f->timeout);
}

void fifo_kick(struct fifo *f)
{
	char err[256];
	int fd;

	if (f->state != FIFO_IDLE || !f->head || !f->ops->ready(f->ctx, f->head))
		return;
	/* Forget events from earlier readers: only opens from now on count. */
	fifo_drain_inotify(f);
	f->reader_opens = 0;
	f->reader_closes = 0;
	fd = fifo_open_checked(f->dirfd, "status", O_RDWR, err, sizeof err);
	if (fd < 0) {
		log_warnx("%s; answer dropped", err);
		fifo_pop(f);
		fifo_kick(f);
		return;
	}
	f->own_opens++;
	f->status_fd = fd;
	f->state = FIFO_WAIT_READER;
	ev_timer_set(&f->timeout, FIFO_READER_TIMEOUT, 0.);
	ev_timer_start(f->loop, &f->timeout);
}

int fifo_open(struct fifo *f, struct ev_loop *loop, int dirfd, const char *dirpath,
	      const struct fifo_ops *ops, void *ctx, char *err, size_t errlen)
{
	int probe;

	memset(f, 0, sizeof *f);
	f->loop = loop;
	f->dirfd = dirfd;
	f->ops = ops;
	f->ctx = ctx;
	f->wait_rfd = f->wait_wfd = f->status_fd = f->ino_fd = -1;
	f->accepting = 1;
	request_parser_init(&f->parser);

	if (fifo_make(dirfd, "wait", &f->created_wait, err, errlen) < 0)
		goto error;
	if (fifo_make(dirfd, "status", &f->created_status, err, errlen) < 0)
		goto error;
	/* A reader on an existing wait FIFO is another proctord serving it. */
	probe = openat(dirfd, "wait", O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (probe >= 0) {
		close(probe);
		snprintf(err, errlen, "the directory is in use by another proctord");
		goto error;
	}
	f->wait_rfd = fifo_open_checked(dirfd, "wait", O_RDONLY, err, errlen);
	if (f->wait_rfd < 0)
		goto error;
	/* Keep a write end open: without it the last client's close leaves
	 * POLLHUP raised and the loop spins. */
	f->wait_wfd = fifo_open_checked(dirfd, "wait", O_WRONLY, err, errlen);
	if (f->wait_wfd < 0)
		goto error;
	xasprintf(&f->status_path, "%s/status", dirpath);
	f->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (f->ino_fd < 0 ||
	    inotify_add_watch(f->ino_fd, f->status_path, IN_OPEN | IN_CLOSE_NOWRITE) < 0) {
		snprintf(err, errlen, "inotify on %s: %s", f->status_path, strerror(errno));
		goto error;
	}
	ev_io_init(&f->wait_io, fifo_wait_cb, f->wait_rfd, EV_READ);
	f->wait_io.data = f;
	ev_io_init(&f->ino_io, fifo_ino_cb, f->ino_fd, EV_READ);
	f->ino_io.data = f;
	ev_timer_init(&f->timeout, fifo_timeout_cb, FIFO_READER_TIMEOUT, 0.);
	f->timeout.data = f;
	return 0;
error:
	fifo_close(f);
	return -1;
}

void fifo_start(struct fifo *f)
{
	ev_io_start(f->loop, &f->wait_io);
	ev_io_start(f->loop, &f->ino_io);
}

void fifo_close(struct fifo *f)
{
	if (f->loop) {
		ev_io_stop(f->loop, &f->wait_io);
		ev_io_stop(f->loop, &f->ino_io);
		ev_timer_stop(f->loop, &f->timeout);
	}
	while (f->head) {
		struct fifo_request *r = f->head;

		f->head = r->next;
		free(r);
	}
	f->tail = NULL;
	f->pending = 0;
	if (f->status_fd >= 0)
		close(f->status_fd);
	if (f->wait_rfd >= 0)
		close(f->wait_rfd);
	if (f->wait_wfd >= 0)
		close(f->wait_wfd);
	if (f->ino_fd >= 0)
		close(f->ino_fd);
	f->status_fd = f->wait_rfd = f->wait_wfd = f->ino_fd = -1;
	if (f->created_wait)
		unlinkat(f->dirfd, "wait", 0);
	if (f->created_status)
		unlinkat(f->dirfd, "status", 0);
	f->created_wait = f->created_status = 0;
	free(f->status_path);
	f->status_path = NULL;
}
