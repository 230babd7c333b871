// SPDX-License-Identifier: ISC
// --check's trials: a mechanism the run would use, tried in a throw-away
// child the way the run uses it, so that --check does not guess.
#ifndef PROCTOR_CHECKTRY_H
#define PROCTOR_CHECKTRY_H

#include <stddef.h>
#include <sys/types.h>

#include "cgroup.h"
#include "config.h"

/* The end of a trial child PID: its message, if it failed, read from rfd
 * (then closed), its status reaped. Returns 0 if it exited 0, else -1 with
 * why said (the message, or how WHO ended). */
int checktry_reap(pid_t pid, int rfd, const char *who, char *why, size_t len);

/* Run fn(arg) in a child of its own, which then exits; a failure is the
 * line fn put in its buffer. Returns 0, or -1 with the line in why. The
 * child is reaped before it returns. */
int checktry_child(int (*fn)(const void *arg, char *msg, size_t len), const void *arg, char *why,
		   size_t len);

/* The filter of c (--seccomp, --seccomp-errno, or a box's own), built as
 * the run builds it (cg: whether it denies sched_setaffinity) and loaded in
 * a child as the run's child loads it (no_new_privs, then seccomp(2), the
 * listener sent over a socket pair). Returns 0 (also when there is no
 * filter to load), or -1 with why. */
int checktry_seccomp(const struct config *c, const struct cgroup *cg, char *why, size_t len);

/* --unshare-net and --unshare-ipc outside a box: refused as a start refuses
 * them (spawn_unshare_refused), else unshared in a child. Returns 0 (also
 * when neither is asked for), or -1 with why. */
int checktry_unshare(const struct config *c, char *why, size_t len);

#endif
