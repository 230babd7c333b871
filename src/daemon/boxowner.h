// SPDX-License-Identifier: ISC
// A box's DIR lent to the program's uid for the run, and handed back to its owner at the end.
#ifndef PROCTOR_BOXOWNER_H
#define PROCTOR_BOXOWNER_H

#include <stddef.h>
#include <sys/types.h>

#include "box.h"

/* The owner, group, mode and POSIX ACLs DIR had before the run: the
 * program, its owner for the run, may change any of them. */
struct boxowner {
	int fd; /* DIR itself (O_RDONLY), or -1 */
	int handed;
	uid_t uid;
	gid_t gid;
	mode_t mode;
	char *acl[2]; /* system.posix_acl_access, _default; NULL: none */
	size_t acl_len[2];
};

void boxowner_init(struct boxowner *o);
/* Make uid the owner of DIR (b's /box) for the run, unless uid owns it
 * already, its owner may not write it (mode without u+w: a DIR meant to
 * stay read-only), it is not its owner's alone (group- or other-writable,
 * sticky, an access ACL), or one of the n_keep directories keep_out (the
 * reports' ones; -1 skipped) lies in it (a warning then). Through the
 * descriptor proctord opened, never by path. Returns 0, or -1 with a
 * one-line reason in err. */
int boxowner_hand_over(struct boxowner *o, const struct box *b, uid_t uid,
		       const int *keep_out, size_t n_keep, char *err, size_t errlen);
/* Once no process of the box is left: DIR's owner, group, ACLs and mode as
 * they were. What the program made inside DIR stays its uid's. Idempotent;
 * closes the descriptor. */
void boxowner_hand_back(struct boxowner *o);

#endif
