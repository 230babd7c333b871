// SPDX-License-Identifier: ISC
// The one parser of /proc/PID/stat.
#include <stdio.h>
#include <string.h>

#include "procstat.h"

int procstat_parse(const char *buf, struct procstat *st)
{
	const char *p = strrchr(buf, ')');
	unsigned long long cut, cst, start;
	long ppid, threads;

	if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return 0;
	st->ppid = ppid;
	/* After "comm)": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime cutime cstime priority nice
	 * num_threads itrealvalue starttime */
	if (sscanf(p + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %llu %llu %*d %*d "
		   "%ld %*d %llu",
		   &cut, &cst, &threads, &start) != 4)
		return 1;
	st->cutime = cut;
	st->cstime = cst;
	st->num_threads = threads;
	st->starttime = start;
	return 2;
}
