// SPDX-License-Identifier: ISC
// --check for a box: its namespaces, its mounts, and whether they can be made here.
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box.h"
#include "boxcheck.h"
#include "checktry.h"
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

/* How the trial's failure to make the user namespace starts. */
#define BOXCHECK_NO_USERNS "unshare(CLONE_NEWUSER): "

struct boxcheck_try {
	const struct box *b;
	int user_ns;
	uid_t uid; /* root's box: the host's ids of its uid and gid 0 */
	gid_t gid;
};

/* Write line to /proc/self/FILE; -1 with errno. */
static int boxcheck_write_self(const char *file, const char *line)
{
	char path[64];
	int fd, r, saved;

	snprintf(path, sizeof path, "/proc/self/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = write(fd, line, strlen(line)) == (ssize_t)strlen(line) ? 0 : -1;
	saved = errno;
	close(fd);
	errno = saved;
	return r;
}

/* The trial's init: PID 1 of the new PID namespace, which builds the box as
 * the run's init does (box_child_enter: its namespaces, every mount, the
 * pivot) and reports a failed step on fd. */
static void boxcheck_init(const struct box *b, int fd)
{
	const char *what = "the box";
	char msg[512];

	if (box_child_enter(b, &what) == 0)
		_exit(0);
	snprintf(msg, sizeof msg, "%s: %s", what, strerror(errno));
	if (write(fd, msg, strlen(msg)) < 0)
		_exit(2);
	_exit(1);
}

/* In checktry_child's child: the user namespace (mapping the ids to
 * themselves: which ids does not change what may be mounted), the PID
 * namespace, and in it the init that builds the box. */
static int boxcheck_try(const void *arg, char *msg, size_t len)
{
	const struct boxcheck_try *t = arg;
	char map[64];
	int p[2];
	pid_t pid;

	/* Root's box maps its uid 0 to nobody, whose rights on the host its
	 * init then has: the trial takes them before its namespace (mapping
	 * the host's root would take CAP_SETFCAP there, which it has not). */
	if (t->user_ns && (t->uid != geteuid() || t->gid != getegid()) &&
	    (setgroups(0, NULL) < 0 || setresgid(t->gid, t->gid, t->gid) < 0 ||
	     setresuid(t->uid, t->uid, t->uid) < 0)) {
		snprintf(msg, len, "taking uid %u: %s", (unsigned)t->uid, strerror(errno));
		return -1;
	}
	/* The id change made it undumpable: its /proc/self files root's. */
	if (t->user_ns && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0) {
		snprintf(msg, len, "PR_SET_DUMPABLE: %s", strerror(errno));
		return -1;
	}
	if (t->user_ns) {
		if (unshare(CLONE_NEWUSER) < 0) {
			snprintf(msg, len, BOXCHECK_NO_USERNS "%s", strerror(errno));
			return -1;
		}
		snprintf(map, sizeof map, "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
		if (boxcheck_write_self("uid_map", map) < 0 ||
		    boxcheck_write_self("setgroups", "deny") < 0 ||
		    (snprintf(map, sizeof map, "%u %u 1", (unsigned)getegid(), (unsigned)getegid()),
		     boxcheck_write_self("gid_map", map) < 0)) {
			snprintf(msg, len, "the user namespace's maps: %s", strerror(errno));
			return -1;
		}
	}
	if (unshare(CLONE_NEWPID) < 0 || pipe2(p, O_CLOEXEC) < 0) {
		snprintf(msg, len, "unshare(CLONE_NEWPID): %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(msg, len, "fork into the PID namespace: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		boxcheck_init(t->b, p[1]);
	}
	close(p[1]);
	return checktry_reap(pid, p[0], "the trial's init", msg, len);
}

int boxcheck_probe(const struct box *b, int user_ns, uid_t uid, gid_t gid, char *why, size_t len)
{
	struct boxcheck_try t = {b, user_ns, uid, gid};

	return checktry_child(boxcheck_try, &t, why, len);
}

size_t boxcheck(const struct config *c, FILE *out, const char *prefix)
{
	struct identity iso;
	struct box b;
	char err[3 * PATH_MAX], why[512];
	int user_ns = spawn_pidns_wanted() == SPAWN_PIDNS_USER, probe;
	char root_map[128];
	uid_t map_uid = geteuid();
	gid_t map_gid = getegid();

	if (!c->box && !c->ro_bind.n && !c->bind.n && !c->dev_bind.n && !c->share_net)
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
	probe = boxcheck_probe(&b, user_ns, map_uid, map_gid, why, sizeof why);
	/* As the run does where the user namespace cannot be made (and only
	 * there): no user namespace for uid 0 (a chroot), the plain
	 * namespaces, with uid 0 the host's. */
	if (probe && identity_box_root(&iso, 1, &map_uid, &map_gid) &&
	    strncmp(why, BOXCHECK_NO_USERNS, strlen(BOXCHECK_NO_USERNS)) == 0 &&
	    !boxcheck_probe(&b, 0, map_uid, map_gid, err, sizeof err)) {
		fprintf(out,
			"%-14s no user namespace for it here (%s): the program would be the "
			"host's uid 0, without capabilities (give --user)\n",
			"box uid 0", why);
		probe = 0;
	}
	box_free(&b);
	if (!probe) {
		fprintf(out, "%-14s made and entered by --check in a child of its own, which "
			     "ended: nothing of it is left\n", "box tried");
		return 0;
	}
	fprintf(out, "%sthe box cannot be made here: %s\n", prefix, why);
	return 1;
}
