// SPDX-License-Identifier: ISC
// proctord's command line: the options (each configuration key is one),
// --help, and the environment the program gets.
#ifndef PROCTOR_OPTIONS_H
#define PROCTOR_OPTIONS_H

#include "config.h"

struct options {
	struct config cfg;
	const char *config_file;
	const char *profile;
	int check;
	int daemonize;
	int tty_foreground;
	const char *end_fd; /* --end-fd N, or NULL */
	const char *end_on_eof; /* --end-on-eof N, or NULL */
	/* --report-fd N: a second destination of the report (proctor run's
	 * memfd), written whatever happens to --report FILE; or NULL. */
	const char *report_fd;
	char **argv;
};

/* Parse the command line into o: the configuration file and profile first,
 * then the options over it, validated. Exits on bad usage, --help and
 * --version. */
void options_parse(int argc, char **argv, struct options *o);
/* What is accepted, but most likely a mistake: said once, before anything
 * runs (on stderr, so that --check's table stays as it is). */
void options_warnings(const struct options *o);
/* The program's environment: proctord's own, or in a box options_box_env
 * (neither with --clear-env), with the --env entries over it;
 * NULL-terminated, freed with options_env_free. */
char **options_env(const struct config *c);
void options_env_free(char **env);

/* A box's environment without --clear-env, before --env: NAME=VALUE
 * entries, NULL-terminated. */
extern const char *const options_box_env[];

#endif
