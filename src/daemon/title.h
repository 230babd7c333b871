// SPDX-License-Identifier: ISC
// proctord's process title, as ps shows it: "proctord: DIR: running PROGRAM",
// then the status head once the verdict is known ("proctord: DIR: killed
// cpu-time"). Through libbsd's setproctitle.
#ifndef PROCTOR_TITLE_H
#define PROCTOR_TITLE_H

#include <stddef.h>

#include "status.h"

/* First thing in main, before anything keeps a pointer to an argument's
 * text: libbsd moves them to make room for the title. */
void title_init(int argc, char **argv);
/* The program has started in the sandbox directory dir. */
void title_running(const char *dir, const char *program);
/* The verdict is known (or has changed): its head. */
void title_outcome(const struct outcome *o, const struct limits *l);
/* Where the text of proctord's arguments lies (NULL, 0 without
 * title_init), for the init's title_init_process. */
void title_args_span(char **args, size_t *len);
/* In the init of the program's PID namespace, which the program can see at
 * /proc/1: its command line (args, len from title_args_span) becomes
 * "proctor-init", nothing of the host's paths (the sandbox directory, DIR,
 * the binds). Memory writes only: the init calls it between clone and
 * execve. */
void title_init_process(char *args, size_t len);

#endif
