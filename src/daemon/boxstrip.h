// SPDX-License-Identifier: ISC
// What a box leaves to the host: no set-user-ID or set-group-ID file in DIR or a --bind.
#ifndef PROCTOR_BOXSTRIP_H
#define PROCTOR_BOXSTRIP_H

#include <stddef.h>

#include "box.h"

/* The box's writable sources (DIR, the read-write binds), kept open past
 * box_free. */
struct boxstrip {
	int fds[BOX_MAX_FDS];
	size_t n;
};

/* Keep copies of the descriptors of what the box can write. Returns 0, or
 * -1 (errno set). */
int boxstrip_keep(struct boxstrip *bs, const struct box *b);
/* Once no process of the box is left: take the set-id bits off every
 * regular file there (no link followed, no other file system entered).
 * Returns how many files it changed; warns if it could not see all. */
size_t boxstrip_run(struct boxstrip *bs);
void boxstrip_close(struct boxstrip *bs);

#endif
