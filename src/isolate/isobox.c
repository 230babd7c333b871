// SPDX-License-Identifier: ISC
// Boxes: the configuration that maps a box id to a directory and ids, --init, --cleanup, the lock.
#define _XOPEN_SOURCE 700
#include "isobox.h"
#include "isocaller.h"
#include "isopaths.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int iso_box_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

struct iso_config_state {
	struct iso_config *c;
	char bad[256];
};

static int iso_config_number(const char *value, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (errno || end == value || *end || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int iso_config_abs(const char *value, char *out, size_t len)
{
	if (value[0] != '/' || strlen(value) >= len - 64)
		return -1;
	memcpy(out, value, strlen(value) + 1);
	return 0;
}

/* inih's handler: isolate's keys; those of isolate's that proctor has no
 * use for (cgroups are proctord's) are read and ignored. */
static int iso_config_key(void *user, const char *section, const char *name, const char *value)
{
	static const char *const ignored[] = {"cg_root", "restricted_init", "syscall_flags", NULL};
	struct iso_config_state *st = user;
	struct iso_config *c = st->c;
	int rc = -1;

	if (st->bad[0])
		return 1;
	if (section[0] == '\0' && strcmp(name, "box_root") == 0)
		rc = iso_config_abs(value, c->box_root, sizeof c->box_root);
	else if (section[0] == '\0' && strcmp(name, "lock_root") == 0)
		rc = iso_config_abs(value, c->lock_root, sizeof c->lock_root);
	else if (section[0] == '\0' && strcmp(name, "first_uid") == 0)
		rc = iso_config_number(value, INT_MAX, &c->first_uid);
	else if (section[0] == '\0' && strcmp(name, "first_gid") == 0)
		rc = iso_config_number(value, INT_MAX, &c->first_gid);
	else if (section[0] == '\0' && strcmp(name, "num_boxes") == 0)
		rc = iso_config_number(value, INT_MAX, &c->num_boxes);
	else if (section[0] == '\0' && strcmp(name, "setuid_group") == 0 && *value &&
		 strlen(value) < sizeof c->setuid_group)
		rc = (int)(snprintf(c->setuid_group, sizeof c->setuid_group, "%s", value) < 0);
	for (size_t i = 0; rc < 0 && ignored[i]; i++)
		if (strcmp(name, ignored[i]) == 0)
			rc = 0;
	if (rc < 0)
		snprintf(st->bad, sizeof st->bad, "%s = %s", name, value);
	return 1;
}

int iso_config_read(struct iso_config *c, const struct iso_caller *caller, char *err,
		    size_t errlen)
{
	const char *env = getenv("PROCTOR_ISOLATE_CONFIG");
	const char *path = iso_config_path;
	struct iso_config_state st = {.c = c, .bad = ""};
	FILE *f;
	int line, missing = 0;

	memset(c, 0, sizeof *c);
	snprintf(c->box_root, sizeof c->box_root, "/var/local/lib/isolate");
	snprintf(c->lock_root, sizeof c->lock_root, "/run/proctor-isolate");
	c->first_uid = c->first_gid = 60000;
	c->num_boxes = 1000;
	snprintf(c->path, sizeof c->path, "%s", path);
	/* Only the sudo case: a set-user-ID caller's environment is its own,
	 * and so would be a file it could write. */
	if (env && *env && !caller->setuid)
		snprintf(c->path, sizeof c->path, "%s", path = env);
	/* Looked at as root, whether it is there too: access(2) would look
	 * with the caller's ids, which a directory of the caller's mode 0 on
	 * the way (where one may be made: a sticky directory) would blind to
	 * a file of the caller's that root then reads. */
	if (caller->setuid && iso_caller_trusted(path, &missing, err, errlen) < 0)
		return -1;
	f = missing ? NULL : fopen(path, "re");
	if (missing)
		errno = ENOENT;
	if (!f) {
		if (errno == ENOENT && path != env)
			return 0;
		return iso_box_fail(err, errlen, "Cannot open %s: %s", path, strerror(errno));
	}
	line = ini_parse_file(f, iso_config_key, &st);
	fclose(f);
	if (line != 0)
		return iso_box_fail(err, errlen, "%s:%d: syntax error", path, line);
	if (st.bad[0])
		return iso_box_fail(err, errlen, "%s: invalid or unknown setting: %s", path,
				    st.bad);
	if (c->num_boxes < 1 || c->first_uid == 0 || c->first_gid == 0)
		return iso_box_fail(err, errlen,
				    "%s: num_boxes, first_uid and first_gid must be above 0", path);
	return 0;
}

int iso_box_find(const struct iso_config *c, long id, struct iso_box *b, char *err, size_t errlen)
{
	memset(b, 0, sizeof *b);
	b->lock_fd = -1;
	if (id < 0 || id >= c->num_boxes)
		return iso_box_fail(err, errlen, "Sandbox ID out of range (allowed: 0-%ld)",
				    c->num_boxes - 1);
	/* Both below 2^32 - 1 (no overflow into (uid_t)-1 or past it). */
	if (c->first_uid + id > (long)UINT32_MAX - 2 || c->first_gid + id > (long)UINT32_MAX - 2)
		return iso_box_fail(err, errlen, "Sandbox ID %ld gives a uid or gid out of range",
				    id);
	b->id = id;
	b->uid = (uid_t)(c->first_uid + id);
	b->gid = (gid_t)(c->first_gid + id);
	snprintf(b->dir, sizeof b->dir, "%s/%ld", c->box_root, id);
	snprintf(b->box, sizeof b->box, "%s/box", b->dir);
	snprintf(b->lock, sizeof b->lock, "%s/%ld", c->lock_root, id);
	return 0;
}

/* A directory of ours (root's) on the way: made 0755 if missing. */
static int iso_box_mkdir(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return iso_box_fail(err, errlen, "Cannot create %s: %s", path, strerror(errno));
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return iso_box_fail(err, errlen, "%s is not a directory", path);
	if (st.st_uid != geteuid() || (st.st_mode & 022))
		return iso_box_fail(err, errlen, "%s must be ours and writable by us alone", path);
	return 0;
}

int iso_box_open_lock(struct iso_box *b, char *err, size_t errlen)
{
	const char *slash = strrchr(b->lock, '/');
	char root[1100];

	snprintf(root, sizeof root, "%.*s", (int)(slash - b->lock), b->lock);
	if (iso_box_mkdir(root, err, errlen) < 0)
		return -1;
	/* Never removed: a file unlinked while another waits on its lock
	 * would let two runs hold "the" lock at once. */
	b->lock_fd = open(b->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (b->lock_fd < 0)
		return iso_box_fail(err, errlen, "Cannot open %s: %s", b->lock, strerror(errno));
	return 0;
}

int iso_box_lock(struct iso_box *b, int wait, char *err, size_t errlen)
{
	if (b->lock_fd < 0 && iso_box_open_lock(b, err, errlen) < 0)
		return -1;
	while (flock(b->lock_fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		if (errno == EINTR)
			continue;
		if (errno == EWOULDBLOCK)
			return iso_box_fail(err, errlen,
					    "This box is currently in use by another process");
		return iso_box_fail(err, errlen, "Cannot lock %s: %s", b->lock, strerror(errno));
	}
	return 0;
}

/* The box's owner as --init wrote it in the lock file ("owner UID"), or
 * -1: never initialised, cleaned up since, or by another version. */
static long iso_box_owner(const struct iso_box *b)
{
	char buf[64], *end;
	ssize_t n = pread(b->lock_fd, buf, sizeof buf - 1, 0);
	long uid;

	if (n <= 6)
		return -1;
	buf[n] = '\0';
	if (strncmp(buf, "owner ", 6) != 0)
		return -1;
	errno = 0;
	uid = strtol(buf + 6, &end, 10);
	return errno || end == buf + 6 || *end != '\n' || uid < 0 ? -1 : uid;
}

int iso_box_set_owner(const struct iso_box *b, long uid, char *err, size_t errlen)
{
	char buf[64];
	int n = uid < 0 ? 0 : snprintf(buf, sizeof buf, "owner %ld\n", uid);

	if (ftruncate(b->lock_fd, 0) < 0 || (n && pwrite(b->lock_fd, buf, (size_t)n, 0) != n))
		return iso_box_fail(err, errlen, "Cannot write %s: %s", b->lock, strerror(errno));
	return 0;
}

int iso_box_foreign(const struct iso_box *b, const struct iso_caller *c, char *err, size_t errlen)
{
	long owner = iso_box_owner(b);

	if (c->setuid && owner >= 0 && owner != (long)c->uid)
		return iso_box_fail(err, errlen, "This box belongs to a different user (uid %ld)",
				    owner);
	return 0;
}

int iso_box_may(const struct iso_box *b, const struct iso_caller *c, int init, char *err,
		size_t errlen)
{
	long owner = iso_box_owner(b);
	struct stat st;

	if (!c->setuid || owner == (long)c->uid)
		return 0;
	if (iso_box_foreign(b, c, err, errlen) < 0)
		return -1;
	/* Nobody's: a new box is anyone's; an old one only root's. */
	if (init || (lstat(b->dir, &st) < 0 && errno == ENOENT))
		return 0;
	return iso_box_fail(err, errlen,
			    "This box was not initialised by you (uid %u): run --init first",
			    (unsigned)c->uid);
}

/* The directory name in pfd, opened without following a link, and only
 * if it is still the directory *st says. Returns it, or -1. */
static int iso_rm_open(int pfd, const char *name, const struct stat *st)
{
	struct stat now;
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

/* Whose directories iso_rm_tree may go into: anyone's (sudo), or only
 * the caller's and the box user's (set-user-ID). Another's directory in
 * box/ is one the caller moved there from a directory of its own (it
 * cannot have been made there): root emptying it would remove what the
 * caller could not. */
struct iso_rm_owners {
	int any;
	uid_t uid[2];
};

/* Remove what fd holds but directories; the first directory met is put in
 * name and st (returns 1). 0: fd is empty now; -1 with errno: an entry
 * could not go, a directory is a mount point (another dev, EBUSY) or
 * another's (EPERM). */
static int iso_rm_scan(int fd, dev_t dev, const struct iso_rm_owners *own,
		       char name[NAME_MAX + 1], struct stat *st)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	while (rc == 0 && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(fd, e->d_name, st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = errno == ENOENT ? 0 : -1;
		} else if (S_ISDIR(st->st_mode) && st->st_dev != dev) {
			errno = EBUSY;
			rc = -1;
		} else if (S_ISDIR(st->st_mode) && !own->any && st->st_uid != own->uid[0] &&
			   st->st_uid != own->uid[1]) {
			errno = EPERM;
			rc = -1;
		} else if (S_ISDIR(st->st_mode)) {
			snprintf(name, NAME_MAX + 1, "%s", e->d_name);
			rc = 1;
		} else if (unlinkat(fd, e->d_name, 0) < 0 && errno != ENOENT) {
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

struct iso_rm_level {
	dev_t dev;
	ino_t ino;
	char name[NAME_MAX + 1];
};

/* Up from fd (the directory of level lv, now empty) to its parent, which
 * must be the directory up says, and remove it there. Returns the parent's
 * descriptor (fd is closed), or -1. */
static int iso_rm_up(int fd, const struct iso_rm_level *lv, const struct iso_rm_level *up)
{
	int pfd = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	close(fd);
	if (pfd >= 0 && (fstat(pfd, &st) < 0 || st.st_dev != up->dev || st.st_ino != up->ino)) {
		close(pfd);
		errno = ESTALE; /* moved meanwhile: stop rather than go elsewhere */
		return -1;
	}
	if (pfd >= 0 && unlinkat(pfd, lv->name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
		close(pfd);
		return -1;
	}
	return pfd;
}

/* The tree name in top, descriptor by descriptor: never through a symbolic
 * link, never into another file system, never into a directory own does
 * not allow, and never above name, however the caller (who owns box/)
 * renames its directories meanwhile; one
 * descriptor open at a time, so any depth. Returns 0, or -1 with errno. */
static int iso_rm_tree(int top, const char *name, const struct iso_rm_owners *own)
{
	struct iso_rm_level *stack = NULL;
	size_t depth = 0, cap = 0;
	struct stat st;
	int fd, r = 0;

	if (fstatat(top, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(top, name, 0);
	fd = iso_rm_open(top, name, &st);
	if (fd < 0)
		return -1;
	for (char next[NAME_MAX + 1] = ""; fd >= 0;) {
		if (depth == cap) {
			cap = cap ? cap * 2 : 16;
			stack = xreallocarray(stack, cap, sizeof *stack);
		}
		stack[depth].dev = st.st_dev;
		stack[depth].ino = st.st_ino;
		snprintf(stack[depth].name, sizeof stack->name, "%s", depth ? next : name);
		depth++;
		while (fd >= 0 && (r = iso_rm_scan(fd, stack[0].dev, own, next, &st)) == 0) {
			if (--depth == 0) {
				close(fd);
				fd = -1;
				r = unlinkat(top, stack[0].name, AT_REMOVEDIR);
			} else {
				fd = iso_rm_up(fd, &stack[depth], &stack[depth - 1]);
				r = fd < 0 ? -1 : 0;
			}
		}
		if (fd < 0 || r < 0)
			break;
		{
			int child = iso_rm_open(fd, next, &st);

			close(fd);
			fd = child;
			r = child < 0 ? -1 : 0;
		}
	}
	{
		int saved = errno;

		free(stack);
		if (fd >= 0)
			close(fd);
		errno = saved;
	}
	return r < 0 ? -1 : 0;
}

/* The whole of dir (box_root/N): what the program and the caller left in
 * box/ is theirs (iso_rm_tree); set-user-ID, every directory below dir
 * must be the caller's or the box user's. */
static int iso_box_rmtree(const struct iso_box *b, char *err, size_t errlen)
{
	const char *dir = b->dir, *slash = strrchr(dir, '/');
	struct iso_rm_owners own = {getuid() == 0, {getuid(), b->uid}};
	char parent[1100];
	int top, rc;

	snprintf(parent, sizeof parent, "%.*s", slash == dir ? 1 : (int)(slash - dir), dir);
	top = open(parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		return errno == ENOENT ? 0
				       : iso_box_fail(err, errlen, "%s: %s", parent, strerror(errno));
	rc = iso_rm_tree(top, slash + 1, &own);
	if (rc < 0)
		iso_box_fail(err, errlen, "Cannot remove %s: %s", dir, strerror(errno));
	close(top);
	return rc;
}

int iso_box_init(const struct iso_box *b, char *err, size_t errlen)
{
	char root[1100];
	const char *slash = strrchr(b->dir, '/');

	snprintf(root, sizeof root, "%.*s", (int)(slash - b->dir), b->dir);
	if (iso_box_mkdir(root, err, errlen) < 0 || iso_box_rmtree(b, err, errlen) < 0)
		return -1;
	if (mkdir(b->dir, 0755) < 0)
		return iso_box_fail(err, errlen, "Cannot create %s: %s", b->dir, strerror(errno));
	if (mkdir(b->box, 0700) < 0)
		return iso_box_fail(err, errlen, "Cannot create box: %s", strerror(errno));
	if (chown(b->box, getuid(), getgid()) < 0)
		return iso_box_fail(err, errlen, "Cannot chown box: %s", strerror(errno));
	return 0;
}

int iso_box_cleanup(const struct iso_box *b, char *err, size_t errlen)
{
	return iso_box_rmtree(b, err, errlen);
}
