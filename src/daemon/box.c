// SPDX-License-Identifier: ISC
// The box: the program's own root, mount, PID, IPC, UTS and network namespaces.
//
// proctord resolves everything beforehand (box_prepare): each source is
// opened O_PATH, so what is bound is what was checked, whatever happens to
// the path afterwards, and the steps carry every string the init needs. The
// init (PID 1 of the program's PID namespace, proctord's code) then only
// makes system calls (box_child_enter): it unshares the other namespaces,
// makes every mount private so nothing reaches the host, mounts a tmpfs on a
// staging directory, builds the root there, remounts the read-only binds
// read-only (keeping the flags a user namespace locks), pivots into it and
// detaches the host's root. The mount namespace dies with its last process:
// nothing stays mounted anywhere.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box.h"
#include "config.h"
#include "identity.h"
#include "sbdir.h"
#include "sysfilter.h"
#include "units.h"
#include "util.h"

/* Where the root is built: any directory of the host does, the mount is
 * private and gone after the pivot. Sources are bound through their
 * descriptors, so what this hides (DIR under /tmp) does not matter. */
#define BOX_STAGE "/tmp"

/* What runs programs as Debian installs them. */
static const char *const box_system_dirs[] = {"/bin",	"/sbin",   "/lib", "/lib64",
					      "/lib32", "/libx32", NULL};
/* From the host's /etc, what the dynamic loader and the JVM read (the
 * /etc/java-* directories are added by name). */
static const char *const box_etc[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
				      "/etc/alternatives", NULL};
static const char *const box_proc_ro[] = {"sys", "sysrq-trigger", "irq", "bus", NULL};
static const char *const box_dev_nodes[] = {"null", "zero", "full", "random", "urandom", NULL};

static struct box_step *box_add(struct box *b, enum box_step_kind kind, const char *path)
{
	struct box_step *s;

	b->steps = xreallocarray(b->steps, b->n_steps + 1, sizeof *b->steps);
	s = &b->steps[b->n_steps++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->src_fd = -1;
	s->path = xstrdup(path);
	xasprintf(&s->staged, "%s%s", BOX_STAGE, path);
	return s;
}

static void box_add_data(struct box *b, enum box_step_kind kind, const char *path, const char *data)
{
	box_add(b, kind, path)->data = xstrdup(data);
}

static size_t box_n_fds(const struct box *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n_steps; i++)
		n += b->steps[i].src_fd >= 0;
	return n;
}

/* Bind fd (opened by the caller) at path. */
static int box_add_bind(struct box *b, int fd, const char *src, const char *path, int ro, char *err,
			size_t errlen)
{
	struct box_step *s;
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		close(fd);
		return -1;
	}
	if (box_n_fds(b) >= BOX_MAX_FDS) {
		snprintf(err, errlen, "%s: more than %d binds in one box", src, BOX_MAX_FDS);
		close(fd);
		return -1;
	}
	s = box_add(b, BOX_BIND, path);
	s->src = xstrdup(src);
	s->src_fd = fd;
	s->is_dir = S_ISDIR(st.st_mode);
	s->ro = ro;
	s->nosuid_nodev = 1;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	xasprintf(&s->data, "/proc/self/fd/%d", fd);
	/* Where it is, every link resolved: the init opens it again there. */
	s->real = xmalloc(PATH_MAX);
	n = readlink(s->data, s->real, PATH_MAX - 1);
	if (n < 0 || s->real[0] != '/') {
		snprintf(err, errlen, "%s: cannot tell where it is (%s)", src,
			 n < 0 ? strerror(errno) : "not reachable from /");
		return -1;
	}
	s->real[n] = '\0';
	return 0;
}

/* A path of the host that root owns: bound if a directory or a file, made
 * again if a symbolic link, skipped if missing. */
static int box_add_system(struct box *b, const char *path, char *err, size_t errlen)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	if (lstat(path, &st) < 0)
		return errno == ENOENT
			   ? 0
			   : (snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1);
	if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof target - 1);
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		target[n] = '\0';
		box_add_data(b, BOX_LINK, path, target);
		return 0;
	}
	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return box_add_bind(b, fd, path, path, 1, err, errlen);
}

/* The descriptors proctord was started with (3 and up), as
 * box_note_inherited found them before proctord opened any of its own. */
static unsigned char box_inherited[BOX_INHERITED_MAX / 8];

void box_note_inherited(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long n = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name || n < 3 || n >= BOX_INHERITED_MAX || n == dirfd(d))
			continue;
		box_inherited[n / 8] |= (unsigned char)(1u << (n % 8));
	}
	closedir(d);
}

/* SRC /proc/self/fd/N: the descriptor N proctord was started with, opened
 * by whoever started it with that one's own rights (proctor-isolate opens
 * a set-user-ID caller's --dir sources as the caller): that very file, no
 * walk. Never one of proctord's own (its cgroup's, its /etc's). -2 when
 * src is not of that form. */
