// SPDX-License-Identifier: ISC
// How an answer reaches its reader: the status FIFO writer's state machine.
#ifndef PROCTOR_ANSWER_H
#define PROCTOR_ANSWER_H

#include <ev.h>

#include "fifo.h"
#include "ptimer.h"

/* What happens to the status writer (answer.c's table says what each does). */
enum answer_event {
	FIFO_EV_REQUEST,   /* clients wrote to wait (requests queued) */
	FIFO_EV_KICK,      /* the head may be answerable now */
	FIFO_EV_DELIVERED, /* the opener wrote the answer */
	FIFO_EV_LATE,      /* the opener's reader came late: fd for a fresh one */
	FIFO_EV_FAILED,    /* the opener could not open status (err), or not ours */
	FIFO_EV_RETRY,     /* the retry timer (no opener thread) */
	FIFO_EV_CLOSE,     /* a reader closed status */
	FIFO_EV_RW_CLOSE,  /* a reader that opened it read-write closed it */
	FIFO_EV_DEADLINE,  /* FIFO_READER_TIMEOUT passed */
	FIFO_N_EVENTS
};

/* Run what the table says for ev in f's state (fd and err: the opener's,
 * else -1 and 0). */
void answer_dispatch(struct fifo *f, enum answer_event ev, int fd, int err);

/* The event sources fifo.c sets up. */
void answer_ino_cb(struct ev_loop *loop, ev_io *w, int revents);
void answer_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents);
void answer_retry_cb(struct ptimer *t);

/* For the unit test: the names in the table's comment. */
const char *answer_state_name(enum fifo_state st);
const char *answer_event_name(enum answer_event ev);
/* The action's name, "-" for none. */
const char *answer_action_name(enum fifo_state st, enum answer_event ev);

#endif
