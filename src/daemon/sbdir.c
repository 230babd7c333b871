// SPDX-License-Identifier: ISC
// The sandbox directory: created private or reused, its lock file, its removal.
//
// Clients find the FIFOs by the directory's path, so whoever can change what
// a directory on that path holds could move the sandbox directory away and
// put one of their own, with their own FIFOs, in its place. Every directory
// from / down to the one that holds the sandbox directory must therefore be
// root's or ours, and writable by nobody else unless it is sticky (where the
// others cannot rename what is ours). The path is walked one component at a
// time with O_NOFOLLOW; a symbolic link on the way is read and followed by
// hand, from a directory already checked, so that what it points to is
// checked too. O_PATH: a directory on the way may be one we can only search.
// The sandbox directory itself is opened relative to its
// checked parent, never through a symbolic link.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sbdir.h"
#include "util.h"

/* Symbolic links followed in one path, as the kernel allows. */
#define SBDIR_MAX_LINKS 40

/* Why a directory on the path cannot be trusted, or NULL. */
static const char *sbdir_distrust(const struct stat *st, char *why, size_t len)
{
	uid_t euid = geteuid();

	if (st->st_uid != 0 && st->st_uid != euid) {
		snprintf(why, len,
			 "belongs to uid %u, neither root nor proctord's uid %u: its owner could "
			 "move the sandbox directory away and put another in its place",
			 (unsigned)st->st_uid, (unsigned)euid);
		return why;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX)) {
		snprintf(why, len,
			 "is writable by %s (mode %04o) and not sticky: %s could move the sandbox "
			 "directory away and put another in its place",
			 st->st_mode & S_IWOTH ? "every user" : "its group",
			 (unsigned)(st->st_mode & 07777),
			 st->st_mode & S_IWOTH ? "any user" : "they");
		return why;
	}
	return NULL;
}

/* where := where/name, or its parent for "..". */
static int sbdir_descend(char *where, size_t size, const char *name)
{
	size_t n = strlen(where);

	if (strcmp(name, "..") == 0) {
		char *slash = strrchr(where, '/');

		if (slash == where)
			where[1] = '\0';
		else if (slash)
			*slash = '\0';
		return 0;
	}
	if (n + 1 + strlen(name) >= size)
		return -1;
	snprintf(where + n, size - n, "%s%s", n > 1 ? "/" : "", name);
	return 0;
}

/* path, made absolute: an allocated string, or NULL with err (what names
 * path in messages). */
static char *sbdir_absolute(const char *path, const char *what, char *err, size_t errlen)
{
	char cwd[PATH_MAX];
	char *abs;

	if (path[0] == '/')
		return xstrdup(path);
	/* A relative path goes through the working directory's. */
	if (!getcwd(cwd, sizeof cwd)) {
		snprintf(err, errlen, "%s: the working directory: %s", what, strerror(errno));
		return NULL;
	}
	xasprintf(&abs, "%s/%s", cwd, path);
	return abs;
}

/* Directories whose links nobody trusts, whoever owns them (a box's DIR:
 * the program's links are root's or proctord's uid's). */
static int (*sbdir_guard)(void *ctx, int dirfd);
static void *sbdir_guard_ctx;

void sbdir_distrust_links(int (*in_reach)(void *ctx, int dirfd), void *ctx)
{
	sbdir_guard = in_reach;
	sbdir_guard_ctx = ctx;
}

/* Whether the symbolic link name, in the directory dirfd (at where), may be
 * followed. Returns 0, or -1 with err. */
