// SPDX-License-Identifier: ISC
// The sandbox directory: created private or reused, its lock file, its removal.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbdir.h"
#include "util.h"

int sbdir_open(struct sbdir *d, const char *path, mode_t mode, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	memset(d, 0, sizeof *d);
	d->fd = -1;
	if (!path) {
		const char *base = getenv("XDG_RUNTIME_DIR");
		char *tmpl;

		if (!base || base[0] != '/' || access(base, W_OK | X_OK) != 0)
			base = "/tmp";
		xasprintf(&tmpl, "%s/proctor.XXXXXX", base);
		if (!mkdtemp(tmpl)) {
			snprintf(err, errlen, "cannot create a directory under %s: %s", base,
				 strerror(errno));
			free(tmpl);
			return -1;
		}
		d->path = tmpl;
		d->created = 1;
		if (chmod(d->path, mode) < 0) {
			snprintf(err, errlen, "chmod %s: %s", d->path, strerror(errno));
			goto error;
		}
	} else {
		d->path = xstrdup(path);
		if (mkdir(path, mode) == 0) {
			d->created = 1;
			/* mkdir obeys the umask; the mode asked for is exact. */
			if (chmod(path, mode) < 0) {
				snprintf(err, errlen, "chmod %s: %s", path, strerror(errno));
				goto error;
			}
		} else if (errno != EEXIST) {
			snprintf(err, errlen, "cannot create directory %s: %s", path,
				 strerror(errno));
			goto error;
		}
	}
	fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open directory %s: %s", d->path, strerror(errno));
		goto error;
	}
	d->fd = fd;
	/* One proctord per directory, for its whole life: the wait FIFO
	 * closes at the terminating request, so its reader cannot say it.
	 * (Clients lock DIR/lock, a different file.) */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		snprintf(err, errlen, "the directory %s is in use by another proctord", d->path);
		d->created = 0; /* not ours to remove */
		goto error;
	}
	if (fstat(fd, &st) < 0 || (!d->created && st.st_uid != geteuid())) {
		snprintf(err, errlen, "directory %s does not belong to us; refusing to use it",
			 d->path);
		goto error;
	}
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
	if (d->created && d->path)
		rmdir(d->path);
	/* The lifetime lock goes last: a client that finds it free knows
	 * that everything is gone and DIR can serve a new proctord. */
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	memset(d, 0, sizeof *d);
	d->fd = -1;
}
