// SPDX-License-Identifier: ISC
// fifo.c's queue of owed answers and its purges, for fifo.c and its unit test.
#ifndef PROCTOR_FIFO_PRIV_H
#define PROCTOR_FIFO_PRIV_H

#include <stdint.h>

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

#endif
