// SPDX-License-Identifier: ISC
// The two FIFOs: creation, the wait reader, the queue of owed answers and
// the status FIFO itself (followed by descriptor, watched, replaced). How
// an answer reaches its reader is answer.c's.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "answer.h"
#include "fifo-priv.h"
#include "log.h"
#include "util.h"

/* A reader's close, plain or read-write; IN_ATTRIB only parts our own close
 * from a reader's in the queue (opener.c), so that they are not merged. */
#define FIFO_WATCH_MASK (IN_CLOSE_NOWRITE | IN_CLOSE_WRITE | IN_ATTRIB)

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
			 S_ISLNK(st.st_mode)   ? "a symbolic link"
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

static void fifo_close_wait(struct fifo *f);
static int fifo_add_watch(struct fifo *f);
static int fifo_fresh_status(struct fifo *f, const struct stat *st);
static int fifo_fresh_attrs(const struct fifo *f, const char *tmp, const struct stat *st);

void fifo_append(struct fifo *f, struct fifo_request *r)
{
	if (f->tail)
		f->tail->next = r;
	else
		f->head = r;
	f->tail = r;
	f->pending++;
}

static void fifo_request_cb(void *ctx, enum request_kind kind, const char *garbage, size_t len)
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
	if (kind == REQUEST_TERMINATE)
		fifo_purge_stale_at(f, now_us());
	r = xcalloc(1, sizeof *r);
	r->kind = kind;
	r->batch = f->batch;
	r->arrived_us = now_us();
	if (garbage) {
		r->garbage_len = len < REQUEST_GARBAGE_MAX ? len : REQUEST_GARBAGE_MAX;
		memcpy(r->garbage, garbage, r->garbage_len);
	}
	f->ops->request(f->ctx, r);
	if (kind == REQUEST_TERMINATE) {
		f->accepting = 0;
		fifo_close_wait(f);
	}
	fifo_append(f, r);
}

/* Read what clients wrote to the wait FIFO, and queue their requests. */
void fifo_read_requests(struct fifo *f)
{
	char buf[4096];

	/* A reader coming before the stale answers are dropped is the loop's
	 * (opener_reading). */
	opener_reading(&f->opener, 1);
	/* At most 64 KiB per wake-up: a client flooding the FIFO must not keep
	 * the loop from its timers; epoll calls again while data is left. */
	for (int reads = 0; reads < 16 && f->wait_rfd >= 0; reads++) {
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
		f->batch++;
		request_parse(&f->parser, buf, (size_t)n, fifo_request_cb, f);
		request_flush(&f->parser, fifo_request_cb, f);
		/* A read of a pipe takes all it holds up to the size asked:
		 * a short one emptied it, and no read is needed to see that. */
		if ((size_t)n < sizeof buf)
			break;
	}
	opener_reading(&f->opener, 0);
}

static void fifo_wait_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fifo *f = w->data;

	opener_poll(&f->opener);
	fifo_read_requests(f);
	answer_dispatch(f, FIFO_EV_REQUEST, -1, 0);
}

void fifo_pop(struct fifo *f)
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

void fifo_release(struct fifo *f)
{
	int fd = opener_cancel(&f->opener), how;

	if (fd >= 0) {
		if (f->reader_fd >= 0)
			close(f->reader_fd);
		f->reader_fd = fd;
	}
	if (f->opener.wedged)
		f->opener_failed = 1;
	/* A job done but its word not taken may have renamed the spare. */
	how = opener_take_renamed(&f->opener);
	if (how)
		fifo_spare_taken(f, how);
	ptimer_stop(&f->retry);
	ev_timer_stop(f->loop, &f->timeout);
	f->state = FIFO_IDLE;
}

/* The head's reader has gone (or never came), or its answer was dropped. */
void fifo_drop_head(struct fifo *f)
{
	fifo_release(f);
	fifo_pop(f);
}

int fifo_is_stale(const struct fifo *f, const struct fifo_request *r, uint64_t now)
{
	return r->batch < f->batch &&
	       (r->arrived_us < f->last_taken_us || now - r->arrived_us > FIFO_STALE_US);
}

/* Remove from the queue, from *pp on, every request that drop says. */
static void fifo_drop_where(struct fifo *f, struct fifo_request **pp,
			    int (*drop)(const struct fifo *f, const struct fifo_request *r,
					uint64_t now),
			    uint64_t now)
{
	struct fifo_request *r;

	/* *pp is a link of the queue (f->head or a request's next): cppcheck
	 * does not follow it through the callers. */
	// cppcheck-suppress uninitvar
	while ((r = *pp)) {
		if (drop(f, r, now)) {
			*pp = r->next;
			f->pending--;
			free(r);
		} else {
			pp = &r->next;
		}
	}
	f->tail = NULL;
	for (r = f->head; r; r = r->next)
		f->tail = r;
}

