// SPDX-License-Identifier: ISC
// --check's audit of the host: what makes run times noisy, one line each with what to do.
#ifndef PROCTOR_HOSTCHECK_H
#define PROCTOR_HOSTCHECK_H

#include <stddef.h>
#include <stdio.h>

#include "units.h"

/* Audit the host read from root ("" for this machine; a directory laid out
 * like / for tests): swap not accounted to cgroups, online SMT siblings of
 * the CPUs (cpus: --cpuset; NULL or empty: every online CPU), a cpufreq
 * governor other than performance, turbo or boost, transparent huge pages
 * always on, ASLR, a core_pattern that pipes cores to a program. Prints a
 * title line, then one line per finding (what and what to do), or one line
 * saying nothing was found. Reads only. Returns the number of findings. */
size_t hostcheck_print(const char *root, const struct units_cpuset *cpus, FILE *out);

#endif
