// SPDX-License-Identifier: ISC
// The box: the program's own root, mount, PID, IPC, UTS and network namespaces.
#ifndef PROCTOR_BOX_H
#define PROCTOR_BOX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct config;

/* Descriptors a box holds open for its init (the sources of its binds). */
#define BOX_MAX_FDS 64

enum box_step_kind {
	BOX_BIND,  /* bind src_fd at path (ro: then remounted read-only) */
	BOX_LINK,  /* a symbolic link at path to data */
	BOX_FILE,  /* a file at path holding data (0644) */
	BOX_TMPFS, /* a tmpfs at path, options in data */
	BOX_PROC,  /* /proc of the new PID namespace at path */
};

/* One thing done to build the root, in order. path is inside the box. */
struct box_step {
	enum box_step_kind kind;
	char *path;
	char *staged; /* the same path under the staging mount point */
	char *src;    /* what was bound, as the caller named it (BOX_BIND) */
	int src_fd;   /* O_PATH, opened by proctord (BOX_BIND) */
	char *real;   /* its path, every symbolic link resolved (BOX_BIND) */
	dev_t dev;    /* what proctord opened (BOX_BIND) */
	ino_t ino;
	int is_dir; /* the source is a directory (BOX_BIND) */
	int ro;
	int nosuid_nodev; /* remount a read-write bind nosuid,nodev */
	int nosuid;	  /* remount it nosuid (--dev-bind: devices kept) */
	char *data;
	char *staged_ro[4]; /* BOX_PROC: what of it is bound read-only */
};

struct box {
	int active;
	int share_net;
	int loopback; /* its own network's loopback up (--loopback) */
	struct box_step *steps;
	size_t n_steps;
};

/* A bind's SRC may be /proc/self/fd/N for a descriptor N below this that
 * proctord was started with. box_note_inherited records which those are:
 * call it first thing, before proctord opens anything of its own. */
#define BOX_INHERITED_MAX 4096
void box_note_inherited(void);

/* Resolve --box and the binds: open every source (O_PATH, a symbolic link
 * of another user refused on the way), and write the steps. uid and gid are
 * the program's (for its /etc/passwd and /etc/group). Returns 0 (b->active
 * is 0 without --box), or -1 with a one-line reason in err. */
int box_prepare(struct box *b, const struct config *c, uid_t uid, gid_t gid, char *err,
		size_t errlen);
void box_free(struct box *b);

/* Refuse a program given by an absolute path that is nowhere in the box
 * (under no mount point of its root), naming where it is if DIR or a bind
 * holds it under another name. Returns 0, or -1 with a one-line reason. */
int box_check_program(const struct box *b, const char *prog, char *err, size_t errlen);

/* Whether path lies in what the program can write: DIR, or a read-write
 * bind's source, at any depth (a FIFO the program left there must not
 * block the set-up), its directory resolved as the child will open it
 * (box_child_base). 0 without a box; 1 where its directory cannot be
 * opened (cannot tell: as if it could). */
int box_reaches(const struct box *b, const char *path);
/* The same for the directory dirfd (any descriptor of it, kept open). */
int box_reaches_fd(const struct box *b, int dirfd);
/* Whether fifo, a FIFO in the directory dir (both fstat'ed), is one that
 * the program, of file-system uid uid, could not have made nor put there
 * (the judge's, as CMS's Communication tasks have): neither is uid's, no
 * group or other may write to dir, and fifo has one link only (a second
 * name of another judge's FIFO is what it could have left while dir was
 * open to it, where fs.protected_hardlinks is 0). */
int box_fifo_judges(const struct stat *dir, const struct stat *fifo, uid_t uid);

struct sbdir;
/* Refuse a sandbox directory that the program could reach through what the
 * box binds (DIR, a --bind or --ro-bind, a directory of the system): it
 * could rename it away and answer for proctord. Returns 0, or -1 with err. */
int box_check_apart(const struct box *b, const struct sbdir *d, char *err, size_t errlen);

/* The descriptors the init must keep until box_child_enter. Returns how
 * many were written to out (at most max). */
size_t box_fds(const struct box *b, int *out, size_t max);

/* Child side, before the box's mount namespace: the descriptor of DIR or of
 * the directory bind whose source holds the host path path (the deepest),
 * with *rest the path below it ("." for the source itself); -1 when none
 * does, or path is not absolute with plain names only. */
int box_child_base(const struct box *b, const char *path, const char **rest);

/* The clone flags of the namespaces the init unshares. */
int box_unshare_flags(const struct box *b);

/* The init's side, after it is in its PID (and user) namespace: new mount,
 * IPC, UTS and network namespaces, the root built, pivot_root into it, the
 * sources closed. System calls only. Returns 0, or -1 with errno and *what. */
int box_child_enter(const struct box *b, const char **what);

#endif
