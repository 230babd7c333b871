// SPDX-License-Identifier: ISC
// A box's DIR lent to the program's uid for the run, and handed back to its owner at the end.
//
// --user nobody could not write /box unless the operator chowned DIR first,
// and then DIR stayed nobody's. proctord makes the program's uid the owner
// of DIR itself (not of anything in it) for the run, and once the box's last
// process is gone puts back what an owner can change: the owner and group,
// the mode (setgid, sticky, 0000...) and the POSIX ACLs (an owner may grant
// itself access through one). Every call goes through the descriptor of the
// directory proctord opened at the start (no path, so no symbolic link or
// rename can point it at another file; a directory has no hard link). What
// the program left in DIR stays its uid's, and its set-id bits are gone
// (boxstrip.c): DIR's owner may remove it, since DIR is the owner's again.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "boxowner.h"
#include "log.h"
#include "util.h"

static const char *const boxowner_acls[2] = {"system.posix_acl_access",
					     "system.posix_acl_default"};

void boxowner_init(struct boxowner *o)
{
	memset(o, 0, sizeof *o);
	o->fd = -1;
}

/* DIR's O_PATH descriptor: the first bind at /box, made by box_prepare. */
static int boxowner_dir_source(const struct box *b)
{
	for (size_t i = 0; i < b->n_steps; i++)
		if (b->steps[i].kind == BOX_BIND && strcmp(b->steps[i].path, "/box") == 0)
			return b->steps[i].src_fd;
	return -1;
}

/* The ACLs as they are; none where the file system has none. */
static int boxowner_save_acls(struct boxowner *o)
{
	for (size_t i = 0; i < 2; i++) {
		ssize_t n = fgetxattr(o->fd, boxowner_acls[i], NULL, 0);

		if (n < 0 && (errno == ENODATA || errno == ENOTSUP))
			continue;
		if (n < 0)
			return -1;
		o->acl[i] = xmalloc((size_t)n + 1);
		n = fgetxattr(o->fd, boxowner_acls[i], o->acl[i], (size_t)n);
		if (n < 0)
			return -1; /* changed in between: not a DIR to lend */
		o->acl_len[i] = (size_t)n;
	}
	return 0;
}

/* DIR is its owner's alone: no write for group or others, not sticky (a
 * shared directory such as /tmp, whose entries its owner could remove or
 * replace), and no access ACL (which may grant others). */
static int boxowner_alone(int fd, const struct stat *st)
{
	if (st->st_mode & (S_IWGRP | S_IWOTH | S_ISVTX))
		return 0;
	return fgetxattr(fd, boxowner_acls[0], NULL, 0) < 0 &&
	       (errno == ENODATA || errno == ENOTSUP);
}

/* The directory dirfd is DIR (st) or lies below it: walked up by "..",
 * descriptor by descriptor, to the root. */
static int boxowner_below(int dirfd, const struct stat *st)
{
	struct stat cur, up;
	int fd = dup(dirfd), found = 0;

	for (int depth = 0; fd >= 0 && depth < 4096; depth++) {
		int parent;

		if (fstat(fd, &cur) < 0)
			break;
		if (cur.st_dev == st->st_dev && cur.st_ino == st->st_ino) {
			found = 1;
			break;
		}
		parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) < 0 ||
		    (up.st_dev == cur.st_dev && up.st_ino == cur.st_ino)) {
			if (parent >= 0)
				close(parent);
			break;
		}
		close(fd);
		fd = parent;
	}
	if (fd >= 0)
		close(fd);
	return found;
}

int boxowner_hand_over(struct boxowner *o, const struct box *b, uid_t uid,
		       const int *keep_out, size_t n_keep, char *err, size_t errlen)
{
	int src = boxowner_dir_source(b);
	struct stat st;

	boxowner_init(o);
	if (src < 0)
		return 0;
	/* "." of the O_PATH descriptor: the same directory, readable, for
	 * fchown and fchmod. */
	o->fd = openat(src, ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (o->fd < 0 || fstat(o->fd, &st) < 0) {
		snprintf(err, errlen, "--box: cannot open DIR to lend it to uid %u: %s",
			 (unsigned)uid, strerror(errno));
		boxowner_hand_back(o);
		return -1;
	}
	if (st.st_uid == uid || !(st.st_mode & S_IWUSR) || !boxowner_alone(o->fd, &st)) {
		boxowner_hand_back(o);
		return 0;
	}
	for (size_t i = 0; i < n_keep; i++)
		if (keep_out[i] >= 0 && boxowner_below(keep_out[i], &st)) {
			log_warn("warning: --box: DIR is not lent to uid %u: --report lies in it, "
				 "and its owner for the run could move the report's directory "
				 "away; put the report outside DIR",
				 (unsigned)uid);
			boxowner_hand_back(o);
			return 0;
		}
	o->uid = st.st_uid;
	o->gid = st.st_gid;
	o->mode = st.st_mode & 07777;
	if (boxowner_save_acls(o) < 0 || fchown(o->fd, uid, (gid_t)-1) < 0) {
		snprintf(err, errlen,
			 "--box: cannot make uid %u the owner of DIR for the run: %s (chown it "
			 "to that uid yourself, or chmod u-w DIR to keep it read-only)",
			 (unsigned)uid, strerror(errno));
		boxowner_hand_back(o);
		return -1;
	}
	o->handed = 1;
	return 0;
}

/* The ACLs back as they were: set where there was one, removed where
 * there was none (the program may have added one). */
static int boxowner_restore_acls(struct boxowner *o)
{
	int r = 0;

	for (size_t i = 0; i < 2; i++) {
		if (o->acl[i]) {
			if (fsetxattr(o->fd, boxowner_acls[i], o->acl[i], o->acl_len[i], 0) < 0)
				r = -1;
		} else if (fremovexattr(o->fd, boxowner_acls[i]) < 0 && errno != ENODATA &&
			   errno != ENOTSUP) {
			r = -1;
		}
	}
	return r;
}

void boxowner_hand_back(struct boxowner *o)
{
	if (o->handed) {
		/* The owner first: from here on, the program's uid can change
		 * nothing more of DIR. Then the ACLs, then the mode (which
		 * sets an ACL's mask as it was). */
		if (fchown(o->fd, o->uid, o->gid) < 0 || boxowner_restore_acls(o) < 0 ||
		    fchmod(o->fd, o->mode) < 0)
			log_warn("warning: --box: cannot hand DIR back to uid %u as it was",
				 (unsigned)o->uid);
		o->handed = 0;
	}
	for (size_t i = 0; i < 2; i++)
		free(o->acl[i]);
	if (o->fd >= 0)
		close(o->fd);
	boxowner_init(o);
}
