// SPDX-License-Identifier: ISC
// What a box leaves to the host: no set-user-ID or set-group-ID file in DIR or a --bind.
//
// /box and the read-write binds are nosuid inside the box only. A program
// that ran as uid 0 there (no capability, but the owner of what it makes)
// could leave a set-user-ID root copy of a shell in DIR; as --user nobody, a
// set-user-ID nobody one. Once the box's last process is gone, proctord
// walks what the box could write and takes those bits off, before any
// answer says the program has ended.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box.h"
#include "boxstrip.h"
#include "log.h"
#include "util.h"

/* More entries than a judge's output has: past it the walk stops and says
 * so. */
#define STRIP_MAX_ENTRIES 1000000

struct strip_walk {
	dev_t dev; /* no other file system: a mount point under DIR is not ours */
	size_t entries;
	size_t stripped;
	int incomplete;
};

/* Take the set-id bits off the file that fd (O_PATH, no link followed)
 * names; st is what fstatat saw of it. */
static void strip_file(struct strip_walk *w, int fd, const struct stat *st)
{
	char path[64];
	struct stat now;

	if (fstat(fd, &now) < 0 || now.st_ino != st->st_ino || now.st_dev != st->st_dev ||
	    !S_ISREG(now.st_mode) || !(now.st_mode & (S_ISUID | S_ISGID)))
		return;
	/* fchmod refuses an O_PATH descriptor; its /proc link does not. */
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (chmod(path, now.st_mode & 01777) < 0)
		w->incomplete = 1;
	else
		w->stripped++;
}

/* Where the walk came down from: the directory (to check that ".." leads
 * back to it) and the entry it went into (to go on after it there). */
struct strip_level {
	dev_t dev;
	ino_t ino;
	ino_t child_ino;
	char *child;
};

/* d's next entry that is not "." or "..", or NULL. */
static struct dirent *strip_next(DIR *d)
{
	struct dirent *e;

	while ((e = readdir(d)) && (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0))
		;
	return e;
}

/* Back up from d to the directory above, positioned after the entry the
 * walk went into; NULL (d closed) when ".." is not that directory any
 * more (DIR's owner moved something meanwhile). */
static DIR *strip_up(DIR *d, const struct strip_level *l)
{
	int fd = openat(dirfd(d), "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	struct stat st;
	DIR *up;

	closedir(d);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_dev != l->dev || st.st_ino != l->ino ||
	    !(up = fdopendir(fd))) {
		close(fd);
		return NULL;
	}
	while ((e = strip_next(up)) && !(e->d_ino == l->child_ino && strcmp(e->d_name, l->child) == 0))
		;
	if (!e) {
		closedir(up);
		return NULL;
	}
	return up;
}

/* Depth first, one directory open at a time and no recursion: a tree of
 * any depth (a program can nest directories past PATH_MAX and past any
 * descriptor limit). Going down remembers the entry; going up checks that
 * ".." is the directory it came from and finds that entry again. */
static void strip_dir(struct strip_walk *w, int dfd)
{
	struct strip_level *stack = NULL;
	size_t depth = 0, cap = 0;
	DIR *d = fdopendir(dfd);

	if (!d) {
		w->incomplete = 1;
		close(dfd);
		return;
	}
	while (d) {
		struct dirent *e = strip_next(d);
		struct stat st, dst;
		int fd;

		if (!e) {
			if (depth == 0)
				break;
			depth--;
			d = strip_up(d, &stack[depth]);
			free(stack[depth].child);
			w->incomplete |= !d;
			continue;
		}
		if (++w->entries > STRIP_MAX_ENTRIES) {
			w->incomplete = 1;
			break;
		}
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != w->dev)
			continue;
		if (S_ISREG(st.st_mode) && (st.st_mode & (S_ISUID | S_ISGID))) {
			fd = openat(dirfd(d), e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				w->incomplete = 1;
				continue;
			}
			strip_file(w, fd, &st);
			close(fd);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(dirfd(d), &dst) < 0) {
			w->incomplete = 1;
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (depth == cap) {
			cap = cap ? 2 * cap : 64;
			stack = xreallocarray(stack, cap, sizeof *stack);
		}
		stack[depth] = (struct strip_level){.dev = dst.st_dev,
						    .ino = dst.st_ino,
						    .child_ino = st.st_ino,
						    .child = xstrdup(e->d_name)};
		depth++;
		closedir(d);
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			w->incomplete = 1;
		}
	}
	if (d)
		closedir(d);
	while (depth > 0)
		free(stack[--depth].child);
	free(stack);
}

/* One source: a directory walked, or a file bound on its own. */
static void strip_source(struct strip_walk *w, int src_fd)
{
	struct stat st;
	int fd;

	if (fstat(src_fd, &st) < 0)
		return;
	w->dev = st.st_dev;
	if (S_ISREG(st.st_mode)) {
		strip_file(w, src_fd, &st);
		return;
	}
	if (!S_ISDIR(st.st_mode))
		return;
	fd = openat(src_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		w->incomplete = 1;
		return;
	}
	strip_dir(w, fd);
}

int boxstrip_keep(struct boxstrip *bs, const struct box *b)
{
	memset(bs, 0, sizeof *bs);
	for (size_t i = 0; i < b->n_steps; i++) {
		const struct box_step *s = &b->steps[i];
		int fd;

		/* What the box could write: DIR and the read-write binds (the
		 * device nodes of /dev too, which strip_source passes over). */
		if (s->kind != BOX_BIND || s->ro || s->src_fd < 0)
			continue;
		if (bs->n >= BOX_MAX_FDS)
			return -1;
		fd = fcntl(s->src_fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -1;
		bs->fds[bs->n++] = fd;
	}
	return 0;
}

size_t boxstrip_run(struct boxstrip *bs)
{
	struct strip_walk w = {0};

	for (size_t i = 0; i < bs->n; i++)
		strip_source(&w, bs->fds[i]);
	if (w.incomplete)
		log_warnx("warning: --box: set-user-ID or set-group-ID files may be left in the "
			  "box's directory or binds (the walk did not see everything)");
	return w.stripped;
}

void boxstrip_close(struct boxstrip *bs)
{
	for (size_t i = 0; i < bs->n; i++)
		close(bs->fds[i]);
	bs->n = 0;
}
