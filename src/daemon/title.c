// SPDX-License-Identifier: ISC
// proctord's process title, and the command line its PID namespace's init shows.
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "status.h"
#include "title.h"

/* Without title_init (the unit tests), nothing is set: libbsd would warn. */
static int title_on;
static char title_dir[PATH_MAX];
/* Where the kernel reads /proc/PID/cmdline from: the arguments' text as
 * exec laid it out, one block. */
static char *title_args;
static size_t title_args_len;

void title_init(int argc, char **argv)
{
	/* The title takes the room of the arguments only, not that of the
	 * environment (libbsd would move it): /proc/PID/environ stays what
	 * proctord was started with. A title longer than the arguments were
	 * is cut. */
	static char *no_env[] = {NULL};

	if (argc > 0 && argv[0]) {
		title_args = argv[0];
		title_args_len = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) + 1 - argv[0]);
	}
	setproctitle_init(argc, argv, no_env);
	title_on = 1;
}

void title_running(const char *dir, const char *program)
{
	if (!title_on)
		return;
	strlcpy(title_dir, dir, sizeof title_dir);
	/* libbsd puts "proctord: " in front. */
	setproctitle("%s: running %s", title_dir, program);
}

void title_outcome(const struct outcome *o, const struct limits *l)
{
	char line[REPORT_STATUS_MAX];

	if (!title_on || !title_dir[0])
		return;
	report_status_line(o, l, line, sizeof line);
	/* The head only: the text is for the answers. */
	line[strcspn(line, ":")] = '\0';
	setproctitle("%s: %s", title_dir, line);
}

void title_args_span(char **args, size_t *len)
{
	*args = title_args;
	*len = title_args_len;
}

void title_init_process(char *args, size_t len)
{
	static const char name[] = "proctor-init";

	if (!args || !len)
		return;
	memset(args, 0, len);
	memcpy(args, name, sizeof name <= len ? sizeof name - 1 : len - 1);
}
