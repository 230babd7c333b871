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

char *slurp(const char *path)
{
	char *buf = NULL;
	size_t cap = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (pread_all(fd, &buf, &cap) < 0) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	return buf;
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

/* The length of the valid UTF-8 sequence at p (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF), or 0. */
static size_t utf8_seq_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

char *utf8_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc(4 * strlen(s) + 1), *w = out;

	while (*p) {
		size_t n = utf8_seq_len(p);

		if (n) {
			memcpy(w, p, n);
			w += n;
			p += n;
		} else {
			w += snprintf(w, 5, "\\x%02x", *p++);
		}
	}
	*w = '\0';
	return out;
}