static int sbdir_link_trusted(int dirfd, const char *where, const char *name, const char *what,
			      char *err, size_t errlen)
{
	struct stat st;

	/* Its directory is checked, so the link is what it was, unless it is
	 * another user's in a sticky directory: they may replace it at any
	 * time (clients follow it by its path), whatever
	 * fs.protected_symlinks says. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		snprintf(err, errlen, "%s: cannot stat %s%s%s: %s", what, where,
			 strcmp(where, "/") ? "/" : "", name, strerror(errno));
		return -1;
	}
	if (sbdir_guard && sbdir_guard(sbdir_guard_ctx, dirfd)) {
		snprintf(err, errlen,
			 "%s: %s%s%s is a symbolic link where the boxed program can write: "
			 "refusing it",
			 what, where, strcmp(where, "/") ? "/" : "", name);
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "%s: %s%s%s is a symbolic link of uid %u, neither root nor "
			 "proctord's uid %u: its owner could point it elsewhere; "
			 "refusing it",
			 what, where, strcmp(where, "/") ? "/" : "", name, (unsigned)st.st_uid,
			 (unsigned)geteuid());
		return -1;
	}
	return 0;
}

/* The next component of the path rest from *off into name (NAME_MAX + 1
 * bytes), "." passed over. Returns 1, 0 at the end of the path, or -1 if the
 * component is longer than NAME_MAX. */
static int sbdir_next_name(const char *rest, size_t *off, char *name)
{
	size_t len;

	for (;;) {
		*off += strspn(rest + *off, "/");
		if (!rest[*off])
			return 0;
		len = strcspn(rest + *off, "/");
		if (len > NAME_MAX)
			return -1;
		memcpy(name, rest + *off, len);
		name[len] = '\0';
		*off += len;
		if (strcmp(name, ".") != 0)
			return 1;
	}
}

/* The directory fd (at where) on the way: none that another user could
 * change. Returns 0, or -1 with err. */
static int sbdir_check_dir(int fd, const char *where, const char *what, char *err, size_t errlen)
{
	const char *distrust;
	struct stat st;
	char why[300];

	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: cannot stat %s: %s", what, where, strerror(errno));
		return -1;
	}
	distrust = sbdir_distrust(&st, why, sizeof why);
	if (distrust) {
		snprintf(err, errlen, "%s: %s %s; refusing it", what, where, distrust);
		return -1;
	}
	return 0;
}

/* A trusted link's target (n bytes read into target) put in front of what
 * is left of the path (*rest from *off). Returns 0, or -1 with err (too
 * many links, a target too long). */
static int sbdir_follow(char **rest, size_t *off, char *target, ssize_t n, int links,
			const char *what, const char *where, const char *name, char *err,
			size_t errlen)
{
	char *more;

	if (links > SBDIR_MAX_LINKS || (size_t)n >= PATH_MAX) {
		snprintf(err, errlen, "%s: %s/%s: %s", what, where, name, strerror(ELOOP));
		return -1;
	}
	target[n] = '\0';
	xasprintf(&more, "%s/%s", target, *rest + *off);
	free(*rest);
	*rest = more;
	*off = 0;
	return 0;
}

/* The directory path, opened after checking every directory from / to it
 * (what names path in messages). Returns a descriptor, or -1 with err. */
static int sbdir_open_chain(const char *path, const char *what, int check_dirs, char *err,
			    size_t errlen)
{
	char where[PATH_MAX + 1] = "/", name[NAME_MAX + 1], target[PATH_MAX];
	char *rest;
	size_t off = 0;
	int fd, links = 0;

	rest = sbdir_absolute(path, what, err, errlen);
	if (!rest)
		return -1;
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open /: %s", what, strerror(errno));
		goto fail;
	}
	for (;;) {
		ssize_t n;
		int next, saved, got;

		if (check_dirs && sbdir_check_dir(fd, where, what, err, errlen) < 0)
			goto fail;
	again:
		got = sbdir_next_name(rest, &off, name);
		if (got == 0)
			break;
		if (got < 0) {
			snprintf(err, errlen, "%s: a component of the path is longer than %d bytes",
				 what, NAME_MAX);
			goto fail;
		}
		next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		saved = errno;
		if (next < 0 && (saved == ELOOP || saved == ENOTDIR) &&
		    (n = readlinkat(fd, name, target, sizeof target)) >= 0) {
			int absolute = n > 0 && target[0] == '/';

			if (sbdir_link_trusted(fd, where, name, what, err, errlen) < 0 ||
			    sbdir_follow(&rest, &off, target, n, ++links, what, where, name, err,
					 errlen) < 0)
				goto fail;
			if (!absolute)
				goto again;
			close(fd);
			fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			snprintf(where, sizeof where, "/");
			if (fd < 0) {
				snprintf(err, errlen, "%s: cannot open /: %s", what,
					 strerror(errno));
				goto fail;
			}
			continue;
		}
		if (next < 0 || sbdir_descend(where, sizeof where, name) < 0) {
			snprintf(err, errlen, "%s: cannot open %s%s%s: %s", what, where,
				 strcmp(where, "/") ? "/" : "", name,
				 strerror(next < 0 ? saved : ENAMETOOLONG));
			if (next >= 0)
				close(next);
			goto fail;
		}
		close(fd);
		fd = next;
	}
	free(rest);
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	free(rest);
	return -1;
}