static int box_inherited_source(const char *src, const char *what, char *err, size_t errlen)
{
	static const char prefix[] = "/proc/self/fd/";
	const char *digits = src + sizeof prefix - 1;
	struct stat st;
	char *end;
	long n;
	int fd;

	if (strncmp(src, prefix, sizeof prefix - 1) != 0 || *digits < '0' || *digits > '9')
		return -2;
	errno = 0;
	n = strtol(digits, &end, 10);
	if (*end || errno || n > INT_MAX)
		return -2;
	fd = n < BOX_INHERITED_MAX && (box_inherited[n / 8] & (1u << (n % 8)))
		 ? fcntl((int)n, F_DUPFD_CLOEXEC, 3)
		 : -1;
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s: not a descriptor proctord was started with", what,
			 src);
		return -1;
	}
	if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode) || S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s: %s: not a file or directory", what, src);
		close(fd);
		return -1;
	}
	return fd;
}

/* A source the caller named: its directories walked as sbdir does (a
 * symbolic link of another user on the way is refused), its last component
 * never a symbolic link; or a descriptor it passed (box_inherited_source). */
static int box_open_source(const char *src, const char *what, char *err, size_t errlen)
{
	char *copy, *slash, *base;
	int dir, fd = box_inherited_source(src, what, err, errlen);

	if (fd != -2)
		return fd;
	copy = xstrdup(src);
	slash = strrchr(copy, '/');
	base = slash + 1;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		/* "/", "/x/", "/x/..": the directory as a whole. */
		fd = sbdir_open_links(src, what, err, errlen);
		free(copy);
		return fd;
	}
	if (slash == copy)
		dir = sbdir_open_links("/", what, err, errlen);
	else {
		*slash = '\0';
		dir = sbdir_open_links(copy, what, err, errlen);
	}
	if (dir < 0) {
		free(copy);
		return -1;
	}
	fd = openat(dir, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		snprintf(err, errlen, "%s: %s: %s", what, src, strerror(errno));
	else {
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
			snprintf(err, errlen,
				 "%s: %s is a symbolic link: give the path it points to", what,
				 src);
			close(fd);
			fd = -1;
		}
	}
	close(dir);
	free(copy);
	return fd;
}

/* "/a/./b//c": absolute, no "..", no empty tail. Returns 0 or -1. */
static int box_path_ok(const char *p)
{
	if (p[0] != '/' || strstr(p, "/../") || strcmp(p, "/") == 0)
		return -1;
	size_t n = strlen(p);

	if (n >= 3 && strcmp(p + n - 3, "/..") == 0)
		return -1;
	return 0;
}

/* Whether p is absolute with only plain names: no ".", "..", empty name
 * nor trailing "/" (what the string alone says where it leads). */
static int box_path_plain(const char *p)
{
	if (p[0] != '/')
		return 0;
	for (const char *c = p; *c == '/'; c = c + strcspn(c + 1, "/") + 1) {
		size_t len = strcspn(c + 1, "/");

		if (len == 0 || (c[1] == '.' && (len == 1 || (len == 2 && c[2] == '.'))))
			return 0;
	}
	return 1;
}

static size_t box_depth(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		d += *p == '/';
	return d;
}

