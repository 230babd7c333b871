// SPDX-License-Identifier: ISC
// proctord --check: what each setting is enforced by, where each figure comes
// from, and what cannot be honoured, printed without changing anything.
#ifndef PROCTOR_CHECK_H
#define PROCTOR_CHECK_H

#include <stddef.h>
#include <stdio.h>

#include "cgroup.h"
#include "config.h"

/* What --check says of the identity and the filter. Returns how many
 * things cannot be honoured. */
size_t check_isolation(const struct config *c, FILE *out, const char *prefix);
/* config_print_check's callback: what enforces key k (ctx is the cgroup). */
void check_mechanism(void *ctx, const struct config_key *k, char *buf, size_t len);
/* Where each figure comes from on this machine. */
void check_sources(const struct cgroup *cg, FILE *out);
/* Whether the program can run in a PID namespace of its own. Returns 1 if
 * not and --strict makes that an error. */
size_t check_pidns(const struct config *c, FILE *out);

#endif
