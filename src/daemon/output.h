// SPDX-License-Identifier: ISC
// The program's stdout and stderr under the output limits: pipes that proctord drains, counts and cuts.
#ifndef PROCTOR_OUTPUT_H
#define PROCTOR_OUTPUT_H

#include <ev.h>
#include <stddef.h>
#include <stdint.h>

#include "sblimits.h"

/* One chunk of a stream in flight: read from the program's pipe, not yet
 * taken by the destination. Never more than this per stream. */
#define OUTPUT_BUF 65536
/* After the program has ended, a destination that takes nothing for this
 * long (seconds) is given up, so that the terminating wait is answered. */
#define OUTPUT_STALL 2.0
/* A FIFO destination without a reader is opened again after this long,
 * doubling up to the maximum (seconds). */
#define OUTPUT_RETRY_MIN 0.001
#define OUTPUT_RETRY_MAX 0.1

/* Where a stream goes: a path proctord opens (a file is created or
 * truncated, a FIFO waits for its reader), or a descriptor it holds. */
struct output_dest {
	const char *path;
	int fd; /* used when path is NULL; proctord keeps its own copy */
	/* path is opened with the rights of the program's user (setfsuid),
	 * never root's: uid and gid, or (uid_t)-1 and (gid_t)-1 for
	 * proctord's own. */
	uid_t uid;
	gid_t gid;
	int no_links; /* through no symbolic link at all (a box's DIR is the program's) */
	int reached;  /* in DIR or a read-write bind (box_reaches): a FIFO there only
		       * if the program could not have put it there */
};

/* The output limits: bytes of both streams together, of each on its own
 * (UNITS_UNLIMITED: none), and what happens at a limit. */
struct output_limits {
	uint64_t total;     /* --output-limit */
	uint64_t stream[2]; /* --stdout-limit, --stderr-limit */
	int truncate;       /* --truncate-output: keep the bytes up to the limit,
			     * discard the rest, and let the program go on */
};

enum output_kind {
	OUTPUT_NONE,     /* not open (yet, for a FIFO without a reader) */
	OUTPUT_FILE,     /* writes complete at once: regular files, block devices */
	OUTPUT_NONBLOCK, /* a description of our own with O_NONBLOCK: pipes, FIFOs, terminals */
	OUTPUT_SOCKET,   /* send(MSG_DONTWAIT): a socket we cannot reopen */
};

struct output;

struct output_stream {
	struct output *out;
	const char *name;      /* "stdout", "stderr" */
	int src;               /* read end of the program's pipe; -1 once closed */
	int child_end;         /* write end, for the program; -1 once given away */
	int dst;               /* -1 while not open */
	enum output_kind kind;
	char *path;            /* a FIFO still waiting for its reader */
	uid_t uid;             /* whose rights path is opened with (output_dest) */
	gid_t gid;
	int no_links;
	int reached;
	int open_err;          /* the destination cannot be opened: errno */
	char *buf;
	size_t off, len;       /* buf[off..len) is still to be written */
	uint64_t limit;        /* of this stream on its own */
	uint64_t bytes;        /* what the program wrote here, as counted (past a
				* kill's limit: not the byte that told) */
	uint64_t kept;         /* of it, what goes to the destination */
	int counted;           /* the stream passes through proctord */
	int closed;            /* nothing more goes through */
	ev_io src_io, dst_io;
	ev_timer retry;
};

struct output {
	struct ev_loop *loop;
	struct output_limits lim;
	uint64_t kept;         /* bytes of both streams that go to the destinations */
	int exceeded;          /* past a limit (not with lim.truncate): the kill */
	unsigned hit;          /* exceeded: the limit passed, LIMIT_STDOUT... */
	unsigned truncated;    /* lim.truncate: the limits that discarded bytes */
	int ending;            /* the tree is gone: deliver what is left, then close */
	int done;
	void (*exceeded_cb)(void *ctx);
	void (*done_cb)(void *ctx);
	void *ctx;
	ev_timer stall;
	struct output_stream s[2]; /* stdout, stderr */
};

/* Create the pipes and open the destinations; a stream whose destination is
 * NULL does not pass through proctord (no pipe, not counted). A destination
 * that cannot be opened is not an error here: the child reports it as
 * "failed stdout" or "failed stderr" (see output_open_error). Returns 0, or
 * -1 with errno set (no pipe could be made). */
int output_open(struct output *o, struct ev_loop *loop, const struct output_limits *lim,
		const struct output_dest *out, const struct output_dest *err);

/* The write end that becomes the program's descriptor 1 (which 0) or 2
 * (which 1), -1 for a stream that does not pass through proctord; and
 * whether its destination failed to open (errno, path). */
int output_child_fd(const struct output *o, int which);
int output_open_error(const struct output *o, int which, const char **path);

/* After the program has started: let go of the write ends and start
 * pumping. exceeded(ctx) is called once when the limit is passed; done(ctx)
 * once everything is delivered after output_end. */
void output_start(struct output *o, void (*exceeded)(void *ctx), void (*done)(void *ctx),
		  void *ctx);

/* The main process has ended: move what is already in the pipes now, as far
 * as the destinations take it without blocking, so that a file holds all the
 * program wrote before its status is final. Returns 1 if the output has
 * passed the limit, by this drain (exceeded is not called for it) or
 * before it: the exceeded callback may have come while the main process was
 * already a zombie, and found its end first. */
int output_drain(struct output *o);

/* The whole tree has ended: deliver what is left, then close the
 * destinations (readers see end of file). */
void output_end(struct output *o);
int output_done(const struct output *o);
/* Bytes the program wrote to both streams, and to one (UNITS_UNLIMITED for
 * one that does not pass through proctord). */
uint64_t output_total(const struct output *o);
uint64_t output_stream_bytes(const struct output *o, int which);
/* The limit passed (the kill's, LIMIT_STDOUT, LIMIT_STDERR or LIMIT_OUTPUT;
 * 0 if none), and with lim.truncate those that discarded bytes (a set). */
unsigned output_hit(const struct output *o);
unsigned output_truncated(const struct output *o);

void output_close(struct output *o);

#endif