/* Whether path is top or below it. */
static int box_path_under(const char *path, const char *top)
{
	size_t len = strlen(top);

	if (len == 1 && top[0] == '/')
		return 1;
	return strncmp(path, top, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* Free what one step holds. */
static void box_step_free(struct box_step *s)
{
	if (s->src_fd >= 0)
		close(s->src_fd);
	free(s->path);
	free(s->staged);
	free(s->src);
	free(s->real);
	free(s->data);
	for (size_t j = 0; j < sizeof s->staged_ro / sizeof s->staged_ro[0]; j++)
		free(s->staged_ro[j]);
}

/* A bind at dst wins over what an earlier step put at dst or below it (a
 * bind of the host's /etc over the box's ld.so.cache and passwd, a second
 * bind on one path), as isolate's later rules replace its defaults: that
 * step is dropped, not mounted and then hidden (its read-only remount
 * would reach the new bind's file, not a mount point). DIR at /box stays. */
static void box_drop_under(struct box *b, const char *dst)
{
	size_t kept = 0;

	for (size_t i = 0; i < b->n_steps; i++) {
		struct box_step *s = &b->steps[i];

		if (strcmp(s->path, "/box") != 0 && box_path_under(s->path, dst)) {
			box_step_free(s);
			continue;
		}
		b->steps[kept++] = *s;
	}
	b->n_steps = kept;
}

/* --box-omit: what the box would have at each PATH and below is left out
 * (isolate's --dir=PATH= on one of its default rules); DIR stays. */
static int box_omit(struct box *b, const struct config *c, char *err, size_t errlen)
{
	for (size_t i = 0; i < c->box_omit.n; i++) {
		const char *p = c->box_omit.v[i];

		/* Plain names only: "/proc/" or "/x/../proc" would match no
		 * step and leave /proc there without a word. */
		if (!box_path_plain(p) || box_path_under("/box", p)) {
			snprintf(err, errlen,
				 "--box-omit %s: an absolute path of plain names (no ., .., // nor "
				 "trailing /), not / nor /box (DIR stays)",
				 p);
			return -1;
		}
		box_drop_under(b, p);
	}
	return 0;
}

/* The caller's binds, parents before what they hold: "SRC" or "SRC:DST".
 * A bind replaces what the box or an earlier bind had at DST or below. */
static int box_add_user_binds(struct box *b, const struct config *c, char *err, size_t errlen)
{
	struct {
		const char *spec;
		int ro;
	} all[3 * BOX_MAX_FDS];
	size_t n = 0;

	/* ro: 0 --bind, 1 --ro-bind, 2 --dev-bind (read-only, devices kept) */
	for (int ro = 0; ro < 3; ro++) {
		const struct config_list *l = ro == 2 ? &c->dev_bind : ro ? &c->ro_bind : &c->bind;

		for (size_t i = 0; i < l->n; i++) {
			if (n >= sizeof all / sizeof all[0]) {
				snprintf(err, errlen, "more than %d binds in one box", BOX_MAX_FDS);
				return -1;
			}
			all[n].spec = l->v[i];
			all[n++].ro = ro;
		}
	}
	for (size_t round = 1; round <= PATH_MAX; round++) {
		int more = 0;

		for (size_t i = 0; i < n; i++) {
			const char *colon = strchr(all[i].spec, ':');
			const char *dst = colon ? colon + 1 : all[i].spec;
			const char *opt = all[i].ro == 2 ? "--dev-bind"
					  : all[i].ro	 ? "--ro-bind"
							 : "--bind";
			char *src = colon ? strndup(all[i].spec, (size_t)(colon - all[i].spec))
					  : xstrdup(all[i].spec);
			size_t d = box_depth(dst);
			int fd;

			if (!src)
				abort();
			more |= d > round;
			if (d != round) {
				free(src);
				continue;
			}
			if (!colon && strncmp(src, "/proc/self/fd/", 14) == 0) {
				snprintf(err, errlen, "%s %s: a descriptor's bind needs its DST",
					 opt, all[i].spec);
				free(src);
				return -1;
			}
			if (src[0] != '/' || box_path_ok(dst) < 0) {
				snprintf(err, errlen,
					 "%s %s: SRC and DST must be absolute paths, DST not / and "
					 "without ..",
					 opt, all[i].spec);
				free(src);
				return -1;
			}
			box_drop_under(b, dst);
			fd = box_open_source(src, opt, err, errlen);
			if (fd < 0 || box_add_bind(b, fd, src, dst, all[i].ro != 0, err, errlen) < 0) {
				free(src);
				return -1;
			}
			free(src);
			if (all[i].ro == 2) {
				b->steps[b->n_steps - 1].nosuid_nodev = 0;
				b->steps[b->n_steps - 1].nosuid = 1;
			}
		}
		if (!more)
			break;
	}
	return 0;
}

static int box_add_etc(struct box *b, char *err, size_t errlen)
{
	DIR *d;
	struct dirent *e;

	for (size_t i = 0; box_etc[i]; i++)
		if (box_add_system(b, box_etc[i], err, errlen) < 0)
			return -1;
	/* The JVM's configuration: /usr/lib/jvm/.../conf links into it. */
	d = opendir("/etc");
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *p;
		int r;

		if (strncmp(e->d_name, "java-", 5) != 0)
			continue;
		xasprintf(&p, "/etc/%s", e->d_name);
		r = box_add_system(b, p, err, errlen);
		free(p);
		if (r < 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

/* /etc/passwd and /etc/group of the box: root, nobody and the program's
 * user, nothing of the host's other accounts. */
static void box_add_accounts(struct box *b, uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid);
	struct group *gr = getgrgid(gid);
	char *passwd, *group;

	if (uid == 0 || uid == 65534)
		passwd = xstrdup("");
	else
		xasprintf(&passwd, "%s:x:%u:%u::/box:/bin/sh\n", pw ? pw->pw_name : "box",
			  (unsigned)uid, (unsigned)gid);
	if (gid == 0 || gid == 65534)
		group = xstrdup("");
	else
		xasprintf(&group, "%s:x:%u:\n", gr ? gr->gr_name : "box", (unsigned)gid);
	xasprintf(&box_add(b, BOX_FILE, "/etc/passwd")->data,
		  "root:x:0:0:root:/root:/bin/sh\n"
		  "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n%s",
		  passwd);
	xasprintf(&box_add(b, BOX_FILE, "/etc/group")->data, "root:x:0:\nnogroup:x:65534:\n%s",
		  group);
	box_add_data(b, BOX_FILE, "/etc/nsswitch.conf",
		     "passwd: files\ngroup: files\nshadow: files\nhosts: files\n");
	box_add_data(b, BOX_FILE, "/etc/hosts", "127.0.0.1 localhost\n::1 localhost\n");
	free(passwd);
	free(group);
}

static void box_add_dev(struct box *b, const char *tmp_opts, char *err, size_t errlen, int *failed)
{
	static const char *const links[][2] = {
	    {"/dev/fd", "/proc/self/fd"},
	    {"/dev/stdin", "/proc/self/fd/0"},
	    {"/dev/stdout", "/proc/self/fd/1"},
	    {"/dev/stderr", "/proc/self/fd/2"},
	};

	for (size_t i = 0; box_dev_nodes[i] && !*failed; i++) {
		char *p;
		int fd;

		xasprintf(&p, "/dev/%s", box_dev_nodes[i]);
		fd = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, errlen, "--box: %s: %s", p, strerror(errno));
			*failed = 1;
		} else if (box_add_bind(b, fd, p, p, 1, err, errlen) < 0) {
			*failed = 1;
		} else {
			/* The host's nodes, owned by uid 0: read-only, so that a
			 * program run as uid 0 cannot chmod, chown or touch them
			 * (a read-only mount still reads and writes a device).
			 * The host's /dev flags, not nodev. */
			b->steps[b->n_steps - 1].nosuid_nodev = 0;
		}
		free(p);
	}
	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
		box_add_data(b, BOX_LINK, links[i][0], links[i][1]);
	box_add_data(b, BOX_TMPFS, "/dev/shm", tmp_opts);
}

int box_prepare(struct box *b, const struct config *c, uid_t uid, gid_t gid, char *err,
		size_t errlen)
{
	char tmp_opts[64];
	int fd, failed = 0;

	memset(b, 0, sizeof *b);
	if (!c->box) {
		if (c->ro_bind.n || c->bind.n || c->dev_bind.n || c->box_omit.n || c->share_net ||
		    c->loopback) {
			snprintf(err, errlen, "--%s: only in a box (give --box DIR)",
				 c->ro_bind.n	 ? "ro-bind"
				 : c->bind.n	 ? "bind"
				 : c->dev_bind.n ? "dev-bind"
				 : c->box_omit.n ? "box-omit"
				 : c->share_net	 ? "share-net"
						 : "loopback");
			return -1;
		}
		return 0;
	}
	b->active = 1;
	/* --unshare-net says otherwise: it wins. */
	b->share_net = c->share_net && !c->unshare_net;
	b->loopback = c->loopback && !b->share_net;
	if (c->tmp_size == UNITS_UNLIMITED)
		snprintf(tmp_opts, sizeof tmp_opts, "mode=1777");
	else
		snprintf(tmp_opts, sizeof tmp_opts, "mode=1777,size=%llu",
			 (unsigned long long)c->tmp_size);
	fd = open("/usr", O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "--box: /usr: %s", strerror(errno));
		goto fail;
	}
	if (box_add_bind(b, fd, "/usr", "/usr", 1, err, errlen) < 0)
		goto fail;
	for (size_t i = 0; box_system_dirs[i]; i++)
		if (box_add_system(b, box_system_dirs[i], err, errlen) < 0)
			goto fail;
	if (box_add_etc(b, err, errlen) < 0)
		goto fail;
	box_add_accounts(b, uid, gid);
	box_add_dev(b, tmp_opts, err, errlen, &failed);
	if (failed)
		goto fail;
	{
		struct box_step *p = box_add(b, BOX_PROC, "/proc");

		for (size_t i = 0; box_proc_ro[i]; i++)
			xasprintf(&p->staged_ro[i], "%s/%s", p->staged, box_proc_ro[i]);
	}
	box_add_data(b, BOX_TMPFS, "/tmp", tmp_opts);
	fd = sbdir_open_links(c->box, "--box", err, errlen);
	if (fd < 0 || box_add_bind(b, fd, c->box, "/box", 0, err, errlen) < 0)
		goto fail;
	if (box_omit(b, c, err, errlen) < 0 || box_add_user_binds(b, c, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	box_free(b);
	return -1;
}

int box_check_apart(const struct box *b, const struct sbdir *d, char *err, size_t errlen)
{
	int fds[BOX_MAX_FDS], dirs[BOX_MAX_FDS];
	const char *real[BOX_MAX_FDS];
	const struct box_step *from[BOX_MAX_FDS];
	size_t n = 0;
	int i;

	for (size_t k = 0; b->active && k < b->n_steps && n < BOX_MAX_FDS; k++) {
		if (b->steps[k].kind != BOX_BIND)
			continue;
		from[n] = &b->steps[k];
		fds[n] = b->steps[k].src_fd;
		dirs[n] = b->steps[k].is_dir;
		real[n++] = b->steps[k].real;
	}
	i = n ? sbdir_reached(d, fds, dirs, real, n) : -1;
	if (i == -1)
		return 0;
	if (i == -2)
		snprintf(err, errlen,
			 "sandbox directory %s: cannot tell whether the program could reach it "
			 "(%s)",
			 d->path, strerror(errno));
	else
		snprintf(err, errlen,
			 "sandbox directory %s is within the program's reach, through %s (at %s in "
			 "the box): it could put a directory with FIFOs of its own in its place; "
			 "choose one outside the box and its binds",
			 d->path, from[i]->src, from[i]->path);
	return -1;
}

int box_reaches_fd(const struct box *b, int dirfd)
{
	struct stat st, root;
	int fd, reached = 0;

	if (!b->active || stat("/", &root) < 0)
		return 0;
	fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	/* Up to / (or as far as ".." leads): is any of them DIR or the source
	 * of a read-write bind? */
	for (int up = 0; fd >= 0 && !reached && up < 4096; up++) {
		int parent;

		if (fstat(fd, &st) < 0 || (st.st_dev == root.st_dev && st.st_ino == root.st_ino))
			break;
		for (size_t i = 0; i < b->n_steps && !reached; i++) {
			const struct box_step *s = &b->steps[i];

			reached = s->kind == BOX_BIND && !s->ro && s->is_dir && s->dev == st.st_dev &&
				  s->ino == st.st_ino;
		}
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = parent;
	}
	if (fd >= 0)
		close(fd);
	return reached;
}

/* The directory bind (DIR among them) whose source holds the host path
 * path, the deepest, by the name the caller gave it or where it is; *rest
 * is the path below its source ("." for the source itself). NULL when
 * none does, or path is not absolute with plain names only. */
static const struct box_step *box_base_step(const struct box *b, const char *path,
					    const char **rest)
{
	const struct box_step *best = NULL;
	size_t best_len = 0;

	if (!box_path_plain(path))
		return NULL;
	for (size_t i = 0; i < b->n_steps; i++) {
		const struct box_step *s = &b->steps[i];
		const char *tops[2] = {s->src, s->real};

		for (size_t j = 0; s->kind == BOX_BIND && s->is_dir && s->src_fd >= 0 && j < 2; j++) {
			if (tops[j] && box_path_under(path, tops[j]) && strlen(tops[j]) > best_len) {
				best = s;
				best_len = strlen(tops[j]);
			}
		}
	}
	if (!best)
		return NULL;
	for (*rest = path + best_len; **rest == '/'; (*rest)++)
		;
	if (!**rest)
		*rest = ".";
	return best;
}

int box_fifo_judges(const struct stat *dir, const struct stat *fifo, uid_t uid)
{
	return S_ISFIFO(fifo->st_mode) && fifo->st_nlink == 1 && dir->st_uid != uid &&
	       fifo->st_uid != uid && !(dir->st_mode & (S_IWGRP | S_IWOTH));
}

int box_reaches(const struct box *b, const char *path)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS};
	const char *rest = path;
	const struct box_step *base = b->active ? box_base_step(b, path, &rest) : NULL;
	char *dir, *slash;
	int fd, from = base ? base->src_fd : AT_FDCWD, reached;

	if (!b->active)
		return 0;
	/* The child opens it from that source down (box_child_base), by
	 * whatever name the caller gave the source, links and all: DIR or a
	 * read-write bind holds it whatever its directories become. */
	if (base && !base->ro)
		return 1;
	dir = xstrdup(rest);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	how.resolve |= base ? RESOLVE_BENEATH : 0;
	fd = (int)syscall(SYS_openat2, from, slash ? dir : ".", &how, sizeof how);
	/* Without openat2 (valgrind), the walk that follows links: a path with
	 * one fails the init's own open anyway. */
	if (fd < 0 && errno == ENOSYS)
		fd = openat(from, slash ? dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	/* Cannot tell: as if it could, so that a FIFO there is opened only
	 * where the program could not have put it. */
	if (fd < 0)
		return 1;
	reached = box_reaches_fd(b, fd);
	close(fd);
	return reached;
}

int box_check_program(const struct box *b, const char *prog, char *err, size_t errlen)
{
	const struct box_step *best = NULL;
	size_t best_len = 0;
	const char *name;

	/* A bare name is looked up in the box's PATH, a relative path from
	 * its working directory: only an absolute path can be told now, one
	 * of plain names (/opt/../usr/bin/cc is left to execve). */
	if (!b->active || !prog || !box_path_plain(prog))
		return 0;
	/* The root is a tmpfs of mount points: a path that is under none of
	 * them is nowhere in the box. /tmp and /dev/shm start empty: the
	 * host's /tmp/x is not the box's. */
	for (size_t i = 0; i < b->n_steps; i++)
		if (b->steps[i].kind != BOX_TMPFS && box_path_under(prog, b->steps[i].path))
			return 0;
	/* It may be in DIR or a bind, under the name the box gives it. */
	for (size_t i = 0; i < b->n_steps; i++) {
		const struct box_step *s = &b->steps[i];
		const char *tops[2] = {s->src, s->real};

		for (size_t j = 0; s->kind == BOX_BIND && j < 2; j++) {
			if (tops[j] && box_path_under(prog, tops[j]) && strlen(tops[j]) > best_len) {
				best = s;
				best_len = strlen(tops[j]);
			}
		}
	}
	if (best) {
		snprintf(err, errlen,
			 "program %s is not in the box by that name: the box has it at %s%s; give "
			 "that path",
			 prog, best->path, prog + best_len);
		return -1;
	}
	name = strrchr(prog, '/') + 1;
	snprintf(err, errlen,
		 "program %s is not in the box, which has only /usr, the system directories, DIR "
		 "at /box and the binds: bind it in with --ro-bind %s (or its directory), or copy "
		 "it into DIR and give /box/%s",
		 prog, prog, name);
	return -1;
}

int box_child_base(const struct box *b, const char *path, const char **rest)
{
	const struct box_step *s = box_base_step(b, path, rest);

	return s ? s->src_fd : -1;
}

void box_free(struct box *b)
{
	for (size_t i = 0; i < b->n_steps; i++)
		box_step_free(&b->steps[i]);
	free(b->steps);
	memset(b, 0, sizeof *b);
}

size_t box_fds(const struct box *b, int *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n_steps && n < max; i++)
		if (b->steps[i].src_fd >= 0)
			out[n++] = b->steps[i].src_fd;
	return n;
}

