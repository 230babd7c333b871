// SPDX-License-Identifier: ISC
// Allocation wrappers that abort on failure, and small file and clock helpers.
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		log_fatal(EXIT_INTERNAL, "malloc");
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		log_fatal(EXIT_INTERNAL, "calloc");
	return p;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	void *q = reallocarray(p, nmemb ? nmemb : 1, size ? size : 1);

	if (!q)
		log_fatal(EXIT_INTERNAL, "reallocarray");
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		log_fatal(EXIT_INTERNAL, "strdup");
	return p;
}

int xasprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(out, fmt, ap);
	va_end(ap);
	if (n < 0)
		log_fatal(EXIT_INTERNAL, "vasprintf");
	return n;
}

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

ssize_t pread_small(int fd, char *buf, size_t len)
{
	ssize_t n;

	do
		n = pread(fd, buf, len - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

ssize_t read_small_file(int dirfd, const char *path, char *buf, size_t len)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = pread_small(fd, buf, len);
	saved = errno;
	close(fd);
	errno = saved;
	return n;
}

ssize_t pread_all(int fd, char **buf, size_t *cap)
{
	size_t len = 0;

	if (!*buf || *cap < 4096) {
		*cap = 4096;
		*buf = xreallocarray(*buf, *cap, 1);
	}
	for (;;) {
		ssize_t n = pread(fd, *buf + len, *cap - 1 - len, (off_t)len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == *cap - 1) {
			*cap *= 2;
			*buf = xreallocarray(*buf, *cap, 1);
		}
	}
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

int fd_path_number(const char *path)
{
	const char *p;
	char *end;
	long n;

	/* Links to /proc/self/fd/0, 1 and 2: the same descriptors, so that no
	 * link need be followed for them (streams are opened O_NOFOLLOW). */
	if (strcmp(path, "/dev/stdin") == 0)
		return 0;
	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	if (strncmp(path, "/dev/fd/", 8) == 0)
		p = path + 8;
	else if (strncmp(path, "/proc/self/fd/", 14) == 0)
		p = path + 14;
	else
		return -1;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	n = strtol(p, &end, 10);
	return *end || errno || n > INT_MAX ? -1 : (int)n;
}
