// SPDX-License-Identifier: ISC
// The system call filter (--seccomp): its deny list, loading it in the child, and naming what it caught.
#ifndef PROCTOR_SYSFILTER_H
#define PROCTOR_SYSFILTER_H

#include <ev.h>
#include <stddef.h>

/* The filter as a BPF program, built in proctord before the child starts. */
struct sysfilter {
	void *insns;          /* struct sock_filter[] */
	unsigned short len;
	int notify;           /* denied calls go to proctord, which kills the tree */
	int optional;         /* a kernel without seccomp(2) loads none (the box's own) */
};

/* The deny list, NULL-terminated: calls denied whatever their arguments
 * ("keyctl"), and calls denied for some arguments ("socket(AF_VSOCK)").
 * clone3 always fails with ENOSYS, so that the C library uses clone. */
extern const char *const sysfilter_denied[];
extern const char *const sysfilter_denied_args[];

/* Build the filter: denied calls are reported to proctord (which ends the
 * program as "killed syscall: NAME"), or with eperm fail with EPERM.
 * Returns 0, or -1 with a one-line reason in err. */
int sysfilter_build(struct sysfilter *f, int eperm, int deny_affinity, char *err, size_t errlen);
/* The filter of a box without --seccomp: the key ring calls and the
 * terminal-typing ioctls fail with EPERM (sysfilter_box_summary says so for
 * --check); everything else is allowed. Returns 0, or -1 said in err. */
int sysfilter_build_box(struct sysfilter *f, char *err, size_t errlen);
extern const char *const sysfilter_box_summary;
void sysfilter_free(struct sysfilter *f);

/* Child side, after everything else that needs privileges is done: install
 * the filter and, with notify, hand its listener to proctord over sock.
 * Returns 0, or -1 with errno set and *what naming the step. */
int sysfilter_child_load(const struct sysfilter *f, int sock, const char **what);

/* proctord's side: receives the listener from the child, then one
 * notification per denied call. */
struct sysfilter_watch {
	struct ev_loop *loop;
	int sock;             /* proctord's end of the socket pair, -1 once closed */
	int listener;         /* the seccomp listener, -1 until received */
	void *notif;          /* struct seccomp_notif of the kernel's size */
	size_t notif_size;
	void (*blocked)(void *ctx, const char *name);
	void *ctx;
	ev_io sock_io, listener_io;
};

/* Take over sock (proctord's end). blocked(ctx, name) is called for every
 * denied call; the calling process stays blocked in it until it is killed.
 * Returns 0, or -1 with errno set. */
int sysfilter_watch_start(struct sysfilter_watch *w, struct ev_loop *loop, int sock,
			  void (*blocked)(void *ctx, const char *name), void *ctx);
void sysfilter_watch_close(struct sysfilter_watch *w);

#endif
