// SPDX-License-Identifier: ISC
// The protocol's vocabulary (proto/PROTOCOL.md, section 6): the heads of a
// status line, the reasons of "killed REASON" and the stages of "failed
// STAGE", spelled here once. proctord writes them, libproctor and the proctor
// command read them back into these enums; tests/unit/vocabulary.py checks
// that PROTOCOL.md and the Python client agree with this table.
#ifndef PROCTOR_PROTO_H
#define PROCTOR_PROTO_H

/* The first word of a status line; the order of libproctor's enum
 * proctor_kind. */
enum proto_head {
	HEAD_RUNNING,
	HEAD_EXITED,
	HEAD_SIGNALED,
	HEAD_KILLED,
	HEAD_FAILED,
	HEAD_INVALID,
	HEAD_COUNT,
};

/* "killed REASON". KILL_NONE: not killed by proctord. */
enum kill_reason {
	KILL_NONE,
	KILL_CPU_TIME,
	KILL_WALL_TIME,
	KILL_MEMORY,
	KILL_OUTPUT,
	KILL_FILE_SIZE,
	KILL_TERMINATE,
	KILL_SYSCALL,
	KILL_PIDS, /* reserved: never written by this version */
	KILL_COUNT,
};

/* Stages of the child's set-up; each failure is reported as "failed STAGE". */
enum spawn_stage {
	STAGE_SETUP,
	STAGE_LIMITS,
	STAGE_STDIN,
	STAGE_STDOUT,
	STAGE_STDERR,
	STAGE_CHDIR,
	STAGE_EXEC,
	STAGE_COUNT,
};

/* The "version" of every JSON document proctor writes (reports, verdicts,
 * answers, errors): proto/report.schema.json, proctor-report(5). */
#define PROTO_JSON_VERSION 2

/* The word for a value; "none" for KILL_NONE, "unknown" out of range. */
const char *proto_head_name(enum proto_head h);
const char *proto_kill_reason_name(enum kill_reason r);
const char *proto_stage_name(enum spawn_stage s);
/* Whether this version writes the reason (KILL_PIDS is only reserved). */
int proto_kill_reason_emitted(enum kill_reason r);
/* Whether the reason names a limit that was hit (the JSON's status.limit):
 * not terminate, not syscall. */
int proto_kill_reason_is_limit(enum kill_reason r);

/* The value for a word, or -1 for a word not in the table (a reason or stage
 * of a later version: a client treats it as a generic killed or failed). */
int proto_head_parse(const char *word);
int proto_kill_reason_parse(const char *word);
int proto_stage_parse(const char *word);

#endif
