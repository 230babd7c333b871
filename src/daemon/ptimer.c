// SPDX-License-Identifier: ISC
// One-shot timers with nanosecond resolution (timerfd) in the libev loop.
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "log.h"
#include "ptimer.h"

static void ptimer_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ptimer *t = w->data;
	uint64_t expirations;

	if (read(t->fd, &expirations, sizeof expirations) < 0)
		return; /* EAGAIN: disarmed or re-armed meanwhile */
	if (!t->armed)
		return;
	t->armed = 0;
	t->cb(t);
}

int ptimer_init(struct ptimer *t, struct ev_loop *loop, ptimer_cb cb, void *data)
{
	memset(t, 0, sizeof *t);
	t->loop = loop;
	t->cb = cb;
	t->data = data;
	t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (t->fd < 0)
		return -1;
	ev_io_init(&t->io, ptimer_io_cb, t->fd, EV_READ);
	t->io.data = t;
	ev_io_start(loop, &t->io);
	return 0;
}

void ptimer_arm(struct ptimer *t, uint64_t after_ns)
{
	struct itimerspec its;

	memset(&its, 0, sizeof its);
	/* An all-zero it_value would disarm: fire after 1 ns instead. */
	if (after_ns == 0)
		after_ns = 1;
	its.it_value.tv_sec = (time_t)(after_ns / 1000000000u);
	its.it_value.tv_nsec = (long)(after_ns % 1000000000u);
	if (timerfd_settime(t->fd, 0, &its, NULL) < 0) {
		log_warn("timerfd_settime");
		return;
	}
	t->armed = 1;
}

void ptimer_stop(struct ptimer *t)
{
	struct itimerspec its;

	/* Not armed: never set, or it fired and its expiry was read (one-shot:
	 * nothing is left to disarm). A wait stops the FIFO's retry timer
	 * whether or not it was set; this saves it a system call. */
	if (t->fd < 0 || !t->armed)
		return;
	memset(&its, 0, sizeof its);
	timerfd_settime(t->fd, 0, &its, NULL);
	t->armed = 0;
}

void ptimer_close(struct ptimer *t)
{
	if (t->fd < 0)
		return;
	ev_io_stop(t->loop, &t->io);
	close(t->fd);
	t->fd = -1;
	t->armed = 0;
}
