// SPDX-License-Identifier: ISC
// What fifo.c shares with answer.c (the status writer) and its unit tests: the queue of owed answers, the status FIFO itself and its close events.
#ifndef PROCTOR_FIFO_PRIV_H
#define PROCTOR_FIFO_PRIV_H

#include <stdint.h>
#include <sys/stat.h>

#include "fifo.h"

/* Queue r at the tail. */
void fifo_append(struct fifo *f, struct fifo_request *r);
/* Whether r's client has gone, at now: see FIFO_STALE_US. */
int fifo_is_stale(const struct fifo *f, const struct fifo_request *r, uint64_t now);
/* Drop the answers owed to clients that have gone, at now (a terminating
 * wait arrived); the head is kept while it is being answered. */
void fifo_purge_stale_at(struct fifo *f, uint64_t now);
/* Drop every answer but the head's and the terminating wait's (the status
 * FIFO was replaced). */
void fifo_drop_owed(struct fifo *f);
/* Unqueue the head (the terminating wait's: the supervisor is told). */
void fifo_pop(struct fifo *f);
/* Stop waiting for the head's reader (the opener given up, the timers
 * stopped): -> FIFO_IDLE. */
void fifo_release(struct fifo *f);
/* Both: the head's reader has gone (or never came), or its answer was
 * dropped. */
void fifo_drop_head(struct fifo *f);
/* Read what clients wrote to the wait FIFO, and queue their requests. */
void fifo_read_requests(struct fifo *f);

/* What fifo_read_events found. */
#define FIFO_SEEN_CLOSE 1    /* a reader's close (or events were lost) */
#define FIFO_SEEN_RW_CLOSE 2 /* more IN_CLOSE_WRITE than our own closes since
			      * the answer went out: a read-write reader's
			      * (until the opener's word is taken, its own
			      * close may be among them) */
/* Empty inotify's queue; returns FIFO_SEEN_* bits. */
int fifo_read_events(struct fifo *f);
/* Before an answer goes out: the close events so far are from earlier
 * readers (or ours). */
void fifo_forget_events(struct fifo *f);
/* Close fd, our write end on the status FIFO, and read the events at once,
 * so that a reader's close coming later is not merged with ours. Returns
 * FIFO_SEEN_* bits. */
int fifo_close_own(struct fifo *f, int fd);

/* The watch for readers' closes of the status FIFO, made at the first
 * request. Returns 0, or -1 (said why: then a reader's close is not seen,
 * and each answer waits out FIFO_READER_TIMEOUT). */
int fifo_watch(struct fifo *f);
/* Whether st is the FIFO followed (status_pfd). */
int fifo_status_is(const struct fifo *f, const struct stat *st);
/* Another FIFO is at the name status (ours, put there when a reader held
 * the old one for too long, or someone's who may write the directory):
 * inotify and the opener follow it. Returns 0, or -1 (it is not a FIFO of
 * ours; the opener is not used). */
int fifo_status_moved(struct fifo *f);
/* Before the opener waits on it: the FIFO at the name status. Returns 0, or
 * -1 (none fit). */
int fifo_status_follow(struct fifo *f);
/* Put a fresh status FIFO in place of the one a reader holds and may hold
 * for ever (what it left unread thrown away first): later clients open the
 * new one. Returns the old one open for writing (the clients that came
 * meanwhile wait on it), or -1: not replaced (ENXIO: the reader has gone
 * after all). */
int fifo_replace_status(struct fifo *f);
/* The FIFO that takes the name status after an answer's write, before our
 * close (so that no reader's close is to be waited for), made ahead: the
 * one before, once nobody holds it, else a fresh one. Returns 0, or -1
 * (said once: closes are waited for instead). */
int fifo_spare_make(struct fifo *f);
/* st is what is at the name status: the spare gets its mode and group. */
void fifo_spare_fit(struct fifo *f, const struct stat *st);
/* The answer is written, our end still open: the spare takes the name
 * status. Returns 0, or -1 (none, or said why). */
int fifo_spare_install(struct fifo *f);
/* The spare has taken the name status (the opener put it there; how is
 * opener_swap_status's): follow it. */
void fifo_spare_taken(struct fifo *f, int how);

#endif