int box_unshare_flags(const struct box *b)
{
	/* A cgroup namespace: /proc/self/cgroup says "/", not the host's
	 * path with proctord's pid. */
	return CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP |
	       (b->share_net ? 0 : CLONE_NEWNET);
}

/* --- the init's side: system calls only --- */

/* The box's network namespace holds one interface, lo, down: up, so that
 * 127.0.0.1 and ::1 reach the program itself (isolate's box has it so). */
static int box_child_loopback(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		r = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return r;
}

/* "/proc/self/fd/N" in buf, without stdio. */
static const char *box_fd_path(char buf[32], int fd)
{
	char digits[12];
	size_t n = 0, len = sizeof "/proc/self/fd/" - 1;

	memcpy(buf, "/proc/self/fd/", len);
	do
		digits[n++] = (char)('0' + fd % 10);
	while ((fd /= 10) > 0 && n < sizeof digits);
	while (n > 0)
		buf[len++] = digits[--n];
	buf[len] = '\0';
	return buf;
}

/* The file systems the init made (the root, /tmp, /dev/shm): the only ones
 * where it makes mount points. Anywhere else (DIR, a bind of the host's
 * /usr) a directory or file it made would be left in a host directory, as
 * root's: there the mount point must exist already. On box_child_enter's
 * stack. */
