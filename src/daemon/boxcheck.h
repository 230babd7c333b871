// SPDX-License-Identifier: ISC
// --check for a box: its namespaces, its mounts, and whether they can be made here.
#ifndef PROCTOR_BOXCHECK_H
#define PROCTOR_BOXCHECK_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "box.h"

struct config;

/* --check: the namespaces and the mounts, one a line; user_ns says what
 * the user namespace maps, NULL without one. */
void boxcheck_print(const struct box *b, const char *user_ns, FILE *out);

/* Whether the box can be made here (--check): in a child of its own, which
 * then ends, its user namespace (user_ns; as root, the child first takes
 * uid and gid, the host's ids of the box's uid 0), its PID namespace, and in it the
 * box as the run's init builds it (box_child_enter: the mount, IPC, UTS,
 * cgroup and network namespaces, every mount, /proc of the PID namespace,
 * the pivot). Returns 0, or -1 with the failed step in why. */
int boxcheck_probe(const struct box *b, int user_ns, uid_t uid, gid_t gid, char *why, size_t len);

/* --check: the box's namespaces and mounts, or why it cannot be made (a line
 * starting with prefix). Returns how many things cannot be honoured. */
size_t boxcheck(const struct config *c, FILE *out, const char *prefix);

#endif
