// SPDX-License-Identifier: ISC
// Status lines and responses: the closed set of heads and their human texts.
#ifndef PROCTOR_REPORT_H
#define PROCTOR_REPORT_H

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

/* What the JSON report (--report) says of a sandbox that has ended. */
struct report_final {
	const struct outcome *outcome;
	const struct limits *limits;
	uint64_t cpu_us, user_us, sys_us, wall_us;
	uint64_t peak_memory;
	uint64_t output_bytes; /* UNITS_UNLIMITED: not counted (no --output-limit) */
	int interrupted; /* proctord was ended by a signal */
	int have_oom;    /* oom_kills is known (a memory cgroup) */
	uint64_t oom_kills;
	int have_pids;   /* pids_peak and pids_max_hits are known (a pids cgroup) */
	uint64_t pids_peak, pids_max_hits;
	/* Limits asked for that nothing enforced, by key name. */
	const char *not_enforced[8];
	size_t n_not_enforced;
	/* Where the figures came from ("cpu", "user_sys", "peak_memory",
	 * "oom_kills", "tree_kill"): text, or NULL for the /proc fallback. */
	const char *src_cpu, *src_peak, *src_oom, *src_kill;
	/* The program's identity and isolation. */
	const char *user, *group; /* as given; NULL: proctord's own */
	long uid, gid;            /* -1: proctord's own */
	int new_session, unshare_net, unshare_ipc;
	const char *seccomp;      /* NULL, "kill" or "errno" */
};

/* The JSON report, with a final newline (malloc'd; NULL if out of memory).
 * Figures above INT64_MAX are printed exactly, as bare digits. */
char *report_json_text(const struct report_final *f);

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