struct box_own {
	dev_t devs[8];
	size_t n;
};

static void box_child_own(struct box_own *own, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && own->n < sizeof own->devs / sizeof own->devs[0])
		own->devs[own->n++] = st.st_dev;
}

static int box_child_is_own(const struct box_own *own, int dir)
{
	struct stat st;

	if (fstat(dir, &st) < 0)
		return 0;
	for (size_t i = 0; i < own->n; i++)
		if (own->devs[i] == st.st_dev)
			return 1;
	return 0;
}

/* dir/name, an existing directory (is_dir) or regular file, opened O_PATH
 * without following a link; made first if dir is the box's own. Never
 * opened for reading or writing: a FIFO left there cannot block the init.
 * errno ENOENT (missing in a host directory), or for a wrong type (a link,
 * a FIFO, a socket, a device) ENOTDIR where a directory was wanted, EISDIR
 * or EINVAL where a regular file was. */
static int box_child_mount_point(const struct box_own *mine, int dir, const char *name, int is_dir)
{
	struct stat st;
	int fd, own = box_child_is_own(mine, dir);

	if (own && is_dir && mkdirat(dir, name, 0755) < 0 && errno != EEXIST)
		return -1;
	if (own && !is_dir && mknodat(dir, name, S_IFREG | 0644, 0) < 0 && errno != EEXIST)
		return -1;
	fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || (is_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
		close(fd);
		errno = is_dir ? ENOTDIR : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	return fd;
}

/* The directory that holds staged (the staging directory, or one under
 * it), its directories made on the way where they are the box's own; no
 * symbolic link is followed, since some (those in DIR) are the program's.
 * Returns an O_PATH descriptor and the last component in name (within
 * buf), or -1. */
static int box_child_parent(const struct box_own *own, const char *staged, char buf[PATH_MAX],
			    const char **name)
{
	size_t len = strlen(staged);
	char *p;
	int fd;

	if (len >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, staged, len + 1);
	fd = open(BOX_STAGE, O_PATH | O_DIRECTORY | O_CLOEXEC);
	p = buf + sizeof BOX_STAGE;
	while (fd >= 0) {
		char *slash = strchr(p, '/');
		int next, saved;

		if (!slash) {
			*name = p;
			return fd;
		}
		*slash = '\0';
		if (!*p) {
			p = slash + 1;
			continue;
		}
		next = box_child_mount_point(own, fd, p, 1);
		saved = errno;
		*slash = '/';
		close(fd);
		errno = saved;
		fd = next;
		p = slash + 1;
	}
	return -1;
}

/* The mount at staged (its root, not what it covers), O_PATH. */
static int box_child_open(const struct box_own *own, const char *staged, int flags)
{
	char buf[PATH_MAX];
	const char *name;
	int dir = box_child_parent(own, staged, buf, &name), fd, saved;

	if (dir < 0)
		return -1;
	fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | flags);
	saved = errno;
	close(dir);
	errno = saved;
	return fd;
}

