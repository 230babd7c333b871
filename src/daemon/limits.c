// SPDX-License-Identifier: ISC
// The effective limits of one sandbox.
#include <string.h>

#include "sblimits.h"

void limits_init(struct limits *l)
{
	l->cpu_time_us = UNITS_UNLIMITED;
	l->wall_time_us = UNITS_UNLIMITED;
	l->address_space = UNITS_UNLIMITED;
	l->fsize = UNITS_UNLIMITED;
	l->nofile = UNITS_UNLIMITED;
	l->stack = UNITS_UNLIMITED;
	l->output_limit = UNITS_UNLIMITED;
	l->stdout_limit = UNITS_UNLIMITED;
	l->stderr_limit = UNITS_UNLIMITED;
	l->truncate_output = 0;
	l->grace_us = 50000;
	l->memory_max = UNITS_UNLIMITED;
	l->memory_high = UNITS_UNLIMITED;
	l->pids = UNITS_UNLIMITED;
	memset(&l->cpuset, 0, sizeof l->cpuset);
	l->cpus_milli = UNITS_UNLIMITED;
}
