// SPDX-License-Identifier: ISC
// Reading and writing the files of cgroups (and of /proc): the small helpers
// that set-up, --check, the questions and the run time share (cgroup-priv.h).
// Each opens, reads or writes one file; none knows what a role or a limit is.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup-priv.h"
#include "util.h"

int cg_write_at(int dirfd, const char *file, const char *value)
{
	int fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, len);
	if (n < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	close(fd);
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int cg_exists_at(int dirfd, const char *file)
{
	return faccessat(dirfd, file, F_OK, 0) == 0;
}

/* The value of "key N" in a flat-keyed file (cpu.stat, memory.stat...). */
int cg_keyed(const char *buf, const char *key, uint64_t *out)
{
	size_t kl = strlen(key);
	const char *p = buf;

	while (p && *p) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(p + kl + 1, &end, 10);
			if (errno || end == p + kl + 1)
				return -1;
			*out = v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int cg_read_u64(int fd, uint64_t *out)
{
	char buf[64], *end;
	unsigned long long v;

	if (fd < 0 || pread_small(fd, buf, sizeof buf) <= 0)
		return -1;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -1;
	*out = v;
	return 0;
}

int cg_read_keyed(int fd, const char *key, uint64_t *out)
{
	char buf[4096];

	if (fd < 0 || pread_small(fd, buf, sizeof buf) <= 0)
		return -1;
	return cg_keyed(buf, key, out);
}

int cg_open_ro(int dirfd, const char *file)
{
	return openat(dirfd, file, O_RDONLY | O_CLOEXEC);
}

void cg_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}