/* A read-only or nosuid,nodev bind: a bind remount, with the flags the
 * mount has already (a user namespace locks them: dropping one is EPERM).
 * A device node keeps its mount's nodev or not: the host's /dev. */
static int box_child_remount(const struct box_own *own, const struct box_step *s)
{
	unsigned long flags = MS_REMOUNT | MS_BIND | (s->nosuid_nodev ? MS_NOSUID | MS_NODEV : 0) |
			      (s->nosuid ? MS_NOSUID : 0);
	int fd = box_child_open(own, s->staged, 0), r = -1, saved;
	struct statfs sf;
	char path[32];

	if (fd < 0)
		return -1;
	if (fstatfs(fd, &sf) == 0) {
		if (sf.f_flags & ST_RDONLY)
			flags |= MS_RDONLY;
		if (sf.f_flags & ST_NOSUID)
			flags |= MS_NOSUID;
		if (sf.f_flags & ST_NODEV)
			flags |= MS_NODEV;
		if (sf.f_flags & ST_NOEXEC)
			flags |= MS_NOEXEC;
		if (sf.f_flags & ST_NOATIME)
			flags |= MS_NOATIME;
		if (sf.f_flags & ST_NODIRATIME)
			flags |= MS_NODIRATIME;
		if (sf.f_flags & ST_RELATIME)
			flags |= MS_RELATIME;
		if (s->ro)
			flags |= MS_RDONLY;
		r = mount("none", box_fd_path(path, fd), "none", flags, NULL);
	}
	saved = errno;
	close(fd);
	errno = saved;
	return r;
}

