// SPDX-License-Identifier: ISC
// Allocation wrappers that abort, and small helpers shared by the modules.
#ifndef PROCTOR_UTIL_H
#define PROCTOR_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
int xasprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Monotonic clock in microseconds. */
uint64_t now_us(void);

/* Read a small file (e.g. under /proc) relative to dirfd into buf; NUL-terminated.
 * Returns bytes read or -1 with errno set. */
ssize_t read_small_file(int dirfd, const char *path, char *buf, size_t len);
/* pread from offset 0 of an open fd into buf, NUL-terminated. */
ssize_t pread_small(int fd, char *buf, size_t len);
/* The whole content of an open file from offset 0, NUL-terminated, in a
 * buffer that *buf (of *cap bytes) holds and that grows as needed (for /proc files
 * whose size cannot be known: a children list may hold thousands of pids).
 * Returns the length, or -1 with errno set. */
ssize_t pread_all(int fd, char **buf, size_t *cap);
/* The whole of a file (a /proc one too), NUL-terminated (malloc'd), or NULL. */
char *slurp(const char *path);
/* N of "/dev/fd/N" or "/proc/self/fd/N" (an inherited descriptor named by
 * path), or -1 when path is neither. */
int fd_path_number(const char *path);

/* s as UTF-8 text (malloc'd): its valid sequences as they are, any other
 * byte as the four characters \xNN. JSON is UTF-8, and a path given by
 * the caller need not be. */
char *utf8_escape(const char *s);

#endif