/* A terminating wait is the last call: answers owed to earlier clients that
 * no reader has taken would otherwise be read in place of the final one. */
void fifo_purge_stale_at(struct fifo *f, uint64_t now)
{
	struct fifo_request **pp = &f->head;

	if (f->state == FIFO_RETRY && fifo_is_stale(f, f->head, now))
		fifo_release(f);
	if (f->state != FIFO_IDLE && f->head)
		pp = &f->head->next; /* being answered: leave it */
	fifo_drop_where(f, pp, fifo_is_stale, now);
}

/* Identical events may have been merged: only "at least one" is relied on.
 * A reader that opened status read-write closes with IN_CLOSE_WRITE, as our
 * own write ends do: wclose_balance counts those events against our closes,
 * and one left over is a reader's. */
int fifo_read_events(struct fifo *f)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int seen = 0;

	for (;;) {
		ssize_t n = read(f->ino_fd, buf, sizeof buf);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			/* Lost events: assume the reader has gone rather than
			 * wait for a close that will not be reported. A close
			 * of a status FIFO since replaced is another story. */
			if ((ev->mask & IN_Q_OVERFLOW) ||
			    ((ev->mask & IN_CLOSE_NOWRITE) && ev->wd == f->status_wd))
				seen |= FIFO_SEEN_CLOSE;
			if ((ev->mask & IN_CLOSE_WRITE) && ev->wd == f->status_wd)
				f->wclose_balance++;
			p += sizeof *ev + ev->len;
		}
		/* Events are read whole: room left for the largest one means
		 * the queue was emptied. */
		if ((size_t)n + sizeof(struct inotify_event) + NAME_MAX + 1 <= sizeof buf)
			break;
	}
	if (f->wclose_balance > 0)
		seen |= FIFO_SEEN_RW_CLOSE;
	return seen;
}

/* Before an answer goes out: the close events so far are from earlier
 * readers (or ours). */
void fifo_forget_events(struct fifo *f)
{
	fifo_read_events(f);
	f->wclose_balance = 0;
}

/* Our write end on the status FIFO is closed: its IN_CLOSE_WRITE is not a
 * reader's. Read at once, so that a reader's close coming later is not
 * merged with it. */
int fifo_close_own(struct fifo *f, int fd)
{
	close(fd);
	f->wclose_balance--;
	return fifo_read_events(f);
}

/* The watch for readers' closes of the status FIFO, made at the first
 * request. Returns 0, or -1 (said why: then a reader's close is not seen,
 * and each answer waits out FIFO_READER_TIMEOUT). */
int fifo_watch(struct fifo *f)
{
	if (f->status_wd >= 0)
		return 0;
	if (f->ino_fd < 0)
		return -1; /* no instance: each answer renews status instead */
	f->status_wd = fifo_add_watch(f);
	return f->status_wd < 0 ? -1 : 0;
}

/* inotify's watch on the FIFO that status_pfd holds, through that
 * descriptor: its directory may have been renamed since it was made, and a
 * path would then lead elsewhere, or nowhere. Only without /proc, by the
 * path. Returns the watch, or -1 (said why). */
static int fifo_add_watch(struct fifo *f)
{
	char path[64];
	int wd = -1;

	if (f->status_pfd >= 0) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", f->status_pfd);
		/* Followed: the link is the descriptor's own FIFO. */
		wd = inotify_add_watch(f->ino_fd, path, FIFO_WATCH_MASK);
		if (wd >= 0 || errno != ENOENT)
			goto out;
	}
	wd = inotify_add_watch(f->ino_fd, f->status_path, FIFO_WATCH_MASK | IN_DONT_FOLLOW);
out:
	if (wd < 0)
		log_warn("inotify on %s", f->status_path);
	return wd;
}

/* (Re)open status_pfd on what is at the name status now, checked. Returns 0,
 * or -1 (errno set; status_pfd is then -1). */
