// SPDX-License-Identifier: ISC
// Killing every descendant of proctord, found through the /proc walk.
#ifndef PROCTOR_TREE_H
#define PROCTOR_TREE_H

#include <sys/types.h>

/* Send sig to every descendant of root. Returns how many were found, or -1
 * if /proc could not be read (then nothing can be said of what is left). */
ssize_t tree_signal_all(pid_t root, int sig);
/* The same, but for skip (a PID namespace's init, 0 for none). */
ssize_t tree_signal_but(pid_t root, pid_t skip, int sig);
/* Where neither a cgroup nor /proc can list the tree: send sig to the
 * process group pgid (the program's), and say whether the caller, their
 * subreaper, has a child left: 1, 0 if none (then no descendant is left at
 * all), -1 if it cannot tell. */
ssize_t tree_signal_group(pid_t pgid, int sig);

#endif
