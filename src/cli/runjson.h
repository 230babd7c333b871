// SPDX-License-Identifier: ISC
// proctor run --json FILE / --json-fd N: where the verdict document goes,
// and what it says (proto/report.schema.json, proctor-report(5)).
#ifndef PROCTOR_RUNJSON_H
#define PROCTOR_RUNJSON_H

#include <stddef.h>
#include <sys/types.h>

struct runjson {
	const char *path; /* --json FILE; NULL */
	int fd;		  /* what the document is written to; -1: no --json */
	int own;	  /* fd is ours to close (FILE) */
	dev_t dev;	  /* FILE's identity once opened: the path must */
	ino_t ino;	  /* still name it when the verdict is written */
};

/* How many words of argv at i are run's own --json FILE, --json=FILE,
 * --json-fd N or --json-fd=N: 0, 1 or 2. */
int runjson_words(int argc, char **argv, int i);

/* Find the destination among argv[1] .. argv[dd - 1] and open it: FILE
 * created (mode 0644) or truncated, a regular file of ours, never through
 * a symbolic link (/dev/fd/N is descriptor N); descriptor N open for
 * writing (and not passed on to proctord above 2). Returns 0 (j->fd -1 if
 * no --json), or -1 with err filled in. */
int runjson_open(struct runjson *j, char **argv, int dd, char *err, size_t errlen);

/* The verdict: proctord's report (type "report") as type "verdict" with
 * run's exit status and the signal that interrupted it (NULL: none).
 * Returns 0, or -1 with err filled in. */
int runjson_verdict(struct runjson *j, const char *report, int code, const char *signal,
		    char *err, size_t errlen);

/* No verdict: an error document (stage "usage", "start" or "proctord"). */
void runjson_error(struct runjson *j, const char *stage, const char *message, int code,
		   const char *signal);

void runjson_close(struct runjson *j);

#endif
