// SPDX-License-Identifier: ISC
// The one parser of /proc/PID/stat, shared by the tree walk and the measure.
#ifndef PROCTOR_PROCSTAT_H
#define PROCTOR_PROCSTAT_H

/* The fields of /proc/PID/stat that proctord reads (proc(5) numbers them). */
struct procstat {
	long ppid;                      /* 4 */
	unsigned long long cutime;      /* 16: reaped children's user CPU, ticks */
	unsigned long long cstime;      /* 17: reaped children's system CPU, ticks */
	long num_threads;               /* 20 */
	unsigned long long starttime;   /* 22: ticks after boot */
};

/* Parse the NUL-terminated text of a /proc/PID/stat. comm (field 2) may hold
 * spaces and parentheses, so the fields are read after its LAST ')'.
 * Returns 2 if every field above was read, 1 if only ppid was (the rest is
 * left untouched), 0 if not even ppid was. */
int procstat_parse(const char *buf, struct procstat *st);

#endif
