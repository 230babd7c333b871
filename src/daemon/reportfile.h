// SPDX-License-Identifier: ISC
// The report file: where --report's text goes, made ready before the program
// starts and put in place at the end.
#ifndef PROCTOR_REPORTFILE_H
#define PROCTOR_REPORTFILE_H

#include <stddef.h>

/* Where the --report goes, made ready before the program starts: "-" is
 * standard output and /dev/fd/N an inherited descriptor, both written in
 * place; any other FILE is written to a temporary file in its directory,
 * then renamed over FILE, which may only be missing or a regular file of
 * ours (never a symbolic link, a device or another user's file). */
struct report_file {
	int fd;        /* what is written: in place, or the temporary file */
	int dirfd;     /* FILE's directory; -1 when written in place */
	char *name;    /* FILE's name in dirfd */
	char *tmpname; /* the temporary file's name in dirfd; NULL if unnamed */
	char *path;
};

/* Returns 0, or -1 with err filled in (the path cannot be written). */
int report_file_open(struct report_file *r, const char *path, char *err, size_t errlen);
/* Write text and put it in place. Returns 0, or -1 with err filled in. */
int report_file_write(struct report_file *r, const char *text, char *err, size_t errlen);
/* Close, and remove a temporary file that was not renamed. */
void report_file_close(struct report_file *r);

#endif
