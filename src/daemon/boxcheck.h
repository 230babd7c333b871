// SPDX-License-Identifier: ISC
// --check for a box: its namespaces, its mounts, and whether they can be made here.
#ifndef PROCTOR_BOXCHECK_H
#define PROCTOR_BOXCHECK_H

#include <stddef.h>
#include <stdio.h>

#include "box.h"

struct config;

/* --check: the namespaces and the mounts, one a line; user_ns says what
 * the user namespace maps, NULL without one. */
void boxcheck_print(const struct box *b, const char *user_ns, FILE *out);

/* Whether the box's namespaces can be made here (--check): 0 or the errno. */
int boxcheck_probe(const struct box *b, int user_ns);

/* --check: the box's namespaces and mounts, or why it cannot be made (a line
 * starting with prefix). Returns how many things cannot be honoured. */
size_t boxcheck(const struct config *c, FILE *out, const char *prefix);

#endif