int sbdir_open_links(const char *path, const char *what, char *err, size_t errlen)
{
	return sbdir_open_chain(path, what, 0, err, errlen);
}

/* A fresh directory proctor.XXXXXX in parent_fd (mkdtemp(3), relative). */
static int sbdir_mktemp(struct sbdir *d, const char *base, mode_t mode, char *err, size_t errlen)
{
	static const char chars[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		char name[sizeof "proctor.XXXXXX"];

		if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
			snprintf(err, errlen, "getrandom: %s", strerror(errno));
			return -1;
		}
		snprintf(name, sizeof name, "proctor.");
		for (size_t i = 0; i < sizeof r; i++)
			name[8 + i] = chars[r[i] % (sizeof chars - 1)];
		name[8 + sizeof r] = '\0';
		if (mkdirat(d->parent_fd, name, mode & 0700) == 0) {
			d->name = xstrdup(name);
			xasprintf(&d->path, "%s%s%s", base,
				  base[strlen(base) - 1] == '/' ? "" : "/", name);
			d->created = 1;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	snprintf(err, errlen, "cannot create a directory under %s: %s", base, strerror(errno));
	return -1;
}

/* --dir path: its parent checked and open, the directory made if missing. */
static int sbdir_make(struct sbdir *d, const char *path, mode_t mode, char *err, size_t errlen)
{
	size_t len = strlen(path);
	char *parent, *slash;

	/* Clients open DIR/status by its path. */
	if (len + sizeof "/status" > PATH_MAX) {
		snprintf(err, errlen,
			 "--dir: the path is %zu bytes long; DIR/status must fit in PATH_MAX "
			 "(%d bytes)",
			 len, PATH_MAX);
		return -1;
	}
	while (len > 1 && path[len - 1] == '/')
		len--;
	parent = xstrdup(path);
	parent[len] = '\0';
	slash = strrchr(parent, '/');
	d->name = xstrdup(slash ? slash + 1 : parent);
	if (!slash)
		snprintf(parent, len + 1, ".");
	else if (slash == parent)
		parent[1] = '\0';
	else
		*slash = '\0';
	if (!d->name[0] || strcmp(d->name, ".") == 0 || strcmp(d->name, "..") == 0) {
		snprintf(err, errlen, "%s: the sandbox directory must be named, not / . or ..",
			 path);
		free(parent);
		return -1;
	}
	d->parent_fd = sbdir_open_chain(parent, "--dir", 1, err, errlen);
	free(parent);
	if (d->parent_fd < 0)
		return -1;
	d->path = xstrdup(path);
	if (mkdirat(d->parent_fd, d->name, mode & 0700) == 0) {
		d->created = 1;
		return 0;
	}
	if (errno != EEXIST) {
		snprintf(err, errlen, "cannot create directory %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* How long a start waits for the lifetime lock on an existing DIR. */
#define SBDIR_LOCK_WAIT_MS 500

/* The lifetime lock. Clients probe it with a shared lock, taken and dropped
 * at once, to learn whether proctord is alive: a start on a DIR that a
 * client is probing waits for the probe rather than calling DIR in use. A
 * live proctord holds it for good, and is found so at the end of the wait. */
static int sbdir_flock_ex(int fd)
{
	for (int i = 0;; i++) {
		struct timespec ts = {0, 1000000};

		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK || i >= SBDIR_LOCK_WAIT_MS)
			return -1;
		nanosleep(&ts, NULL);
	}
}

/* The sandbox directory open in d->fd, never through a symbolic link, and
 * ours: made by us (and given its exact mode), or ours and private. */
static int sbdir_claim(struct sbdir *d, mode_t mode, char *err, size_t errlen)
{
	struct stat st;

	d->fd = openat(d->parent_fd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0) {
		int saved = errno;

		if (fstatat(d->parent_fd, d->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			snprintf(err, errlen,
				 "%s is a symbolic link (owned by uid %u); proctord never follows "
				 "one there: refusing it",
				 d->path, (unsigned)st.st_uid);
		else
			snprintf(err, errlen, "cannot open directory %s: %s", d->path,
				 strerror(saved));
		return -1;
	}
	/* mkdir obeys the umask, and a directory made with more than 0700
	 * could be entered before its mode is exact: made 0700, then chmod. */
	if (d->created && fchmod(d->fd, mode) < 0) {
		snprintf(err, errlen, "chmod %s: %s", d->path, strerror(errno));
		return -1;
	}
	/* One proctord per directory, for its whole life: the wait FIFO
	 * closes at the terminating request, so its reader cannot say it.
	 * (Clients lock DIR/lock, a different file.) */
	if (sbdir_flock_ex(d->fd) < 0) {
		snprintf(err, errlen, "the directory %s is in use by another proctord", d->path);
		d->created = 0; /* not ours to remove */
		return -1;
	}
	if (fstat(d->fd, &st) < 0) {
		snprintf(err, errlen, "cannot stat %s: %s", d->path, strerror(errno));
		return -1;
	}
	if (!d->created && st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "directory %s belongs to uid %u, not to proctord's uid %u; refusing to "
			 "use it",
			 d->path, (unsigned)st.st_uid, (unsigned)geteuid());
		return -1;
	}
	if (!d->created && (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen,
			 "directory %s is writable by %s (mode %04o): they could replace its "
			 "FIFOs; refusing to use it",
			 d->path, st.st_mode & S_IWOTH ? "every user" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int sbdir_open(struct sbdir *d, const char *path, mode_t mode, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	memset(d, 0, sizeof *d);
	d->fd = d->parent_fd = -1;
	if (!path) {
		const char *base = getenv("XDG_RUNTIME_DIR"), *what = "$XDG_RUNTIME_DIR";

		if (!base || base[0] != '/' || access(base, W_OK | X_OK) != 0) {
			base = "/tmp";
			what = "/tmp";
		}
		d->parent_fd = sbdir_open_chain(base, what, 1, err, errlen);
		if (d->parent_fd < 0 || sbdir_mktemp(d, base, mode, err, errlen) < 0)
			goto error;
	} else if (strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/dev/fd/", 8) == 0) {
		/* /proc/self/fd/N/box is another directory, or none, in each
		 * client that resolves it. */
		snprintf(err, errlen,
			 "%s: a path through /proc or /dev/fd means something else in each "
			 "client; give the directory's own path",
			 path);
		goto error;
	} else if (sbdir_make(d, path, mode, err, errlen) < 0) {
		goto error;
	}
	if (sbdir_claim(d, mode, err, errlen) < 0)
		goto error;
	/* An empty lock file: clients serialise with flock(2) on it. */
	fd = openat(d->fd, "lock", O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		d->lock_created = 1;
		/* 0644 whatever the umask: clients of other users may need to
		 * open it to take the lock. */
		if (fchmod(fd, 0644) < 0) {
			snprintf(err, errlen, "chmod %s/lock: %s", d->path, strerror(errno));
			close(fd);
			goto error;
		}
		close(fd);
	} else if (errno == EEXIST) {
		if (fstatat(d->fd, "lock", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "%s/lock exists and is not a regular file", d->path);
			goto error;
		}
	} else {
		snprintf(err, errlen, "cannot create %s/lock: %s", d->path, strerror(errno));
		goto error;
	}
	return 0;
error:
	sbdir_close(d);
	return -1;
}

void sbdir_close(struct sbdir *d)
{
	if (d->fd >= 0 && d->lock_created)
		unlinkat(d->fd, "lock", 0);
	/* From the parent checked at the start, not by the path. */
	if (d->created && d->parent_fd >= 0 && d->name)
		unlinkat(d->parent_fd, d->name, AT_REMOVEDIR);
	if (d->parent_fd >= 0)
		close(d->parent_fd);
	/* The lifetime lock goes last: a client that finds it free knows
	 * that everything is gone and DIR can serve a new proctord. */
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	free(d->name);
	memset(d, 0, sizeof *d);
	d->fd = d->parent_fd = -1;
}

/* The sandbox directory and every directory above it, up to /, by device
 * and inode (a path would miss a directory reached by another name). */
struct sbdir_chain {
	struct stat *st;
	size_t n;
};

/* The directory fd and those above it, following "..". Returns 0, or -1. */
static int sbdir_chain_make(struct sbdir_chain *c, int fd)
{
	int cur = dup(fd);

	c->st = NULL;
	c->n = 0;
	while (cur >= 0) {
		int up;

		c->st = xreallocarray(c->st, c->n + 1, sizeof *c->st);
		if (fstat(cur, &c->st[c->n]) < 0)
			break;
		/* "/" is its own parent. */
		if (c->n > 0 && c->st[c->n].st_dev == c->st[c->n - 1].st_dev &&
		    c->st[c->n].st_ino == c->st[c->n - 1].st_ino) {
			close(cur);
			return 0;
		}
		c->n++;
		up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(cur);
		cur = up;
	}
	if (cur >= 0)
		close(cur);
	free(c->st);
	return -1;
}

/* Where st is in the chain: 0 the sandbox directory, 1 its parent, ...; or
 * -1. */
static ssize_t sbdir_chain_find(const struct sbdir_chain *c, const struct stat *st)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->st[i].st_dev == st->st_dev && c->st[i].st_ino == st->st_ino)
			return (ssize_t)i;
	return -1;
}

/* Whether what fd is (O_PATH, is_dir: a directory, else a file whose path,
 * every link resolved, is real) is inside the sandbox directory. The
 * directories above it are walked up to the first of the chain. */
static int sbdir_holds(const struct sbdir_chain *c, int fd, int is_dir, const char *real)
{
	char parent[PATH_MAX];
	struct stat st;
	ssize_t at = -1;
	int cur, up;

	if (is_dir) {
		cur = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		snprintf(parent, sizeof parent, "%s", real);
		*strrchr(parent, '/') = '\0';
		cur = open(parent[0] ? parent : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	/* Cannot be walked: say it is inside, rather than risk it. */
	while (cur >= 0 && fstat(cur, &st) == 0 && (at = sbdir_chain_find(c, &st)) < 0) {
		up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(cur);
		cur = up;
	}
	if (cur >= 0)
		close(cur);
	return at <= 0;
}

int sbdir_reached(const struct sbdir *d, const int *fds, const int *is_dir,
		  const char *const *real, size_t n)
{
	struct sbdir_chain c;
	struct stat st;
	int found = -1;

	if (sbdir_chain_make(&c, d->fd) < 0)
		return -2;
	for (size_t i = 0; i < n && found < 0; i++) {
		if (fstat(fds[i], &st) < 0)
			continue;
		/* The sandbox directory, one above it, or one inside it. */
		if ((is_dir[i] && sbdir_chain_find(&c, &st) >= 0) ||
		    sbdir_holds(&c, fds[i], is_dir[i], real[i]))
			found = (int)i;
	}
	free(c.st);
	return found;
}
