// SPDX-License-Identifier: ISC
// Killing every descendant of proctord, found through the /proc walk.
#ifndef PROCTOR_TREE_H
#define PROCTOR_TREE_H

#include <sys/types.h>

/* Send sig to every descendant of root. Returns how many were found, or -1
 * if /proc could not be read (then nothing can be said of what is left). */
ssize_t tree_signal_all(pid_t root, int sig);

#endif
