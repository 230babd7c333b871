// SPDX-License-Identifier: ISC
// libproctor: wait calls on a proctord sandbox that never hang, with parsed answers.
#ifndef PROCTOR_H
#define PROCTOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum proctor_kind {
	PROCTOR_RUNNING,
	PROCTOR_EXITED,
	PROCTOR_SIGNALED,
	PROCTOR_KILLED,
	PROCTOR_FAILED,
	PROCTOR_INVALID,
};

/* Errors: negative return values of proctor_wait(). */
enum proctor_error {
	PROCTOR_OK = 0,
	PROCTOR_ENOSANDBOX = -1, /* no sandbox at that path (or it has ended) */
	PROCTOR_EGONE = -2,      /* proctord is gone (died, or nobody reads the wait FIFO) */
	PROCTOR_ETIMEDOUT = -3,  /* no answer (or no lock) within the timeout */
	PROCTOR_EMALFORMED = -4, /* the answer is not three well-formed lines */
	PROCTOR_ESYSTEM = -5,    /* a system call failed: proctor_strerror says why */
	PROCTOR_ENOEXIT = -6,    /* terminating wait: *res holds the final answer, but
				  * proctord had not exited by the timeout */
};

struct proctor_result {
	uint64_t cpu_us;       /* CPU time of the tree since start, µs */
	uint64_t memory_bytes; /* resident memory of the live tree now */
	enum proctor_kind kind;
	int exit_code;         /* PROCTOR_EXITED */
	char signal[24];       /* PROCTOR_SIGNALED: "SIGSEGV" */
	char reason[32];       /* PROCTOR_KILLED: "cpu-time"...; PROCTOR_FAILED: the stage */
	char head[64];         /* "killed cpu-time" */
	char text[960];        /* the human text after ": ", or "" */
	char status[1024];     /* the whole status line */
	char syscall[64];      /* "killed syscall": the denied call ("keyctl"), else "" */
};

/* One wait call on the sandbox in dir: "0" (terminate) or "1", serialised
 * with other clients by flock on dir/lock, bounded by timeout_ms as a whole
 * (a terminating wait needs at least the grace period). If proctord dies
 * before or during the call, the call fails with PROCTOR_EGONE within some
 * 20 ms (seen by proctord's lock on dir, which needs read access to dir;
 * without it, at the timeout). A terminating wait returns only once
 * proctord has removed its files and exited, so that dir can be used by a
 * new proctord at once; PROCTOR_ENOEXIT (with *res filled) if that took
 * longer than the timeout. It writes to a FIFO: a caller that does not
 * ignore SIGPIPE may receive one if proctord ends at that very moment.
 * Returns PROCTOR_OK with *res filled in, or a negative enum proctor_error. */
int proctor_wait(const char *dir, int terminate, int timeout_ms, struct proctor_result *res);

/* The same, and also ends with PROCTOR_EGONE as soon as stop_fd is readable
 * while no answer is: a pidfd of the proctord (readable once it has exited),
 * or a pipe that a SIGCHLD handler writes to, so that a caller that started
 * proctord never waits out the timeout for an answer from a dead one. -1:
 * as proctor_wait. */
int proctor_wait_fd(const char *dir, int terminate, int timeout_ms, int stop_fd,
		    struct proctor_result *res);

/* Parse an answer (three lines). Returns PROCTOR_OK or PROCTOR_EMALFORMED. */
int proctor_parse(const char *answer, size_t len, struct proctor_result *res);

/* "no sandbox at that path", ...; for PROCTOR_ESYSTEM, the text of the errno
 * that the calling thread's last proctor_wait or proctor_wait_fd kept when
 * it failed so (whatever errno is now). The text is the thread's until its
 * next proctor_strerror. */
const char *proctor_strerror(int err);

/* "running", "exited", ... */
const char *proctor_kind_name(enum proctor_kind kind);

#ifdef __cplusplus
}
#endif

#endif
