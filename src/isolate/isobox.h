// SPDX-License-Identifier: ISC
// Boxes: the configuration that maps a box id to a directory and ids, --init, --cleanup, the lock.
#ifndef PROCTOR_ISOBOX_H
#define PROCTOR_ISOBOX_H

#include <stddef.h>
#include <sys/types.h>

struct iso_config {
	char box_root[1024];
	char lock_root[1024];
	long first_uid, first_gid, num_boxes;
	char setuid_group[256]; /* who may run a set-user-ID proctor-isolate */
	char path[1024];	/* the file read (or not found) */
};

struct iso_caller;

/* The box's paths and ids. */
struct iso_box {
	long id;
	char dir[1100];	 /* box_root/N */
	char box[1120];	 /* box_root/N/box */
	char lock[1100]; /* lock_root/N */
	uid_t uid;
	gid_t gid;
	int lock_fd;
};

/* Read the configuration: $PROCTOR_ISOLATE_CONFIG when set (and we are
 * not set-user-ID), else the compiled-in path; a missing default file is
 * isolate's defaults. Set-user-ID, the file must be root's alone
 * (iso_caller_trusted). Returns 0, or -1 with err set. */
int iso_config_read(struct iso_config *c, const struct iso_caller *caller, char *err,
		    size_t errlen);

/* The box of id; -1 with err set when out of range. */
int iso_box_find(const struct iso_config *c, long id, struct iso_box *b, char *err, size_t errlen);

/* Open the box's lock file (made if missing, never removed), without
 * taking the lock; iso_box_lock takes it (opening the file first if this
 * was not called; wait: block until it is free). Return 0, or -1 with err
 * set ("This box is currently in use by another process"). */
int iso_box_open_lock(struct iso_box *b, char *err, size_t errlen);
int iso_box_lock(struct iso_box *b, int wait, char *err, size_t errlen);

/* Whether the caller may --init (init), --run or --cleanup box b, whose
 * lock it holds: root always; a set-user-ID caller the box it initialised
 * (isolate 2.x's rule), a box nobody owns only to --init it or where
 * there is none. 0, or -1 with err set. */
int iso_box_may(const struct iso_box *b, const struct iso_caller *c, int init, char *err,
		size_t errlen);
/* Whether b is another's (set-user-ID): its lock file names another
 * owner. Without the lock held, a half-written name reads as none, never
 * as another's. 0, or -1 with err set. */
int iso_box_foreign(const struct iso_box *b, const struct iso_caller *c, char *err,
		    size_t errlen);
/* Record uid as the box's owner in its lock file (-1: nobody's). */
int iso_box_set_owner(const struct iso_box *b, long uid, char *err, size_t errlen);

/* --init: box_root/N afresh, box/ in it owned by the caller; --cleanup:
 * box_root/N gone. Return 0, or -1 with err set. */
int iso_box_init(const struct iso_box *b, char *err, size_t errlen);
int iso_box_cleanup(const struct iso_box *b, char *err, size_t errlen);

/* The message into err; returns -1 (proctor-isolate's errors all go
 * this way, up to main, which writes them as isolate's XX). */
int iso_box_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
