// SPDX-License-Identifier: ISC
// Starting the program: clone3 with a pidfd, and the child's set-up up to execve.
#ifndef PROCTOR_SPAWN_H
#define PROCTOR_SPAWN_H

#include <sys/types.h>

#include "isolate.h"
#include "sblimits.h"
#include "report.h"
#include "sysfilter.h"

struct spawn_config {
	char *const *argv;
	char **envp;
	const char *stdin_path;  /* NULL: inherit, or /dev/null with null_stdio */
	const char *stdout_path;
	const char *stderr_path;
	/* A descriptor to use as it is instead of a path (an inherited
	 * /dev/fd/N, or the pipe of --output-limit); -1 if none. */
	int stdin_fd, stdout_fd, stderr_fd;
	/* The destination proctord opened for the stream failed with this
	 * errno: the child reports it as "failed stdout" or "failed stderr". */
	int stdout_err, stderr_err;
	int null_stdio;
	const char *chdir;
	const struct limits *limits;
	int nice; /* the program's nice value (proctord may run at a higher priority) */
	/* cgroups: the v2 directory to start in (CLONE_INTO_CGROUP), -1 for
	 * none; cgroup_procs_fd/path is its cgroup.procs, joined by the child
	 * when the kernel cannot clone into it. The child joins the others
	 * (v1 hierarchies) itself, before anything else. */
	int cgroup_fd;
	int cgroup_procs_fd;
	const char *cgroup_path;
	const int *join_fds;
	const char *const *join_paths;
	size_t n_join;
	const struct isolate *isolate;
	const struct sysfilter *filter; /* NULL: no system call filter */
	int filter_sock; /* the child's end of the socket for the filter's listener */
	/* Make the program's process group the foreground group of the
	 * terminal on descriptor 0 (proctord checked that it is one, and that
	 * proctord's group holds it now). */
	int tty_foreground;
};

/* A spawn_config with no descriptors given: set the fields above to -1. */
void spawn_config_init(struct spawn_config *c);

struct spawn_child {
	pid_t pid;
	int pidfd; /* -1 where the kernel gives none */
	int errfd; /* read end of the set-up error pipe, non-blocking */
};

/* Start the program. Returns 0, or -1 with errno set (fork failed). */
int spawn_start(const struct spawn_config *c, struct spawn_child *out);

/* Read the child's set-up report: 1 if it failed (o filled in as a
 * "failed STAGE" outcome), 0 if it reached execve (EOF), -1 if nothing is
 * there yet. */
int spawn_read_failure(int errfd, struct outcome *o);

#endif