static int fifo_status_path_fd(struct fifo *f)
{
	struct stat st;

	if (f->status_pfd >= 0)
		close(f->status_pfd);
	f->status_pfd = openat(f->dirfd, "status", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (f->status_pfd < 0)
		return -1;
	if (fstat(f->status_pfd, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_uid != f->euid) {
		close(f->status_pfd);
		f->status_pfd = -1;
		errno = EPERM;
		return -1;
	}
	f->status_dev = st.st_dev;
	f->status_ino = st.st_ino;
	return 0;
}

/* Another FIFO is at the name status (ours, put there when a reader held
 * the old one for too long, or someone's who may write the directory):
 * inotify and the opener follow it. Returns 0, or -1 (it is not a FIFO of
 * ours; the opener is not used). */
int fifo_status_moved(struct fifo *f)
{
	int wd;

	if (fifo_status_path_fd(f) < 0)
		return -1;
	if (f->status_wd >= 0) {
		/* inotify watches an inode: follow the new one, forget the old. */
		wd = fifo_add_watch(f);
		if (f->status_wd != wd)
			inotify_rm_watch(f->ino_fd, f->status_wd);
		f->status_wd = wd;
	}
	opener_set_path(&f->opener, f->status_pfd);
	return 0;
}

/* Whether what is at the name status now is the FIFO we follow. */
int fifo_status_is(const struct fifo *f, const struct stat *st)
{
	return f->status_pfd >= 0 && st->st_dev == f->status_dev && st->st_ino == f->status_ino;
}

/* Before the opener waits on it: the FIFO at the name status. Returns 0, or
 * -1 (none fit). */
int fifo_status_follow(struct fifo *f)
{
	struct stat st;

	if (fstatat(f->dirfd, "status", &st, AT_SYMLINK_NOFOLLOW) == 0 && fifo_status_is(f, &st)) {
		fifo_spare_fit(f, &st);
		return 0;
	}
	return fifo_status_moved(f);
}

/* Empty the pipe of the status FIFO a reader has held past its deadline:
 * what it left unread is not to be read by a client waiting on that FIFO as
 * (part of) its own answer. */
static void fifo_drain_stuck(struct fifo *f)
{
	char buf[PIPE_BUF];
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(f->dirfd, "status", O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && fifo_status_is(f, &st))
		do
			n = read(fd, buf, sizeof buf);
		while (n > 0 || (n < 0 && errno == EINTR));
	close(fd);
}

/* Put a fresh status FIFO in place of the one a reader holds and may hold
 * for ever: later clients open the new one, and answers no longer go into
 * the stuck reader's pipe. Returns the old one open for writing (the
 * clients that came meanwhile wait on it), or -1: not replaced (ENXIO: the
 * reader has gone after all). */
int fifo_replace_status(struct fifo *f)
{
	struct stat st;
	int old;

	fifo_drain_stuck(f);
	/* Our own write end on the old FIFO, which lets go the clients that
	 * came meanwhile and wait in their open() (or poll) on it. */
	old = openat(f->dirfd, "status", O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (old < 0)
		return -1;
	if (fstat(old, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_uid != f->euid) {
		close(old);
		return -1;
	}
	if (fifo_fresh_status(f, &st) < 0) {
		close(old);
		return -1;
	}
	return old;
}

/* Give the fresh FIFO tmp st's mode and group (a directory shared with a
 * group of clients; mkfifo applied the umask), through a descriptor: what
 * is at the name tmp by then may not be ours. Returns 0, or -1. */
static int fifo_fresh_attrs(const struct fifo *f, const char *tmp, const struct stat *st)
{
	struct stat now;
	int fd = openat(f->dirfd, tmp, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	int rc = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &now) == 0 && S_ISFIFO(now.st_mode) && now.st_uid == f->euid &&
	    fchmod(fd, st->st_mode & 07777) == 0 &&
	    (fchown(fd, (uid_t)-1, st->st_gid) == 0 || errno == EPERM))
		rc = 0;
	close(fd);
	return rc;
}

/* Rename a fresh FIFO, with st's mode and group, over the name status, and
 * follow it. Returns 0, or -1 (said why; status is as it was). */
static int fifo_fresh_status(struct fifo *f, const struct stat *st)
{
	char tmp[64];

	for (int tries = 0;; tries++) {
		snprintf(tmp, sizeof tmp, ".status.%ld.%u", (long)f->pid, f->swaps++);
		if (mkfifoat(f->dirfd, tmp, 0600) == 0)
			break;
		if (errno != EEXIST || tries == 16) {
			log_warn("cannot create a new status FIFO");
			return -1;
		}
	}
	if (fifo_fresh_attrs(f, tmp, st) < 0 || renameat(f->dirfd, tmp, f->dirfd, "status") < 0) {
		log_warn("cannot put a new status FIFO in place");
		unlinkat(f->dirfd, tmp, 0);
		return -1;
	}
	fifo_status_moved(f);
	return 0;
}

/* The spare's name back to nothing. */
static void fifo_spare_drop(struct fifo *f)
{
	if (f->spare_name[0])
		unlinkat(f->dirfd, f->spare_name, 0);
	f->spare = 0;
	f->spare_name[0] = '\0';
}

/* The FIFO at spare_name, status until the last answer, may be used again
 * once nobody holds it: no reader (a read-write one is a reader too), so
 * its pipe is gone with what was left in it. Returns 1 if so; else its
 * name is let go (its reader keeps it) and 0. */
static int fifo_spare_reuse(struct fifo *f)
{
	int fd;

	if (!f->spare_name[0])
		return 0;
	fd = openat(f->dirfd, f->spare_name, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENXIO)
		return 1;
	if (fd >= 0)
		close(fd);
	fifo_spare_drop(f);
	return 0;
}

/* Before an answer is offered: the FIFO that is to take the name status
 * once the answer is written, before our end is closed. Its reader then
 * keeps the old FIFO to itself, and no later answer can go into that pipe,
 * whenever and however it closes: no close is waited for. The FIFO that
 * was status before, once its reader has gone, else a fresh one. No
 * descriptor is kept of it (what is at the name status is checked at each
 * answer's open, as ever). Returns 0, or -1 (said once: readers' closes
 * are waited for instead). */
int fifo_spare_make(struct fifo *f)
{
	struct stat st;

	if (f->spare)
		return 0;
	if (!fifo_spare_reuse(f)) {
		for (int tries = 0;; tries++) {
			snprintf(f->spare_name, sizeof f->spare_name, ".status.%ld.%u",
				 (long)f->pid, f->swaps++);
			if (mkfifoat(f->dirfd, f->spare_name, 0600) == 0)
				break;
			if (errno != EEXIST || tries == 16) {
				f->spare_name[0] = '\0';
				goto fail;
			}
		}
	}
	f->spare = 1;
	if (fstatat(f->dirfd, f->spare_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISFIFO(st.st_mode) || st.st_uid != f->euid) {
		fifo_spare_drop(f);
		goto fail;
	}
	f->spare_mode = st.st_mode & 07777;
	f->spare_gid = st.st_gid;
	return 0;
fail:
	if (!f->spare_warned)
		log_warn("cannot make a fresh status FIFO; waiting for each reader to close "
			 "instead");
	f->spare_warned = 1;
	return -1;
}

/* st is what is at the name status now: the spare gets its mode and group
 * (a group of clients, or a mode set after the start). Nothing to do but
 * when they differ. */
void fifo_spare_fit(struct fifo *f, const struct stat *st)
{
	if (!f->spare || ((st->st_mode & 07777) == f->spare_mode && st->st_gid == f->spare_gid))
		return;
	if (fifo_fresh_attrs(f, f->spare_name, st) < 0) {
		fifo_spare_drop(f);
		return;
	}
	f->spare_mode = st->st_mode & 07777;
	f->spare_gid = st->st_gid;
}

/* The spare has taken the name status (how: opener_swap_status's 1, the old
 * one now at spare_name, or 2, unlinked), by us or by the opener. The FIFO
 * followed is now known only by the name: status_pfd is made again when
 * the opener needs it (fifo_status_follow). A watch on the old one is no
 * longer needed. */
void fifo_spare_taken(struct fifo *f, int how)
{
	f->spare = 0;
	if (how != 1)
		f->spare_name[0] = '\0';
	if (f->status_pfd >= 0)
		close(f->status_pfd);
	f->status_pfd = -1;
	if (f->status_wd >= 0)
		inotify_rm_watch(f->ino_fd, f->status_wd);
	f->status_wd = -1;
	opener_set_path(&f->opener, -1);
}

/* The answer is written, our end still open: the spare takes the name
 * status. Returns 0, or -1 (none, or said why). */
int fifo_spare_install(struct fifo *f)
{
	int how;

	if (!f->spare)
		return -1;
	how = opener_swap_status(f->dirfd, f->spare_name);
	if (how < 0) {
		log_warn("cannot put a fresh status FIFO in place");
		fifo_spare_drop(f);
		return -1;
	}
	fifo_spare_taken(f, how);
	return 0;
}

/* The answers owed when the status FIFO was replaced were for clients that
 * opened the old one (or have gone): delivered on the new one, each would
 * wait out its deadline, or be read by the wrong client. The terminating
 * wait is kept: it ends proctord, delivered or not. */
static int fifo_owed_pred(const struct fifo *f, const struct fifo_request *r, uint64_t now)
{
	(void)f;
	(void)now;
	return r->kind != REQUEST_TERMINATE;
}

void fifo_drop_owed(struct fifo *f)
{
	fifo_drop_where(f, &f->head->next, fifo_owed_pred, 0);
}

void fifo_kick(struct fifo *f)
{
	answer_dispatch(f, FIFO_EV_KICK, -1, 0);
}

/* Without an inotify instance, a reader's close cannot be seen, should no
 * fresh status FIFO be had for an answer; and readers are polled for, not
 * awaited by the opener thread. */
static void fifo_no_inotify(int err)
{
	if (err == EMFILE)
		/* EMFILE is also a full descriptor table, but proctord has a
		 * handful open here: it is the per-user limit. */
		log_warnx("this user has no inotify instance left "
			  "(fs.inotify.max_user_instances); each answer gets a fresh status "
			  "FIFO instead");
	else
		log_warnx("inotify: %s; each answer gets a fresh status FIFO instead",
			  strerror(err));
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
	f->wait_rfd = f->wait_wfd = f->ino_fd = f->status_wd = f->status_pfd = f->reader_fd = -1;
	f->retry.fd = -1;
	f->euid = geteuid();
	f->pid = getpid();
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
	if (f->ino_fd < 0)
		fifo_no_inotify(errno);
	if (fifo_status_path_fd(f) < 0) {
		snprintf(err, errlen, "status is not a FIFO of ours; refusing to use it");
		goto error;
	}
	ev_io_init(&f->wait_io, fifo_wait_cb, f->wait_rfd, EV_READ);
	f->wait_io.data = f;
	ev_io_init(&f->ino_io, answer_ino_cb, f->ino_fd, EV_READ);
	f->ino_io.data = f;
	ev_timer_init(&f->timeout, answer_timeout_cb, FIFO_READER_TIMEOUT, 0.);
	f->timeout.data = f;
	if (ptimer_init(&f->retry, loop, answer_retry_cb, f) < 0) {
		snprintf(err, errlen, "timerfd: %s", strerror(errno));
		goto error;
	}
	return 0;
error:
	fifo_close(f);
	return -1;
}

/* The terminating wait is the last call: from now on a client must find no
 * wait FIFO (ENOENT) or no reader (ENXIO) at once, rather than write a
 * request nobody will answer and wait for its timeout. */
static void fifo_close_wait(struct fifo *f)
{
	opener_forget_wait(&f->opener);
	ev_io_stop(f->loop, &f->wait_io);
	if (f->created_wait)
		unlinkat(f->dirfd, "wait", 0);
	f->created_wait = 0;
	if (f->wait_rfd >= 0)
		close(f->wait_rfd);
	if (f->wait_wfd >= 0)
		close(f->wait_wfd);
	f->wait_rfd = f->wait_wfd = -1;
}

void fifo_start(struct fifo *f)
{
	ev_io_start(f->loop, &f->wait_io);
	if (f->ino_fd >= 0)
		ev_io_start(f->loop, &f->ino_io);
}

void fifo_close(struct fifo *f)
{
	opener_close(&f->opener);
	if (f->loop) {
		ev_io_stop(f->loop, &f->wait_io);
		ev_io_stop(f->loop, &f->ino_io);
		ev_timer_stop(f->loop, &f->timeout);
	}
	ptimer_close(&f->retry);
	/* The kernel frees the watch after a grace period: from now on, while
	 * the rest is cleaned up, rather than in fifo_close_inotify. */
	if (f->status_wd >= 0)
		inotify_rm_watch(f->ino_fd, f->status_wd);
	f->status_wd = -1;
	if (f->status_pfd >= 0)
		close(f->status_pfd);
	f->status_pfd = -1;
	fifo_spare_drop(f);
	if (f->reader_fd >= 0)
		close(f->reader_fd);
	f->reader_fd = -1;
	while (f->head) {
		struct fifo_request *r = f->head;

		f->head = r->next;
		free(r);
	}
	f->tail = NULL;
	f->pending = 0;
	if (f->wait_rfd >= 0)
		close(f->wait_rfd);
	if (f->wait_wfd >= 0)
		close(f->wait_wfd);
	f->wait_rfd = f->wait_wfd = -1;
	if (f->created_wait)
		unlinkat(f->dirfd, "wait", 0);
	if (f->created_status)
		unlinkat(f->dirfd, "status", 0);
	f->created_wait = f->created_status = 0;
	free(f->status_path);
	f->status_path = NULL;
}

void fifo_close_inotify(struct fifo *f)
{
	if (f->ino_fd >= 0)
		close(f->ino_fd);
	f->ino_fd = -1;
}
