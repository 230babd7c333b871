// SPDX-License-Identifier: ISC
// proctord's report made isolate's meta file, its stderr line and its exit status.
#ifndef PROCTOR_ISOMETA_H
#define PROCTOR_ISOMETA_H

#include <stddef.h>

#include "isoopt.h"
#include "proto.h"

/* What a report says, as far as the meta file needs it. */
struct iso_outcome {
	enum proto_head head;	 /* PROTO_EXITED, SIGNALED, KILLED or FAILED */
	int exit_code;		 /* exited */
	int signo;		 /* signaled: the signal's number */
	enum kill_reason reason; /* killed; KILL_NONE for an unknown one */
	enum spawn_stage stage;	 /* failed; STAGE_COUNT for an unknown one */
	char text[1024];	 /* failed: what proctord said */
	long long cpu_us, wall_us, peak_bytes, oom_kills;
	long long max_rss_bytes, csw_voluntary, csw_forced;
	int interrupt; /* the signal that interrupted proctor-isolate; 0 */
};

/* Read a report (proto/report.schema.json). Returns 0, or -1 when it is no
 * final report. */
int iso_outcome_read(const char *json, size_t len, struct iso_outcome *r);

/* The meta file's text (isolate 2.x's keys and order) into meta, the
 * status line for stderr into line ("" when -s silences it). Returns the
 * exit status: 0 OK, 1 RE/SG/TO, 2 XX. */
int iso_meta(const struct iso_outcome *r, const struct iso_opts *o, char *meta, size_t mlen,
	     char *line, size_t llen);

/* An internal error: status XX. Returns 2. */
int iso_meta_xx(const char *message, char *meta, size_t mlen, char *line, size_t llen);

#endif
