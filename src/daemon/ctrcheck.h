// SPDX-License-Identifier: ISC
// --check in a container: namespaces, filter, /proc masks, capabilities.
#ifndef PROCTOR_CTRCHECK_H
#define PROCTOR_CTRCHECK_H

#include <stdio.h>

struct config;

/* --check: which way proctord takes (root's or the rootless one) and why,
 * whose user and cgroup namespaces it is in, whether a seccomp filter is on
 * it and mounts mask /proc, each with the runtime's flag that lifts it. */
void ctrcheck_print(const struct config *c, FILE *out);

#endif