/* What in /proc writes to the kernel as a whole: a file of root's there
 * takes a write from uid 0 without any capability (core_pattern). Each is
 * bound onto itself read-only. */
static int box_child_proc_ro(const struct box_own *own, const struct box_step *proc)
{
	size_t max = sizeof proc->staged_ro / sizeof proc->staged_ro[0];

	for (size_t i = 0; i < max && proc->staged_ro[i]; i++) {
		struct box_step s = {.staged = proc->staged_ro[i], .ro = 1};

		if (mount(s.staged, s.staged, "none", MS_BIND | MS_REC, NULL) < 0) {
			if (errno == ENOENT)
				continue;
			return -1;
		}
		if (box_child_remount(own, &s) < 0)
			return -1;
	}
	return 0;
}

/* A bind of a tree holding mounts the box cannot take apart: in a user
 * namespace (a container's), mounts inherited from the parent namespace
 * are locked together, and binding one without those below it, which may
 * cover what the container is not to see (Podman's and Docker's
 * /etc/hosts, /etc/hostname, /etc/resolv.conf), is EINVAL. Bound with them
 * then, and each of them gets the bind's read-only, nosuid and nodev at
 * once (the remount after every mount reaches only the top one). */
static int box_child_bind_rec(const struct box_own *own, const struct box_step *s,
			      const char *path)
{
	struct mount_attr attr = {0};
	int fd, r, saved;

	if (mount(s->data, path, "none", MS_BIND | MS_REC, NULL) < 0)
		return -1;
	attr.attr_set = (s->ro ? MOUNT_ATTR_RDONLY : 0) |
			(s->nosuid_nodev ? MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV : 0) |
			(s->nosuid ? MOUNT_ATTR_NOSUID : 0);
	if (attr.attr_set == 0)
		return 0;
	/* The new mount's root, by the staged path (the mount point's
	 * descriptor is below it). */
	fd = box_child_open(own, s->staged, 0);
	r = fd < 0 ? -1 : mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr);
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (r < 0)
		umount2(path, MNT_DETACH);
	errno = saved;
	return r;
}

