// SPDX-License-Identifier: ISC
// --check for a box: its namespaces, its mounts, and whether they can be made here.
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box.h"
#include "boxcheck.h"
#include "config.h"
#include "identity.h"
#include "spawn.h"
#include "sysfilter.h"

void boxcheck_print(const struct box *b, const char *user_ns, FILE *out)
{
	static const char *const kinds[] = {"bind", "symlink", "file", "tmpfs", "proc"};

	fprintf(out, "%-14s mount, pid, ipc, uts, cgroup%s%s%s%s\n", "box namespaces",
		b->share_net ? "" : ", net", user_ns ? ", user (" : "", user_ns ? user_ns : "",
		user_ns ? ")" : "");
	fprintf(out, "%-14s / tmpfs, read-only\n", "box mounts");
	for (size_t i = 0; i < b->n_steps; i++) {
		const struct box_step *s = &b->steps[i];

		fprintf(out, "%-14s %s %s", "", s->path, kinds[s->kind]);
		if (s->kind == BOX_BIND)
			fprintf(out, " of %s, %s%s", s->src, s->ro ? "read-only" : "read-write",
				s->nosuid_nodev ? ", nosuid, nodev" : "");
		else if (s->kind == BOX_LINK)
			fprintf(out, " -> %s", s->data);
		else if (s->kind == BOX_TMPFS)
			fprintf(out, " %s, nosuid, nodev", s->data);
		else if (s->kind == BOX_PROC)
			fprintf(out, " of the box's PID namespace, nosuid, nodev, noexec; sys, "
				     "sysrq-trigger, irq, bus read-only");
		fprintf(out, "\n");
	}
}

int boxcheck_probe(const struct box *b, int user_ns)
{
	int flags = box_unshare_flags(b) | CLONE_NEWPID | (user_ns ? CLONE_NEWUSER : 0);
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(unshare(flags) < 0 ? (errno & 0xff) : 0);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
}

size_t boxcheck(const struct config *c, FILE *out, const char *prefix)
{
	struct identity iso;
	struct box b;
	char err[3 * PATH_MAX];
	int user_ns = spawn_pidns_wanted() == SPAWN_PIDNS_USER, probe;
	char root_map[128];
	uid_t map_uid;
	gid_t map_gid;

	if (!c->box && !c->ro_bind.n && !c->bind.n && !c->share_net)
		return 0;
	if (identity_prepare(&iso, c, err, sizeof err) < 0)
		return 0; /* check_isolation says it */
	if (box_prepare(&b, c, iso.set_uid ? iso.uid : geteuid(), iso.set_gid ? iso.gid : getegid(),
			err, sizeof err) < 0) {
		fprintf(out, "%s%s\n", prefix, err);
		return 1;
	}
	if (identity_box_root(&iso, 1, &map_uid, &map_gid)) {
		user_ns = 1;
		snprintf(root_map, sizeof root_map,
			 "uid and gid 0 are the host's %u and %u: nobody's, not root's",
			 (unsigned)map_uid, (unsigned)map_gid);
	} else {
		snprintf(root_map, sizeof root_map, "uid and gid map to themselves");
	}
	boxcheck_print(&b, user_ns ? root_map : NULL, out);
	fprintf(out, "%-14s a session of its own; %s\n", "box program",
		c->seccomp ? "--seccomp's list" : sysfilter_box_summary);
	probe = boxcheck_probe(&b, user_ns);
	/* As the run does: no user namespace for uid 0 (a chroot), the plain
	 * namespaces, with uid 0 the host's. */
	if (probe && identity_box_root(&iso, 1, &map_uid, &map_gid) && !boxcheck_probe(&b, 0)) {
		fprintf(out,
			"%-14s no user namespace for it here (%s): the program would be the "
			"host's uid 0, without capabilities (give --user)\n",
			"box uid 0", strerror(probe));
		probe = 0;
	}
	box_free(&b);
	if (!probe)
		return 0;
	fprintf(out, "%sthe box's namespaces cannot be made here: %s\n", prefix, strerror(probe));
	return 1;
}
