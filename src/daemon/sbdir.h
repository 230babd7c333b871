// SPDX-License-Identifier: ISC
// The sandbox directory: created private or reused, its lock file, its removal.
#ifndef PROCTOR_SBDIR_H
#define PROCTOR_SBDIR_H

#include <stddef.h>
#include <sys/types.h>

struct sbdir {
	char *path;
	int fd;
	int parent_fd; /* the directory that holds it: it is removed from there */
	char *name;    /* its name in parent_fd */
	int created;   /* proctord made it, so proctord removes it */
	int lock_created;
};

/* path NULL: a fresh private directory under $XDG_RUNTIME_DIR or /tmp.
 * Every directory from / to the one that holds it must be root's or ours and
 * writable by nobody else unless sticky; the last component of path is never
 * a symbolic link, and an existing directory must be ours.
 * Returns 0, or -1 with err filled in. */
int sbdir_open(struct sbdir *d, const char *path, mode_t mode, char *err, size_t errlen);
/* Remove the lock file and, if proctord created it, the directory. */
void sbdir_close(struct sbdir *d);

/* The directory path, opened O_PATH, following by hand only the symbolic
 * links that belong to root or to our euid (another user's could be
 * re-pointed, or lead where they should not). Returns a descriptor, or -1
 * with a message naming what in err. */
int sbdir_open_links(const char *path, const char *what, char *err, size_t errlen);

/* Whether a program that sees the files fds[0..n) (O_PATH; is_dir[i]: a
 * directory, else a file whose path, every link resolved, is real[i]) can
 * reach the sandbox directory: one of them is it, holds it, or is inside
 * it, by device and inode. Returns the first such i, -1 for none, or -2
 * if it cannot be told. */
int sbdir_reached(const struct sbdir *d, const int *fds, const int *is_dir,
		  const char *const *real, size_t n);

/* From now on, a symbolic link in a directory for which in_reach(ctx,
 * dirfd) says 1 is refused on any walk (sbdir_open_links): the box's DIR and
 * read-write binds, where the program makes links as root's or proctord's
 * uid. NULL: none. */
void sbdir_distrust_links(int (*in_reach)(void *ctx, int dirfd), void *ctx);

#endif
