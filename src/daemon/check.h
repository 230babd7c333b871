// SPDX-License-Identifier: ISC
// proctord --check: what each setting is enforced by, where each figure comes
// from, and what cannot be honoured, tried as a start would, leaving nothing.
#ifndef PROCTOR_CHECK_H
#define PROCTOR_CHECK_H

#include "options.h"

/* proctord --check: print the effective settings, where each came from,
 * what enforces it, where the figures come from and what cannot be
 * honoured; free the configuration. Returns the exit code: 0, or EXIT_SETUP
 * if something cannot be honoured. */
int check_run(struct options *o);

#endif
