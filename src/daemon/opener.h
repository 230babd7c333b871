// SPDX-License-Identifier: ISC
// The status FIFO's opener: a thread that waits in a blocking open() for the
// reader an answer is owed to, and hands it the answer the moment it comes.
#ifndef PROCTOR_OPENER_H
#define PROCTOR_OPENER_H

#include <ev.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "status.h"

/* An answer composed this long before its reader came is delivered as it
 * is; a reader that comes later gets one composed when it came. */
#define OPENER_FRESH_US 1000u

enum opener_result {
	OPENER_DELIVERED, /* written and closed; err is the write's errno (EPIPE:
			   * the reader had gone, before the write or right
			   * after it) or 0 */
	OPENER_LATE,      /* the reader came late, or a request was still
			   * unread in the wait FIFO when it came: fd is open
			   * for the caller to write a fresh answer into and
			   * close */
	OPENER_FAILED,    /* the open failed, or what it opened is not a FIFO of
			   * ours: err says why (0: not ours) */
};

typedef void (*opener_cb)(void *ctx, enum opener_result r, int fd, int err);

struct opener {
	struct ev_loop *loop;
	pthread_t thread;
	int started;    /* the thread runs */
	int wedged;     /* a cancelled open() did not return: not used again */
	int in_flight;  /* a job was submitted and its result not yet taken */
	int event_fd;   /* the thread's word to the loop */
	int cancel_fd;  /* our own reader, which lets a cancelled open return */
	uid_t euid;
	opener_cb cb;
	void *ctx;
	ev_io io;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* Under lock. */
	int path_fd; /* O_PATH descriptor of the status FIFO to open */
	int job, cancel, quit, done;
	int want_word; /* the loop polled before the result: tell it by event_fd */
	enum opener_result result;
	int result_fd, result_err;
	uint64_t composed_us;
	int wait_fd;          /* the wait FIFO's read end, polled only (-1) */
	int reading;          /* the loop is reading requests from it */
	int rename_dirfd;     /* the job's spare: renamed over status in that */
	char rename_from[48]; /* directory before the write ("": none) */
	int renamed;          /* it was (opener_swap_status's 1 or 2): the loop
			       * follows the new status */
	size_t len;
	char buf[REPORT_RESPONSE_MAX];
};

/* Start the thread. Returns 0, or -1 with errno set (then the caller polls
 * as before). */
int opener_start(struct opener *o, struct ev_loop *loop, int path_fd, opener_cb cb, void *ctx);
/* The status FIFO was replaced: open this one from now on (no job may be in
 * flight). */
void opener_set_path(struct opener *o, int path_fd);
/* Open the status FIFO (blocking, in the thread) and deliver buf there,
 * composed at composed_us; cb is called from the loop once it is done. A
 * delivered answer wakes the loop only if wake is set (the terminating
 * wait's, which the end waits for; see opener_poll). If wait_fd (the wait
 * FIFO's read end, or -1) holds a request when the reader comes, the
 * reader goes to the loop instead (OPENER_LATE), which reads the request
 * first: it may be a terminating wait, whose reader this is, and which
 * makes buf an answer owed to a client that is gone. */
void opener_submit(struct opener *o, const char *buf, size_t len, uint64_t composed_us, int wake,
		   int wait_fd);
/* The loop reads requests from the wait FIFO (on), or has read them and
 * dropped the stale answers a terminating wait among them made (off): a
 * reader coming meanwhile goes to the loop, as for an unread request. */
void opener_reading(struct opener *o, int on);
/* The wait FIFO is closed: its descriptor is not to be polled any more. */
void opener_forget_wait(struct opener *o);
/* Whether wait_fd (or -1) holds a request not read yet. */
int opener_unread(int wait_fd);
/* The job's answer, once written, is followed by the rename of spare (a
 * name in dirfd) over status, before the thread's close: see fifo.c's
 * fifo_spare_make. Call before opener_submit. */
void opener_rename_after(struct opener *o, int dirfd, const char *spare);
/* Whether the last job renamed its spare over status (once: cleared): 0, or
 * what opener_swap_status returned. */
int opener_take_renamed(struct opener *o);
/* Put the FIFO at the name spare (in dirfd) at the name status: the two
 * are exchanged (1: the old status is now at spare), or, where the file
 * system cannot, spare is renamed over status (2: the old one unlinked).
 * -1: neither (errno set). */
int opener_swap_status(int dirfd, const char *spare);
/* The result of the job in flight, if it has one: cb is called now. A
 * delivered answer does not wake the loop (unless submitted with wake);
 * whatever wakes it next (a request, the deadline, without a spare the
 * reader's close) calls this first. Returns 1 if cb was called. */
int opener_poll(struct opener *o);
/* Give up the job in flight, if any, at once: cb is not called for it.
 * Returns -1, or the FIFO open for writing when a reader came meanwhile (a
 * client waiting for an answer: closing it would give it an empty one). If
 * the thread cannot be made to let go, wedged is set (the caller polls from
 * then on). */
int opener_cancel(struct opener *o);
/* Whether no reader holds the FIFO that fd (a write end) is open on. */
int opener_reader_gone(int fd);
/* Stop the thread. */
void opener_close(struct opener *o);

#endif
