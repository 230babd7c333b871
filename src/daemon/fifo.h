// SPDX-License-Identifier: ISC
// The two FIFOs: creation, the wait reader and the status writer.
#ifndef PROCTOR_FIFO_H
#define PROCTOR_FIFO_H

#include <ev.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "opener.h"
#include "ptimer.h"
#include "request.h"

struct fifo_request {
	enum request_kind kind;
	unsigned long batch; /* which read() of the wait FIFO it came in */
	uint64_t arrived_us;
	char garbage[REQUEST_GARBAGE_MAX + 1];
	size_t garbage_len;
	struct fifo_request *next;
};

/* Callbacks into the supervisor. */
struct fifo_ops {
	/* A request was read (called in order, before it is queued). */
	void (*request)(void *ctx, const struct fifo_request *req);
	/* Whether req can be answered now (a terminating wait cannot until
	 * the program has ended). */
	int (*ready)(void *ctx, const struct fifo_request *req);
	/* The answer to req is about to be composed: the one moment to bring
	 * the state up to date for it (compose only reads the supervisor's
	 * state; the figures it takes update only the measurement's own
	 * records, measure.h). */
	void (*prepare)(void *ctx, const struct fifo_request *req);
	/* Compose the answer to req into buf; return its length. Called when
	 * its reader has opened the status FIFO. */
	size_t (*compose)(void *ctx, const struct fifo_request *req, char *buf, size_t len);
	/* The answer to a terminating wait has been delivered (or dropped). */
	void (*final_delivered)(void *ctx);
};

enum fifo_state {
	FIFO_IDLE,       /* nothing being answered */
	FIFO_RETRY,      /* an answer is owed, but no reader has opened yet: the
			  * opener waits for it (else a timer retries) */
	FIFO_WAIT_CLOSE, /* answer written, waiting for its reader to leave */
	FIFO_N_STATES
};

/* A reader that has not closed the status FIFO by the deadline may never
 * do so, and while it holds it every later answer would go into its pipe:
 * the status FIFO is then replaced by a fresh one (renamed over it), which
 * later clients open, and the stuck reader keeps the old one. */

/* How long an answer waits for a reader to open the status FIFO, and for that
 * reader to close it again, before proctord gives up on it and moves on.
 * While a reader is awaited, the opener thread waits for it in a blocking
 * open() (opener.h); only if that thread cannot be had does proctord retry its
 * open from FIFO_RETRY_MIN_NS doubling to FIFO_RETRY_MAX_NS: a FIFO gives no
 * event for a reader that is blocked in open(). */
#define FIFO_RETRY_MIN_NS 20000u
/* When a terminating request arrives, an answer still owed to a request of an
 * earlier write belongs to a client that is gone if a reader has taken an
 * answer since that request came (its client moved on without reading), or
 * if it has been owed this long. A client that pipelines in several writes
 * makes them back to back, before it reads; on a loaded machine "back to
 * back" was seen to exceed 100 ms, and dropping a live client's answer
 * hangs it, so the margin is generous. */
#define FIFO_STALE_US 1000000u
#define FIFO_RETRY_MAX_NS 5000000u
#define FIFO_READER_TIMEOUT 2.0
#define FIFO_MAX_PENDING 256

struct fifo {
	struct ev_loop *loop;
	int dirfd;
	uid_t euid;
	char *status_path; /* for messages, and inotify without /proc */
	int created_wait, created_status;
	int wait_rfd, wait_wfd;
	int ino_fd;         /* -1: none could be had (readers' closes are only
			     * needed when no spare FIFO could be made) */
	int status_wd;      /* inotify's watch on the status FIFO in use; -1 until
			     * the first request (a run nobody asks costs no
			     * watch, whose removal at the end is slow) */
	int status_pfd;     /* O_PATH descriptor of the status FIFO */
	dev_t status_dev;   /* ...its device and inode */
	ino_t status_ino;
	int spare;          /* a fresh FIFO waits, at spare_name, to take the
			     * name status after the next answer's write */
	char spare_name[48];
	mode_t spare_mode;  /* ...its mode and group */
	gid_t spare_gid;
	int spare_warned;   /* said that none could be made */
	struct opener opener;
	int opener_failed;  /* the thread cannot be had: poll */
	int closed_early;   /* a reader's close came while the opener worked */
	int wclose_balance; /* IN_CLOSE_WRITE events read, less our own closes
			     * of a write end, since the answer went out: one
			     * over is a read-write reader's close */
	int reader_fd;      /* the status FIFO open for writing, with a reader
			     * that came for an answer given up: the next
			     * answer is its */
	unsigned swaps;     /* status FIFOs replaced (names the next one) */
	pid_t pid;          /* ours, in those names */
	enum fifo_state state;
	uint64_t retry_ns;      /* the next open attempt's delay (backoff) */
	uint64_t owed_since_us; /* when the head became deliverable */
	uint64_t last_taken_us; /* when a reader last took an answer */
	unsigned long batch;    /* reads of the wait FIFO so far */
	int accepting;        /* after a terminating wait, input is discarded */
	int overflowed;       /* warned about dropped requests */
	struct fifo_request *head, *tail;
	size_t pending;
	struct request_parser parser;
	const struct fifo_ops *ops;
	void *ctx;
	ev_io wait_io;
	ev_io ino_io;
	ev_timer timeout;     /* deadline for the reader to leave */
	struct ptimer retry;  /* next attempt to find a reader */
};

/* Create (or reuse) DIR/wait and DIR/status and open them. On failure, err
 * says why and -1 is returned; nothing is left behind. */
int fifo_open(struct fifo *f, struct ev_loop *loop, int dirfd, const char *dirpath,
	      const struct fifo_ops *ops, void *ctx, char *err, size_t errlen);
/* Start serving. */
void fifo_start(struct fifo *f);
/* Try to deliver the next answer (e.g. once the program has ended). */
void fifo_kick(struct fifo *f);
/* Stop, close, and remove the FIFOs proctord created. */
void fifo_close(struct fifo *f);
/* Close the inotify instance: last, after the directory has gone, as it can
 * take milliseconds (the kernel waits out a grace period for its watch). */
void fifo_close_inotify(struct fifo *f);

#endif
