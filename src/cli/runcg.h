// SPDX-License-Identifier: ISC
// proctor run's own leaf on cgroup v2 (runcg.c).
#ifndef PROCTOR_RUNCG_H
#define PROCTOR_RUNCG_H

struct runcg {
	int procs_fd; /* the left cgroup's cgroup.procs, or -1: nothing was moved */
};

/* Before proctord starts: alone in a non-root v2 cgroup that has
 * controllers, step into its leaf "proctor-run". Never fails: where a step
 * does not work, nothing was moved. */
void runcg_leave(struct runcg *rc);
/* In proctord's process before its execve: back into the cgroup left.
 * Returns 0 or -1 (errno set; proctord then starts in the leaf). */
int runcg_child_return(const struct runcg *rc);
void runcg_close(struct runcg *rc);

#endif
