// SPDX-License-Identifier: ISC
// The report file: standard output or an inherited descriptor written in
// place, or a temporary file beside FILE renamed over it (never over a
// symbolic link, a device or another user's file).
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reportfile.h"
#include "sbdir.h"
#include "util.h"

/* What is at FILE may be replaced: nothing, or a regular file of ours. */
static int report_target_ok(struct report_file *r, char *err, size_t errlen)
{
	struct stat st;

	if (fstatat(r->dirfd, r->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen,
			 "%s is a symbolic link: a report replaces only a regular file of ours "
			 "(give /dev/fd/N for an open descriptor, - for standard output)",
			 r->path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen,
			 "%s is not a regular file: a report replaces only a regular file of ours "
			 "(give /dev/fd/N for an open descriptor, - for standard output)",
			 r->path);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "%s belongs to uid %u, not to proctord's uid %u: a report replaces only "
			 "a regular file of ours",
			 r->path, (unsigned)st.st_uid, (unsigned)geteuid());
		return -1;
	}
	return 0;
}

/* The temporary file, made now: unnamed where the file system allows it
 * (nothing is left behind if proctord is killed), else .FILE.XXXXXX. */
static int report_tmp_open(struct report_file *r, char *err, size_t errlen)
{
	r->fd = openat(r->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (r->fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		goto done;
	for (int tries = 0; tries < 100; tries++) {
		unsigned char b[6];

		if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
			break;
		free(r->tmpname);
		xasprintf(&r->tmpname, ".%s.%02x%02x%02x%02x%02x%02x", r->name, b[0], b[1], b[2],
			  b[3], b[4], b[5]);
		r->fd = openat(r->dirfd, r->tmpname,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (r->fd >= 0 || errno != EEXIST)
			break;
	}
done:
	if (r->fd < 0) {
		snprintf(err, errlen, "%s: cannot create a file beside it: %s", r->path,
			 strerror(errno));
		free(r->tmpname);
		r->tmpname = NULL;
		return -1;
	}
	/* 0644 whatever the umask, as a report always was. */
	if (fchmod(r->fd, 0644) < 0) {
		snprintf(err, errlen, "%s: chmod: %s", r->path, strerror(errno));
		return -1;
	}
	return 0;
}

int report_file_open(struct report_file *r, const char *path, char *err, size_t errlen)
{
	char *copy, *slash;
	int n;

	memset(r, 0, sizeof *r);
	r->fd = r->dirfd = -1;
	r->path = xstrdup(path);
	n = strcmp(path, "-") == 0 ? 1 : fd_path_number(path);
	if (n >= 0) {
		int fl = fcntl(n, F_GETFL);

		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
			snprintf(err, errlen, "%s: descriptor %d is not open for writing", path, n);
			goto fail;
		}
		r->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
		if (r->fd < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		return 0;
	}
	copy = xstrdup(path);
	slash = strrchr(copy, '/');
	r->name = xstrdup(slash ? slash + 1 : copy);
	if (slash)
		slash[slash == copy] = '\0';
	/* Another user's link on the way could lead to a file of ours (root's:
	 * any) in a directory the caller never meant. */
	r->dirfd = sbdir_open_links(slash ? copy : ".", path, err, errlen);
	if (r->dirfd < 0) {
		free(copy);
		goto fail;
	}
	free(copy);
	if (!r->name[0] || strcmp(r->name, ".") == 0 || strcmp(r->name, "..") == 0) {
		snprintf(err, errlen, "%s: not a file name", path);
		goto fail;
	}
	if (report_target_ok(r, err, errlen) < 0 || report_tmp_open(r, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	report_file_close(r);
	return -1;
}

int report_file_write(struct report_file *r, const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text), done = 0;

	while (done < len) {
		ssize_t n = write(r->fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "cannot write %s: %s", r->path,
				 n < 0 ? strerror(errno) : "nothing written");
			return -1;
		}
		done += (size_t)n;
	}
	if (r->dirfd < 0)
		return 0; /* in place */
	if (fsync(r->fd) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", r->path, strerror(errno));
		return -1;
	}
	if (!r->tmpname) {
		/* Give the unnamed file a name to rename: linkat can
		 * replace nothing. */
		char proc[64];

		snprintf(proc, sizeof proc, "/proc/self/fd/%d", r->fd);
		for (int tries = 0; tries < 100 && !r->tmpname; tries++) {
			unsigned char b[6];

			if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
				break;
			xasprintf(&r->tmpname, ".%s.%02x%02x%02x%02x%02x%02x", r->name, b[0],
				  b[1], b[2], b[3], b[4], b[5]);
			if (linkat(AT_FDCWD, proc, r->dirfd, r->tmpname, AT_SYMLINK_FOLLOW) < 0) {
				int again = errno == EEXIST;

				free(r->tmpname);
				r->tmpname = NULL;
				if (!again)
					break;
			}
		}
		if (!r->tmpname) {
			snprintf(err, errlen, "cannot write %s: %s", r->path, strerror(errno));
			return -1;
		}
	}
	/* Again: what is there may have changed while the program ran. */
	if (report_target_ok(r, err, errlen) < 0)
		return -1;
	if (renameat(r->dirfd, r->tmpname, r->dirfd, r->name) < 0) {
		snprintf(err, errlen, "cannot rename a temporary file to %s: %s", r->path,
			 strerror(errno));
		return -1;
	}
	free(r->tmpname);
	r->tmpname = NULL;
	return 0;
}

void report_file_close(struct report_file *r)
{
	if (r->dirfd >= 0 && r->tmpname)
		unlinkat(r->dirfd, r->tmpname, 0);
	if (r->fd >= 0)
		close(r->fd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->tmpname);
	free(r->name);
	free(r->path);
	memset(r, 0, sizeof *r);
	r->fd = r->dirfd = -1;
}
