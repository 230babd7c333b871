// SPDX-License-Identifier: ISC
// Long options by their exact names: getopt_long would take any unambiguous prefix.
#ifndef PROCTOR_OPTEXACT_H
#define PROCTOR_OPTEXACT_H

#include <getopt.h>
#include <stdio.h>

/* Check argv[1..] as getopt_long(argc, argv, "+" shortopts, longopts) will
 * read it (up to "--" or the first operand), before it does: every long
 * option must be spelled in full. On the first that is not, print
 * "PROG: unknown option '--NAME' (did you mean --FULL?); see 'HELP'" to err
 * and return -1; else 0. Options getopt_long itself refuses are left to it. */
int optexact_check(int argc, char *const argv[], const char *shortopts,
		   const struct option *longopts, const char *prog, const char *help, FILE *err);

#endif
