// SPDX-License-Identifier: ISC
// The program's stdout and stderr under the output limits: pipes that proctord drains, counts and cuts.
//
// Each stream is a pipe from the program to proctord and one buffer of
// OUTPUT_BUF bytes: proctord reads a chunk only once the previous one has
// gone to the destination. A slow destination therefore stops the reading
// (the program then blocks in write(), as it would on a full pipe of its
// own) and never makes proctord buffer more. Nothing here blocks the loop:
// the pipes' read ends are non-blocking; a pipe, FIFO or terminal
// destination is written through an open file description of proctord's own
// with O_NONBLOCK (an inherited one is reopened through /proc/self/fd, so
// the caller's description keeps its flags); a socket is written with
// MSG_DONTWAIT; regular files take writes at once. A FIFO destination
// without a reader is opened with O_NONBLOCK again from a timer (1 ms,
// doubling to 100 ms) until a reader comes.
//
// The sandbox ends with the main process, not at the pipes' end of file: a
// descendant holding the pipe open is killed with the rest of the tree, and
// whatever is left in the pipe is then delivered.
//
// A limit is on one stream (--stdout-limit, --stderr-limit) or on both
// together (--output-limit); a stream keeps the least of what they leave
// it. Past a limit the tree is killed, or with --truncate-output what comes
// after the bytes up to it is read and thrown away at once, even while the
// destination has not yet taken those: the program is never held up by a
// stream it can no longer be heard on.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/openat2.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box.h"
#include "log.h"
#include "output.h"
#include "units.h"
#include "util.h"

static void output_stream_cb(struct ev_loop *loop, ev_io *w, int revents);
static void output_check_done(struct output *o);

/* Where the bytes past a --truncate-output limit go (one loop, one thread). */
static char output_scrap[OUTPUT_BUF];

/* Make fd a destination: decide how to write to it without blocking. Takes
 * ownership of fd. */
static void output_set_dst(struct output_stream *st, int fd)
{
	struct stat sb;

	st->dst = fd;
	if (fstat(fd, &sb) < 0 || S_ISREG(sb.st_mode) || S_ISBLK(sb.st_mode)) {
		st->kind = OUTPUT_FILE;
		return;
	}
	if (S_ISSOCK(sb.st_mode)) {
		st->kind = OUTPUT_SOCKET;
		return;
	}
	if (fcntl(fd, F_GETFL) & O_NONBLOCK) {
		st->kind = OUTPUT_NONBLOCK;
		return;
	}
	/* A pipe, FIFO or character device we did not open ourselves: setting
	 * O_NONBLOCK on it would change the caller's description too (a shell
	 * would find its terminal non-blocking). Open our own. */
	{
		char path[64];
		int own;

		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		own = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (own >= 0) {
			close(fd);
			st->dst = own;
			st->kind = OUTPUT_NONBLOCK;
			return;
		}
		if (errno == ENXIO && S_ISFIFO(sb.st_mode)) {
			/* A pipe whose reader has gone: as for the program
			 * itself, writing to it is EPIPE. */
			st->kind = OUTPUT_NONBLOCK;
			return;
		}
		log_warn("%s: cannot reopen the destination without blocking; writing to it "
			 "may stall proctord",
			 st->name);
		st->kind = OUTPUT_FILE;
	}
}

/* path for writing, never through a link at its name; with no_links
 * through none at all (openat2, where the kernel has it). */
static int output_open_as(const char *path, int no_links)
{
	struct open_how how = {.flags = O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOCTTY |
					O_NOFOLLOW | O_CLOEXEC,
			       .mode = 0644,
			       .resolve = RESOLVE_NO_SYMLINKS};
	int fd = -1;

	if (no_links)
		fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
	if (!no_links || (fd < 0 && errno == ENOSYS))
		fd = open(path, (int)how.flags, (mode_t)how.mode);
	return fd;
}

/* A FIFO at st->path in DIR or a read-write bind: one the program could
 * not have put there (box_fifo_judges, its user's uid), and the very one
 * opened (opened, or NULL while it has no reader). Left there by an
 * earlier run, it would take the output away from the judge. */
