// SPDX-License-Identifier: ISC
// proctor run alone in a cgroup v2 cgroup (a container's first process, a
// systemd-run --scope): it steps into a leaf of its own, and its proctord
// starts back in the cgroup it left, alone there, so that proctord may move
// into its own leaf and hand the sandbox the controllers. Beside proctor
// run, proctord would share the cgroup with it, and cgroup v2 gives
// controllers only to the children of a cgroup without processes.
// Only this process is ever moved; any step that fails leaves things as
// they were, and proctord --check says what is not enforced.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgdiscover.h"
#include "runcg.h"
#include "util.h"

#define RUNCG_LEAF "proctor-run"

/* The directory of our v2 cgroup (malloc'd), or NULL. */
static char *runcg_own_dir(void)
{
	char *mi = slurp("/proc/self/mountinfo"), *pc = slurp("/proc/self/cgroup");
	struct cgd_mount mounts[32];
	struct cgd_hier found[8];
	size_t nm = mi ? cgd_parse_mountinfo(mi, mounts, 32) : 0;
	size_t nf = pc ? cgd_match(pc, mounts, nm, found, 8) : 0;
	char *dir = NULL;

	for (size_t i = 0; i < nf; i++) {
		if (found[i].version == 2 && !dir)
			dir = found[i].parent;
		else
			free(found[i].parent);
	}
	free(mi);
	free(pc);
	return dir;
}

/* Whether the v2 cgroup at dfd is worth leaving: not the root (where
 * processes do not stop controllers), controllers to hand out, and this
 * process its only one. */
static int runcg_worth(int dfd)
{
	char buf[256];
	char *end;
	long pid;

	if (faccessat(dfd, "cgroup.type", F_OK, 0) < 0)
		return 0;
	if (read_small_file(dfd, "cgroup.controllers", buf, sizeof buf) <= 0 ||
	    buf[0] == '\n')
		return 0;
	if (read_small_file(dfd, "cgroup.procs", buf, sizeof buf) <= 0)
		return 0;
	pid = strtol(buf, &end, 10);
	return pid == (long)getpid() && (*end == '\0' || (end[0] == '\n' && end[1] == '\0'));
}

static int runcg_write(int dfd, const char *file, const char *s)
{
	int fd = openat(dfd, file, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

void runcg_leave(struct runcg *rc)
{
	char pid[32], *dir = runcg_own_dir();
	int dfd;

	rc->procs_fd = -1;
	if (!dir)
		return;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd < 0)
		return;
	if (runcg_worth(dfd) && (mkdirat(dfd, RUNCG_LEAF, 0755) == 0 || errno == EEXIST)) {
		/* Opened before we leave: the way back for proctord. */
		rc->procs_fd = openat(dfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
		snprintf(pid, sizeof pid, "%d", (int)getpid());
		if (rc->procs_fd >= 0 && runcg_write(dfd, RUNCG_LEAF "/cgroup.procs", pid) < 0) {
			close(rc->procs_fd);
			rc->procs_fd = -1;
		}
	}
	close(dfd);
}

int runcg_child_return(const struct runcg *rc)
{
	if (rc->procs_fd < 0)
		return 0;
	return write(rc->procs_fd, "0", 1) == 1 ? 0 : -1;
}

void runcg_close(struct runcg *rc)
{
	if (rc->procs_fd >= 0)
		close(rc->procs_fd);
	rc->procs_fd = -1;
}
