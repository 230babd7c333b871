// SPDX-License-Identifier: ISC
// Boxes: the configuration that maps a box id to a directory and ids, --init, --cleanup, the lock.
#define _XOPEN_SOURCE 700
#include "isobox.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ISO_CONFIG_PATH
#define ISO_CONFIG_PATH "/usr/local/etc/proctor-isolate.conf"
#endif

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

static int iso_config_path(const char *value, char *out, size_t len)
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
		rc = iso_config_path(value, c->box_root, sizeof c->box_root);
	else if (section[0] == '\0' && strcmp(name, "lock_root") == 0)
		rc = iso_config_path(value, c->lock_root, sizeof c->lock_root);
	else if (section[0] == '\0' && strcmp(name, "first_uid") == 0)
		rc = iso_config_number(value, INT_MAX, &c->first_uid);
	else if (section[0] == '\0' && strcmp(name, "first_gid") == 0)
		rc = iso_config_number(value, INT_MAX, &c->first_gid);
	else if (section[0] == '\0' && strcmp(name, "num_boxes") == 0)
		rc = iso_config_number(value, INT_MAX, &c->num_boxes);
	for (size_t i = 0; rc < 0 && ignored[i]; i++)
		if (strcmp(name, ignored[i]) == 0)
			rc = 0;
	if (rc < 0)
		snprintf(st->bad, sizeof st->bad, "%s = %s", name, value);
	return 1;
}

int iso_config_read(struct iso_config *c, char *err, size_t errlen)
{
	const char *env = getenv("PROCTOR_ISOLATE_CONFIG");
	const char *path = ISO_CONFIG_PATH;
	struct iso_config_state st = {.c = c, .bad = ""};
	FILE *f;
	int line;

	memset(c, 0, sizeof *c);
	snprintf(c->box_root, sizeof c->box_root, "/var/local/lib/isolate");
	snprintf(c->lock_root, sizeof c->lock_root, "/run/proctor-isolate");
	c->first_uid = c->first_gid = 60000;
	c->num_boxes = 1000;
	/* Only the sudo case: a set-user-ID caller's environment is its own. */
	if (env && *env && getuid() == geteuid())
		path = env;
	f = fopen(path, "re");
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

int iso_box_lock(struct iso_box *b, int wait, char *err, size_t errlen)
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

static int iso_box_unlink(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

/* The whole of dir, without following a symbolic link nor crossing into
 * another file system (what the program left in box/ is the program's). */
static int iso_box_rmtree(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return errno == ENOENT ? 0
				       : iso_box_fail(err, errlen, "%s: %s", dir, strerror(errno));
	if (nftw(dir, iso_box_unlink, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0)
		return iso_box_fail(err, errlen, "Cannot remove %s: %s", dir, strerror(errno));
	return 0;
}

int iso_box_init(const struct iso_box *b, char *err, size_t errlen)
{
	char root[1100];
	const char *slash = strrchr(b->dir, '/');

	snprintf(root, sizeof root, "%.*s", (int)(slash - b->dir), b->dir);
	if (iso_box_mkdir(root, err, errlen) < 0 || iso_box_rmtree(b->dir, err, errlen) < 0)
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
	return iso_box_rmtree(b->dir, err, errlen);
}