static int output_fifo_judges(const struct output_stream *st, const struct stat *opened)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS};
	char *dir = xstrdup(st->path), *slash = strrchr(dir, '/');
	const char *name = strrchr(st->path, '/');
	struct stat ds, fs;
	int dfd, ok;

	name = name ? name + 1 : st->path;
	if (slash)
		slash[slash == dir] = '\0';
	dfd = (int)syscall(SYS_openat2, AT_FDCWD, slash ? dir : ".", &how, sizeof how);
	if (dfd < 0 && errno == ENOSYS)
		dfd = open(slash ? dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	ok = dfd >= 0 && *name && fstat(dfd, &ds) == 0 &&
	     fstatat(dfd, name, &fs, AT_SYMLINK_NOFOLLOW) == 0 &&
	     box_fifo_judges(&ds, &fs, st->uid != (uid_t)-1 ? st->uid : geteuid()) &&
	     (!opened || (opened->st_dev == fs.st_dev && opened->st_ino == fs.st_ino));
	if (dfd >= 0)
		close(dfd);
	return ok;
}

/* Open st->path. Returns 0 (open, or a FIFO without a reader yet: retry) or
 * -1 with errno. */
static int output_open_path(struct output_stream *st)
{
	struct stat sb;
	int fd, saved;

	/* As the program's user, not through a link at the name (one an
	 * earlier run left there), and only what a stream may be. setfsuid
	 * holds for this thread alone. */
	if (st->gid != (gid_t)-1)
		setfsgid(st->gid);
	if (st->uid != (uid_t)-1)
		setfsuid(st->uid);
	fd = output_open_as(st->path, st->no_links);
	saved = errno;
	if (st->uid != (uid_t)-1)
		setfsuid(geteuid());
	if (st->gid != (gid_t)-1)
		setfsgid(getegid());
	errno = saved;
	if (fd >= 0 && (fstat(fd, &sb) < 0 || S_ISDIR(sb.st_mode) || S_ISBLK(sb.st_mode) ||
			S_ISSOCK(sb.st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (fd >= 0 && S_ISFIFO(sb.st_mode) && st->reached && !output_fifo_judges(st, &sb)) {
		close(fd);
		errno = ENXIO;
		return -1;
	}
	if (fd >= 0) {
		free(st->path);
		st->path = NULL;
		output_set_dst(st, fd);
		return 0;
	}
	/* ENXIO: a FIFO nobody reads yet (a socket gives it too: that is an
	 * error). */
	if (errno == ENXIO && stat(st->path, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
		if (!st->reached || output_fifo_judges(st, NULL))
			return 0;
		errno = ENXIO;
	}
	return -1;
}

static int output_stream_open(struct output_stream *st, const struct output_dest *d)
{
	int p[2];

	st->src = st->child_end = st->dst = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	st->src = p[0];
	st->child_end = p[1];
	if (fcntl(st->src, F_SETFL, O_NONBLOCK) < 0)
		return -1;
	st->buf = xmalloc(OUTPUT_BUF);
	st->uid = d->uid;
	st->gid = d->gid;
	st->no_links = d->no_links;
	st->reached = d->reached;
	if (d->path) {
		st->path = xstrdup(d->path);
		if (output_open_path(st) < 0) {
			st->open_err = errno;
			return 0;
		}
	} else {
		int fd = fcntl(d->fd, F_DUPFD_CLOEXEC, 3);

		if (fd < 0) {
			st->open_err = errno;
			return 0;
		}
		output_set_dst(st, fd);
	}
	return 0;
}

int output_open(struct output *o, struct ev_loop *loop, const struct output_limits *lim,
		const struct output_dest *out, const struct output_dest *err)
{
	memset(o, 0, sizeof *o);
	o->loop = loop;
	o->lim = *lim;
	o->s[0].name = "stdout";
	o->s[1].name = "stderr";
	for (int i = 0; i < 2; i++) {
		o->s[i].out = o;
		o->s[i].src = o->s[i].child_end = o->s[i].dst = -1;
		o->s[i].limit = lim->stream[i];
		o->s[i].counted = (i ? err : out) != NULL;
		o->s[i].closed = !o->s[i].counted;
	}
	if ((out && output_stream_open(&o->s[0], out) < 0) ||
	    (err && output_stream_open(&o->s[1], err) < 0)) {
		int saved = errno;

		output_close(o);
		errno = saved;
		return -1;
	}
	return 0;
}

int output_child_fd(const struct output *o, int which)
{
	return o->s[which].child_end;
}

int output_open_error(const struct output *o, int which, const char **path)
{
	*path = o->s[which].path;
	return o->s[which].open_err;
}

static void output_stop_src(struct output_stream *st)
{
	ev_io_stop(st->out->loop, &st->src_io);
}

static void output_close_src(struct output_stream *st)
{
	if (st->src < 0)
		return;
	ev_io_stop(st->out->loop, &st->src_io);
	close(st->src);
	st->src = -1;
}

/* Nothing more goes through this stream: readers of the destination see end
 * of file. */
static void output_close_stream(struct output_stream *st)
{
	struct output *o = st->out;

	output_close_src(st);
	ev_io_stop(o->loop, &st->dst_io);
	ev_timer_stop(o->loop, &st->retry);
	if (st->dst >= 0) {
		close(st->dst);
		st->dst = -1;
	}
	st->off = st->len = 0;
	st->closed = 1;
}

static ssize_t output_write(struct output_stream *st, const char *p, size_t n)
{
	ssize_t w;

	do {
		if (st->kind == OUTPUT_SOCKET)
			w = send(st->dst, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		else
			w = write(st->dst, p, n);
	} while (w < 0 && errno == EINTR);
	return w;
}

enum step {
	STEP_MOVED,   /* some bytes went somewhere: call again */
	STEP_BLOCKED, /* waiting for the destination (or its opening) */
	STEP_IDLE,    /* the pipe is empty */
	STEP_CLOSED,  /* the stream is over */
};

/* Write what is buffered. */
static enum step output_flush(struct output_stream *st)
{
	ssize_t w;

	if (st->off == st->len)
		return STEP_IDLE;
	if (st->dst < 0)
		return STEP_BLOCKED;
	w = output_write(st, st->buf + st->off, st->len - st->off);
	if (w > 0) {
		st->off += (size_t)w;
		if (st->off == st->len)
			st->off = st->len = 0;
		return STEP_MOVED;
	}
	if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return STEP_BLOCKED;
	if (w == 0)
		errno = EIO;
	/* EPIPE (the reader has gone), ENOSPC, EIO...: the destination takes
	 * nothing more. Closing the pipe gives the program EPIPE (or SIGPIPE)
	 * on its next write, as the destination would have. */
	if (w < 0 && errno != EPIPE)
		log_warn("%s", st->name);
	output_close_stream(st);
	return STEP_CLOSED;
}

/* What the stream may still keep: the least of what its own limit and the
 * total leave. */
static uint64_t output_room(const struct output_stream *st)
{
	const struct output *o = st->out;
	uint64_t room = UNITS_UNLIMITED;

	if (st->limit != UNITS_UNLIMITED)
		room = st->limit - st->kept;
	if (o->lim.total != UNITS_UNLIMITED && o->lim.total - o->kept < room)
		room = o->lim.total - o->kept;
	return room;
}

/* The limit that leaves the stream no more than its room: its own first. */
static unsigned output_which(const struct output_stream *st)
{
	if (st->limit != UNITS_UNLIMITED && st->limit - st->kept == output_room(st))
		return st == &st->out->s[0] ? LIMIT_STDOUT : LIMIT_STDERR;
	return LIMIT_OUTPUT;
}

/* Past a limit with --truncate-output: whatever comes is thrown away. */
static int output_discarding(const struct output_stream *st)
{
	return st->out->lim.truncate && output_room(st) == 0;
}

/* n bytes read into st->buf: keep what the limits let through. */
static void output_take(struct output_stream *st, size_t n, int *exceeded)
{
	struct output *o = st->out;
	uint64_t room = output_room(st);

	st->bytes += (uint64_t)n;
	if ((uint64_t)n > room) {
		/* Exactly the bytes up to the limit are delivered. */
		if (o->lim.truncate) {
			o->truncated |= output_which(st);
		} else {
			o->hit = output_which(st);
			o->exceeded = 1;
			*exceeded = 1;
			st->bytes -= (uint64_t)n - room; /* the byte that told */
		}
		n = (size_t)room;
	}
	st->kept += (uint64_t)n;
	o->kept += (uint64_t)n;
	st->off = 0;
	st->len = n;
}

/* One step: write what is buffered, else read the next chunk (past a
 * --truncate-output limit: read and discard, whatever is buffered). */
static enum step output_step(struct output_stream *st, int *exceeded)
{
	struct output *o = st->out;
	enum step r;
	size_t want = OUTPUT_BUF;
	int discard;
	ssize_t n;

	if (st->closed)
		return STEP_CLOSED;
	r = output_flush(st);
	if (r == STEP_MOVED || r == STEP_CLOSED)
		return r;
	if (st->src < 0 || o->exceeded) {
		/* Nothing more will be read. */
		if (r == STEP_IDLE && (st->src < 0 || o->ending)) {
			output_close_stream(st);
			return STEP_CLOSED;
		}
		return r;
	}
	discard = output_discarding(st);
	if (!discard && (r == STEP_BLOCKED || st->dst < 0))
		return STEP_BLOCKED; /* the destination, or a FIFO still waiting for its reader */
	if (!discard && output_room(st) < OUTPUT_BUF)
		want = (size_t)output_room(st) + 1; /* one byte past it tells */
	do
		n = read(st->src, discard ? output_scrap : st->buf, want);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return r; /* EAGAIN */
	if (n == 0) {
		/* Every write end is closed: the program closed its stdout (and
		 * goes on running), or the tree is gone. */
		output_close_src(st);
		if (st->off == st->len) {
			output_close_stream(st);
			return STEP_CLOSED;
		}
		return STEP_MOVED;
	}
	if (discard) {
		st->bytes += (uint64_t)n;
		o->truncated |= output_which(st);
	} else {
		output_take(st, (size_t)n, exceeded);
	}
	return STEP_MOVED;
}

/* ev_io_set needs the watcher stopped; the destination may have been opened
 * (or reopened) since output_start. */
static void output_fix_dst_io(struct output_stream *st)
{
	if (st->dst >= 0 && st->dst_io.fd != st->dst) {
		ev_io_stop(st->out->loop, &st->dst_io);
		ev_io_set(&st->dst_io, st->dst, EV_WRITE);
	}
}

/* Watch what the stream waits for: the destination while a chunk is
 * buffered, the pipe when there is room for the next one (or it is
 * discarded). A FIFO destination still unopened has its timer. */
static void output_arm(struct output_stream *st, enum step r)
{
	struct output *o = st->out;
	int pending = st->off < st->len;

	if (r == STEP_CLOSED || st->closed)
		return;
	if (pending && st->dst >= 0) {
		output_fix_dst_io(st);
		ev_io_start(o->loop, &st->dst_io);
	} else {
		ev_io_stop(o->loop, &st->dst_io);
	}
	if (st->src >= 0 && !o->exceeded &&
	    ((!pending && st->dst >= 0) || output_discarding(st)))
		ev_io_start(o->loop, &st->src_io);
	else
		output_stop_src(st);
}

static void output_stream_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct output_stream *st = w->data;
	struct output *o = st->out;
	int exceeded = 0;
	enum step r = STEP_IDLE;

	/* A few chunks per wake-up, then back to the loop: the other stream
	 * and the wait FIFO get their turn. */
	for (int i = 0; i < 4; i++) {
		r = output_step(st, &exceeded);
		if (r != STEP_MOVED)
			break;
	}
	if (r == STEP_MOVED)
		r = STEP_IDLE; /* more may come: level-triggered, we are called again */
	output_arm(st, r);
	if (exceeded && o->exceeded_cb)
		o->exceeded_cb(o->ctx); /* last: it may come back into output_drain */
	else
		output_check_done(o);
}

static void output_retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct output_stream *st = w->data;

	if (output_open_path(st) < 0) {
		/* The FIFO was removed or replaced meanwhile: nothing can
		 * take the output now. */
		log_warn("%s: %s", st->name, st->path);
		output_close_stream(st);
		output_check_done(st->out);
		return;
	}
	if (st->dst < 0) {
		w->repeat = w->repeat * 2 > OUTPUT_RETRY_MAX ? OUTPUT_RETRY_MAX : w->repeat * 2;
		ev_timer_again(loop, w);
		return;
	}
	ev_timer_stop(loop, w);
	output_arm(st, STEP_IDLE);
}

void output_start(struct output *o, void (*exceeded)(void *ctx), void (*done)(void *ctx),
		  void *ctx)
{
	o->exceeded_cb = exceeded;
	o->done_cb = done;
	o->ctx = ctx;
	for (int i = 0; i < 2; i++) {
		struct output_stream *st = &o->s[i];

		if (st->child_end >= 0) {
			close(st->child_end);
			st->child_end = -1;
		}
		ev_io_init(&st->src_io, output_stream_cb, st->src, EV_READ);
		ev_io_init(&st->dst_io, output_stream_cb, st->dst, EV_WRITE);
		ev_timer_init(&st->retry, output_retry_cb, OUTPUT_RETRY_MIN, OUTPUT_RETRY_MIN);
		st->src_io.data = st->dst_io.data = st->retry.data = st;
		if (!st->counted)
			continue;
		if (st->open_err) {
			/* The program was told (failed stdout): nothing to pump. */
			output_close_stream(st);
			continue;
		}
		if (st->dst < 0)
			ev_timer_start(o->loop, &st->retry);
		output_arm(st, STEP_IDLE);
	}
}

/* --truncate-output: what the pipes still hold, unread while a destination
 * is slow, is the program's all the same; past a limit, it is truncated. */
static void output_foresee(struct output *o)
{
	uint64_t queued[2] = {0, 0};

	if (!o->lim.truncate)
		return;
	for (int i = 0; i < 2; i++) {
		struct output_stream *st = &o->s[i];
		int q = 0;

		if (st->closed || st->src < 0 || ioctl(st->src, FIONREAD, &q) < 0 || q <= 0)
			continue;
		queued[i] = (uint64_t)q;
		if (st->limit != UNITS_UNLIMITED && queued[i] > st->limit - st->kept)
			o->truncated |= i ? LIMIT_STDERR : LIMIT_STDOUT;
	}
	if (o->lim.total != UNITS_UNLIMITED && queued[0] + queued[1] > o->lim.total - o->kept)
		o->truncated |= LIMIT_OUTPUT;
}

int output_drain(struct output *o)
{
	int exceeded = 0;

	for (int i = 0; i < 2; i++) {
		struct output_stream *st = &o->s[i];
		uint64_t budget = 0, start = st->bytes;
		int queued = 0;
		enum step r;

		if (st->closed)
			continue;
		/* What is in the pipe now is what the main process wrote
		 * before it ended; a leftover still writing is being killed,
		 * and must not keep proctord here. */
		if (st->src >= 0 && ioctl(st->src, FIONREAD, &queued) == 0 && queued > 0)
			budget = (uint64_t)queued;
		while ((r = output_step(st, &exceeded)) == STEP_MOVED)
			if (st->bytes - start > budget)
				break;
		output_arm(st, r == STEP_MOVED ? STEP_IDLE : r);
	}
	output_foresee(o);
	return exceeded || o->exceeded;
}

static void output_stall_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct output *o = w->data;

	for (int i = 0; i < 2; i++) {
		if (!o->s[i].closed) {
			log_warnx("%s: the destination took nothing for %.0f s after the program "
				  "ended: %zu bytes not delivered",
				  o->s[i].name, OUTPUT_STALL, o->s[i].len - o->s[i].off);
			output_close_stream(&o->s[i]);
		}
	}
	output_check_done(o);
}

void output_end(struct output *o)
{
	o->ending = 1;
	output_drain(o);
	for (int i = 0; i < 2; i++) {
		struct output_stream *st = &o->s[i];

		/* The tree is gone: once the pipe is empty nothing more can come
		 * (a copy of the write end sent out of the tree does not count). */
		if (!st->closed && (st->dst < 0 || st->off == st->len))
			output_close_stream(st);
	}
	ev_timer_init(&o->stall, output_stall_cb, OUTPUT_STALL, 0);
	o->stall.data = o;
	output_check_done(o);
	if (!o->done)
		ev_timer_start(o->loop, &o->stall);
}

static void output_check_done(struct output *o)
{
	if (o->done || !o->ending)
		return;
	for (int i = 0; i < 2; i++) {
		struct output_stream *st = &o->s[i];

		/* After the end a stream is done once its buffer is out and
		 * the pipe held nothing more. */
		if (!st->closed && st->off == st->len && st->src >= 0) {
			int queued = 0;

			if (ioctl(st->src, FIONREAD, &queued) == 0 && queued == 0)
				output_close_stream(st);
		}
		if (!st->closed)
			return;
	}
	o->done = 1;
	ev_timer_stop(o->loop, &o->stall);
	if (o->done_cb)
		o->done_cb(o->ctx);
}

int output_done(const struct output *o)
{
	return o->done;
}

uint64_t output_total(const struct output *o)
{
	return o->s[0].bytes + o->s[1].bytes;
}

uint64_t output_stream_bytes(const struct output *o, int which)
{
	return o->s[which].counted ? o->s[which].bytes : UNITS_UNLIMITED;
}

unsigned output_hit(const struct output *o)
{
	return o->hit;
}

unsigned output_truncated(const struct output *o)
{
	return o->truncated;
}

void output_close(struct output *o)
{
	for (int i = 0; i < 2; i++) {
		struct output_stream *st = &o->s[i];

		if (o->loop && !st->closed && st->dst >= 0 && st->off < st->len)
			output_flush(st); /* a last try, without blocking */
		if (o->loop)
			output_close_stream(st);
		if (st->child_end >= 0)
			close(st->child_end);
		st->child_end = -1;
		free(st->buf);
		st->buf = NULL;
		free(st->path);
		st->path = NULL;
	}
	if (o->loop)
		ev_timer_stop(o->loop, &o->stall);
}
