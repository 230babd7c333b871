// SPDX-License-Identifier: ISC
// The status vocabulary: the outcome of the program, its status line, the
// answer to a wait and to an invalid request (the heads of proto.h and their
// human texts). The JSON report is report.h's; the file it goes to, reportfile.h's.
#ifndef PROCTOR_STATUS_H
#define PROCTOR_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "sblimits.h"

/* The heads of proto.h that describe the program ("invalid" does not). */
enum outcome_kind {
	OUTCOME_RUNNING = HEAD_RUNNING,
	OUTCOME_EXITED = HEAD_EXITED,
	OUTCOME_SIGNALED = HEAD_SIGNALED,
	OUTCOME_KILLED = HEAD_KILLED,
	OUTCOME_FAILED = HEAD_FAILED,
};

struct outcome {
	enum outcome_kind kind;
	int code;               /* exit code, or signal number */
	enum kill_reason reason;
	enum spawn_stage stage; /* OUTCOME_FAILED */
	int err;                /* OUTCOME_FAILED: errno */
	char what[256];         /* OUTCOME_FAILED: the path or name concerned;
				 * KILL_SYSCALL: the system call's name */
	unsigned output_hit;    /* KILL_OUTPUT: the limit passed (LIMIT_STDOUT...) */
	unsigned truncated;     /* the limits that truncated the output (a set) */
};

/* Largest response: well under PIPE_BUF so that one write() is atomic. */
#define REPORT_RESPONSE_MAX 1024
#define REPORT_STATUS_MAX 900

const char *report_kill_reason_name(enum kill_reason r);
const char *report_stage_name(enum spawn_stage s);
/* "SIGSEGV"; "SIG42" for one without a name. */
void report_signal_name(int sig, char *buf, size_t len);

/* Decide the outcome of the main process from its wait status and the reason
 * proctord killed it, if it did. */
void report_outcome_from_wait(struct outcome *o, int wstatus, enum kill_reason killed_for);

/* The status line, without newline. */
void report_status_line(const struct outcome *o, const struct limits *l, char *buf, size_t len);
/* The answer to an invalid request. */
void report_invalid_line(const char *garbage, size_t garbage_len, const char *status, char *buf,
			 size_t len);
/* "CPU\nRSS\nSTATUS\n"; returns its length. */
size_t report_response(uint64_t cpu_us, uint64_t rss_bytes, const char *status, char *buf,
		       size_t len);

#endif
