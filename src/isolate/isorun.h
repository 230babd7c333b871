// SPDX-License-Identifier: ISC
// --run: isolate's options made a proctord command line, proctord run, its report read.
#ifndef PROCTOR_ISORUN_H
#define PROCTOR_ISORUN_H

#include <stddef.h>

#include "isobox.h"
#include "isometa.h"
#include "isoopt.h"

/* A path inside the box (-i, -o, -r) on the host, through /box and the
 * directory rules; relative to the working directory in the box.
 * /dev/null is the host's. Returns 0, or -1 with err set. */
int iso_map_path(const struct iso_opts *o, const char *boxdir, const char *inner, char *out,
		 size_t len, char *err, size_t errlen);

struct iso_caller;
/* Run the program; the outcome from proctord's report. Set-user-ID, the
 * --dir sources are opened with the caller's rights and proctord is the
 * installation's, started as root wholly with a clean environment.
 * Returns 0, or -1 with err set (an internal error: XX). */
int iso_run(const struct iso_opts *o, const struct iso_box *b, const struct iso_caller *c,
	    struct iso_outcome *r, char *err, size_t errlen);

#endif