static int box_child_make(struct box_own *own, const struct box_step *s, int dir, const char *name)
{
	char path[32];
	size_t len;
	int fd, r;

	switch (s->kind) {
	case BOX_LINK:
		return symlinkat(s->data, dir, name);
	case BOX_FILE:
		len = strlen(s->data);
		fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		r = write(fd, s->data, len) == (ssize_t)len ? 0 : -1;
		if (r < 0 && !errno)
			errno = EIO;
		close(fd);
		return r;
	default:
		break;
	}
	fd = box_child_mount_point(own, dir, name, s->kind != BOX_BIND || s->is_dir);
	if (fd < 0)
		return -1;
	box_fd_path(path, fd);
	if (s->kind == BOX_BIND) {
		r = mount(s->data, path, "none", MS_BIND, NULL);
		if (r < 0 && errno == EINVAL && s->is_dir)
			r = box_child_bind_rec(own, s, path);
	} else if (s->kind == BOX_TMPFS)
		r = mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, s->data);
	else
		r = mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	close(fd);
	if (r == 0 && s->kind == BOX_TMPFS) {
		fd = box_child_open(own, s->staged, O_DIRECTORY);
		if (fd >= 0) {
			box_child_own(own, fd);
			close(fd);
		}
	}
	if (r == 0 && s->kind == BOX_PROC)
		r = box_child_proc_ro(own, s);
	return r;
}

static int box_child_step(struct box_own *own, const struct box_step *s, const char **what)
{
	char buf[PATH_MAX];
	const char *name;
	int dir, r, saved;

	*what = s->path;
	dir = box_child_parent(own, s->staged, buf, &name);
	if (dir < 0)
		return -1;
	r = box_child_make(own, s, dir, name);
	saved = errno;
	close(dir);
	errno = saved;
	return r;
}

/* A descriptor opened in the host's mount namespace cannot be bound in a
 * new one: each source again, by the path it had, and it must be the very
 * file proctord checked. Before the staging mount hides anything. */
static int box_child_reopen(const struct box *b, const char **what)
{
	for (size_t i = 0; i < b->n_steps; i++) {
		const struct box_step *s = &b->steps[i];
		struct stat st;
		int fd;

		if (s->src_fd < 0)
			continue;
		*what = s->real;
		fd = open(s->real, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -1;
		if (fstat(fd, &st) == 0 && (st.st_dev != s->dev || st.st_ino != s->ino))
			errno = ESTALE; /* replaced since: not what was checked */
		else if (fstat(fd, &st) == 0 && dup2(fd, s->src_fd) >= 0)
			errno = 0;
		close(fd);
		if (errno)
			return -1;
	}
	return 0;
}

int box_child_enter(const struct box *b, const char **what)
{
	struct box_own own = {.n = 0};

	*what = "unshare(mount, IPC, UTS, cgroup, network namespaces)";
	if (unshare(box_unshare_flags(b)) < 0)
		return -1;
	/* Before any mount: nothing done here may propagate to the host. */
	*what = "making / private";
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	if (box_child_reopen(b, what) < 0)
		return -1;
	*what = "the root tmpfs";
	if (mount("proctor-box", BOX_STAGE, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") < 0)
		return -1;
	{
		int root = open(BOX_STAGE, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (root < 0)
			return -1;
		box_child_own(&own, root);
		close(root);
	}
	for (size_t i = 0; i < b->n_steps; i++)
		if (box_child_step(&own, &b->steps[i], what) < 0)
			return -1;
	/* After every mount: a read-only bind still held the mount points of
	 * what goes inside it. */
	for (size_t i = 0; i < b->n_steps; i++) {
		const struct box_step *s = &b->steps[i];

		*what = s->path;
		if (s->kind == BOX_BIND && (s->ro || s->nosuid_nodev) && box_child_remount(&own, s) < 0)
			return -1;
	}
	for (size_t i = 0; i < b->n_steps; i++)
		if (b->steps[i].src_fd >= 0)
			close(b->steps[i].src_fd);
	/* In the box's own UTS namespace only a seccomp profile refuses it
	 * (Podman's and Docker's without CAP_SYS_ADMIN, with EPERM): the box
	 * then keeps the name the host gave it, which it can read but not
	 * change, rather than failing. */
	*what = "sethostname";
	if (sethostname("proctor", 7) < 0 && errno != EPERM)
		return -1;
	*what = "bringing the loopback up";
	if (b->loopback && box_child_loopback() < 0)
		return -1;
	/* pivot_root(".", "."): the host's root ends up on top of the new one,
	 * and is detached at once; chroot alone could be climbed out of. */
	*what = "pivot_root";
	if (chdir(BOX_STAGE) < 0 || syscall(SYS_pivot_root, ".", ".") < 0)
		return -1;
	*what = "detaching the host's root";
	if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return -1;
	*what = "remounting / read-only";
	return mount("none", "/", "none", MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
		     NULL);
}
