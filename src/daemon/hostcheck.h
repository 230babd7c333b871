// SPDX-License-Identifier: ISC
// --check's audit of the host: what makes run times noisy, one line each with what to do.
#ifndef PROCTOR_HOSTCHECK_H
#define PROCTOR_HOSTCHECK_H

#include <stddef.h>
#include <stdio.h>

#include "units.h"

/* How long the audit watches the CPUs' load, and the share of that time a
 * CPU may spend on other work before it is named busy: an idle machine's
 * timer ticks and daemons take 0-2%; a tenth of the time taken away from a
 * CPU, or from a core's shared units, shows in run times. */
#define HOSTCHECK_SAMPLE_MS 200u
#define HOSTCHECK_BUSY_PCT 10u

/* The pause between the two readings of the CPUs' times (nanosleep); tests
 * put their own, which swaps the fixture's proc/stat. */
extern void (*hostcheck_pause)(unsigned ms);

/* The busy and total time (jiffies) of CPU cpu in a /proc/stat text: 0, or
 * -1 if it has no such line. Busy is all but idle and iowait. */
int hostcheck_cpu_times(const char *stat, unsigned cpu, unsigned long long *busy,
			unsigned long long *total);

/* Audit the host read from root ("" for this machine; a directory laid out
 * like / for tests): swap (accounted to cgroups or not), online SMT
 * siblings of the CPUs (cpus: --cpuset; NULL or empty: every online CPU),
 * those CPUs or their siblings busy with other work over
 * HOSTCHECK_SAMPLE_MS, a cpufreq governor other than performance, turbo or
 * boost, transparent huge pages in any mode but never, their defrag (at a
 * fault, and khugepaged's), a THP size turned on by itself (multi-size
 * THP), huge pages for shared memory (shmem_enabled), ASLR, a core_pattern that pipes cores to a
 * program. A file the kernel does not have is no finding. Prints a title
 * line, then one line per finding (what and what to do), or one line saying
 * nothing was found. Reads only. Returns the number of findings. */
size_t hostcheck_print(const char *root, const struct units_cpuset *cpus, FILE *out);

#endif
