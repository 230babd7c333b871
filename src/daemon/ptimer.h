// SPDX-License-Identifier: ISC
// One-shot timers with nanosecond resolution (timerfd) in the libev loop.
#ifndef PROCTOR_PTIMER_H
#define PROCTOR_PTIMER_H

#include <ev.h>
#include <stdint.h>

struct ptimer;
typedef void (*ptimer_cb)(struct ptimer *t);

/* libev's epoll backend rounds every timeout up to a whole millisecond; a
 * CPU-time deadline must be finer than that, so deadlines are timerfds. */
struct ptimer {
	struct ev_loop *loop;
	int fd;
	int armed;
	ptimer_cb cb;
	void *data;
	ev_io io;
};

/* Returns 0, or -1 with errno set. */
int ptimer_init(struct ptimer *t, struct ev_loop *loop, ptimer_cb cb, void *data);
/* Fire once, after_ns from now (0 fires at once). */
void ptimer_arm(struct ptimer *t, uint64_t after_ns);
void ptimer_stop(struct ptimer *t);
void ptimer_close(struct ptimer *t);

#endif
