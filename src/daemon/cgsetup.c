// SPDX-License-Identifier: ISC
// Setting up the sandbox's cgroups: discovery on v2, v1 and hybrid machines,
// stale removal, creation, delegation (controllers, proctord's own leaf),
// limits, the descriptors read at run time. --check runs it as a dry run
// (cg->probe), whose answers and plan are cgprobe.c's; what serves what,
// once set up, cgquery.c answers.
//
// Discovery is per interface, not per machine. The v2 hierarchy, even with no
// controller attached (a hybrid machine), gives cgroup.kill, cgroup.freeze,
// cgroup.events and cpu.stat; memory, pids and cpu may be v2 controllers or
// live in v1 hierarchies. Each role goes to the first hierarchy that serves
// it, v2 before v1. The sandbox's cgroup is made below proctord's own cgroup
// in each hierarchy it uses, named proctor-PID, and proctord holds a shared
// flock on its directory for life: a cgroup named so whose lock can be taken
// exclusively was left by a proctord that died, and is killed and removed at
// start. Between its mkdir and its life lock a new cgroup is not locked yet,
// but its creator, whose pid is in its name, is alive: the stale scan never
// takes a cgroup whose named pid is a live process, so creating and claiming
// are one step for every other proctord, and no lock that a stranger can
// take (anyone may open and flock a cgroup directory) stands in the way of a
// start. A cgroup that proctord made and then could not claim is a set-up
// error, never a limit quietly not enforced.
//
// The v2 no-internal-process rule: a non-root cgroup with processes cannot
// hand memory or pids to its children. If proctord is alone in its cgroup
// (a systemd service with Delegate=yes, `systemd-run --scope`), it moves
// itself into a leaf named "proctord" and enables the controllers; if it
// shares its cgroup with other processes (a login shell's), it moves nothing
// else and goes without those controllers, saying so.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgdiscover.h"
#include "cgroup-priv.h"
#include "cgroup.h"
#include "log.h"
#include "prio.h"
#include "units.h"
#include "util.h"


static const char *const cg_mode_names[] = {"auto", "v2", "v1", "none"};

int cgroup_mode_parse(const char *s)
{
	for (size_t i = 0; i < sizeof cg_mode_names / sizeof *cg_mode_names; i++)
		if (strcmp(s, cg_mode_names[i]) == 0)
			return (int)i;
	return -1;
}

const char *cgroup_mode_name(enum cg_mode m)
{
	return (unsigned)m < sizeof cg_mode_names / sizeof *cg_mode_names ? cg_mode_names[m] : "?";
}

/* ------------------------------------------------------------------------ */
/* Discovery */

static void cg_why_all(struct cgroup *cg, const char *why);

/* Fill cg->h with the hierarchies proctord is in and may use. */
static void cg_discover(struct cgroup *cg)
{
	struct cgd_mount mounts[32];
	struct cgd_hier found[CG_MAX_HIER];
	char *mi = slurp("/proc/self/mountinfo"), *pc = slurp("/proc/self/cgroup");
	size_t nm = mi ? cgd_parse_mountinfo(mi, mounts, 32) : 0;
	size_t nf = pc ? cgd_match(pc, mounts, nm, found, CG_MAX_HIER - cg->n) : 0;

	int have_v2 = 0;

	for (size_t i = 0; i < nf; i++) {
		cg->h[cg->n].version = found[i].version;
		strlcpy(cg->h[cg->n].ctrls, found[i].ctrls, sizeof cg->h[cg->n].ctrls);
		cg->h[cg->n].parent = found[i].parent;
		cg->h[cg->n].fd = cg->h[cg->n].procs_fd = -1;
		have_v2 |= found[i].version == 2;
		cg->n++;
	}
	/* In a cgroup namespace, a cgroup2 mount made before it (the host's,
	 * bind-mounted or inherited) cannot show proctord's cgroup: say so,
	 * rather than only that no hierarchy serves the limits. */
	for (size_t i = 0; i < nm && !have_v2; i++)
		if (mounts[i].version == 2 && cgd_outside_ns(mounts[i].root)) {
			snprintf(cg->nowhere, sizeof cg->nowhere,
				 "the cgroup2 mount at %s shows cgroups outside proctord's cgroup "
				 "namespace (its root is %s), not proctord's own: mount cgroup2 "
				 "afresh inside the namespace",
				 mounts[i].point, mounts[i].root);
			cg_why_all(cg, cg->nowhere);
			break;
		}
	free(mi);
	free(pc);
}

/* ------------------------------------------------------------------------ */
/* Cgroups left by a proctord that died */

/* The creator's pid in a sandbox cgroup's name, proctor-PID or
 * proctor-PID.N; 0 for any other name (proctor run's leaf, a cgroup
 * someone else named so), which is not ours to judge. */
static pid_t cg_name_pid(const char *name)
{
	const char *p = name + strlen(CG_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, CG_PREFIX, strlen(CG_PREFIX)) != 0 || *p < '1' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || pid > INT32_MAX)
		return 0;
	if (*end == '.') {
		const char *q = end + 1;

		if (*q < '0' || *q > '9')
			return 0;
		while (*q >= '0' && *q <= '9')
			q++;
		end = (char *)q;
	}
	return *end ? 0 : (pid_t)pid;
}

/* Whether the creator of a sandbox cgroup (cg_name_pid) is a live process:
 * it, or (pid reuse) another that keeps it for a later start to take. */
static int cg_creator_alive(const char *name)
{
	pid_t pid = cg_name_pid(name);

	return pid <= 0 || kill(pid, 0) == 0 || errno == EPERM;
}

/* How many of the cgroups named like ours one start looks at (CG_STALE_LOOK)
 * and may claim (CG_STALE_MAX). Looking at each (a kill, an openat and a
 * failed flock) made a start cost more the more sandboxes ran beside it
 * (beside 500, twice a start's time: the README's Performance): a start
 * looks at a random sample instead, all of them when there are no more.
 * A stale cgroup among many live ones is then removed by a later start,
 * not by the next (on average one in N / CG_STALE_LOOK). */
#define CG_STALE_LOOK 8
#define CG_STALE_MAX CG_STALE_LOOK

/* The names of a uniform random sample of at most CG_STALE_LOOK of the
 * cgroups named like ours in d, one pass (reservoir sampling). Returns the
 * sample's size. */
static size_t cg_sample_ours(DIR *d, char (*pick)[64])
{
	struct dirent *de;
	size_t seen = 0, n = 0;

	while ((de = readdir(d))) {
		size_t slot;

		if (de->d_type != DT_DIR || cg_name_pid(de->d_name) == 0 ||
		    strlen(de->d_name) >= sizeof pick[0])
			continue;
		seen++;
		if (n < CG_STALE_LOOK)
			slot = n++;
		else if ((slot = arc4random_uniform(seen > UINT32_MAX ? UINT32_MAX : (uint32_t)seen)) >=
			 CG_STALE_LOOK)
			continue;
		strlcpy(pick[slot], de->d_name, sizeof pick[slot]);
	}
	return n;
}

/* Cgroups named like ours below the parent at pfd (a sample of them: see
 * CG_STALE_LOOK) whose life lock is free and whose creator is dead were
 * left by a proctord that died: claim each (an exclusive lock, kept in fds)
 * for the caller to remove. A proctord between its mkdir and its life lock
 * is alive, so its cgroup is never taken. Returns how many were claimed. */
static size_t cg_claim_stale(int pfd, int *fds, char (*names)[64], size_t max)
{
	char pick[CG_STALE_LOOK][64];
	DIR *d;
	size_t n = 0, np;
	int dup = fcntl(pfd, F_DUPFD_CLOEXEC, 0);

	d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		if (dup >= 0)
			close(dup);
		return 0;
	}
	np = cg_sample_ours(d, pick);
	closedir(d);
	for (size_t i = 0; i < np && n < max; i++) {
		int fd;

		if (cg_creator_alive(pick[i]))
			continue;
		fd = openat(pfd, pick[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			continue;
		}
		fds[n] = fd;
		strlcpy(names[n], pick[i], sizeof names[n]);
		n++;
	}
	return n;
}

/* Kill what is in the claimed stale cgroups and remove them. */
static void cg_remove_stale(const char *parent, int pfd, const int *fds, char (*names)[64],
			    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (cg_remove_tree(pfd, names[i], 0) == 0)
			log_warnx("removed %s/%s, left by a proctord that died", parent, names[i]);
		else
			log_warn("cannot remove %s/%s, left by a proctord that died", parent,
				 names[i]);
		close(fds[i]);
	}
}

/* ------------------------------------------------------------------------ */
/* Set-up */

/* Whether proctord is the only process in the cgroup at dirfd. */
static int cg_alone(int dirfd)
{
	char buf[256];
	int fd = cg_open_ro(dirfd, "cgroup.procs");
	ssize_t n;
	long pid;
	char *end;

	if (fd < 0)
		return 0;
	n = pread_small(fd, buf, sizeof buf);
	close(fd);
	if (n <= 0)
		return 0;
	pid = strtol(buf, &end, 10);
	return pid == (long)getpid() && (*end == '\0' || (end[0] == '\n' && end[1] == '\0'));
}

/*
 * Whether controllers may be enabled for the children of the v2 cgroup at
 * dirfd: the root (no cgroup.type) always, another only without processes.
 * The kernel's EBUSY is not enough: it accepts threaded controllers (pids,
 * cpu) in a cgroup with processes, which then becomes a thread root whose
 * new children are "domain invalid", so that moving the program into its
 * cgroup fails with EOPNOTSUPP.
 */
static int cg_may_enable(int dirfd)
{
	char buf[16];
	int fd;
	ssize_t n;

	if (faccessat(dirfd, "cgroup.type", F_OK, 0) < 0)
		return errno == ENOENT;
	fd = cg_open_ro(dirfd, "cgroup.procs");
	if (fd < 0)
		return 0;
	n = pread_small(fd, buf, sizeof buf);
	close(fd);
	return n == 0;
}

/* Move proctord into the leaf CG_LEAF of the v2 cgroup at pfd (h->parent),
 * made if need be. --check does it too, and undoes it (cg_probe_undo):
 * proctord is alone there, so nothing else sees it. */
static int cg_move_to_leaf(struct cgroup *cg, const struct cg_hier *h, int pfd, char *why,
			   size_t whylen)
{
	char pid[32];
	int made = mkdirat(pfd, CG_LEAF, 0755) == 0;

	if (!made && errno != EEXIST) {
		snprintf(why, whylen, "cannot create %s/%s: %s", h->parent, CG_LEAF,
			 strerror(errno));
		return -1;
	}
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	if (cg_write_at(pfd, CG_LEAF "/cgroup.procs", pid) < 0) {
		snprintf(why, whylen, "cannot move proctord into %s/%s: %s", h->parent, CG_LEAF,
			 strerror(errno));
		if (made && cg->probe)
			unlinkat(pfd, CG_LEAF, AT_REMOVEDIR);
		return -1;
	}
	if (cg->probe)
		cg_probe_owned(cg, pfd, h->parent, made);
	return 0;
}

/* Enable controller c for the children of the v2 cgroup at h->parent. */
static int cg_enable(struct cgroup *cg, struct cg_hier *h, int pfd, const char *c, char *why,
		     size_t whylen)
{
	char buf[512], plus[32];

	if (read_small_file(pfd, "cgroup.controllers", buf, sizeof buf) < 0 ||
	    !cgd_has_word(buf, c)) {
		snprintf(why, whylen, "the %s controller is not available in %s (cgroup.controllers)",
			 c, h->parent);
		return -1;
	}
	if (read_small_file(pfd, "cgroup.subtree_control", buf, sizeof buf) >= 0 &&
	    cgd_has_word(buf, c))
		return 0;
	snprintf(plus, sizeof plus, "+%s", c);
	if (!cg_may_enable(pfd) && !(cg->probe && cg->moved))
		errno = EBUSY;
	else if (cg_change(cg, pfd, h->parent, "cgroup.subtree_control", plus) == 0)
		return cg_untried(cg, c);
	if (errno == EBUSY && !cg->moved && cg_alone(pfd)) {
		/* Alone in a cgroup with processes: move into a leaf of our own,
		 * then the cgroup may hand out controllers. */
		if (cg_move_to_leaf(cg, h, pfd, why, whylen) < 0)
			return -1;
		cg->moved = 1;
		if (cg_change(cg, pfd, h->parent, "cgroup.subtree_control", plus) == 0)
			return cg_untried(cg, c);
	}
	if (errno == EBUSY)
		snprintf(why, whylen,
			 "cannot enable the %s controller in %s: other processes share proctord's "
			 "cgroup (cgroup v2 hands controllers only to cgroups without processes); "
			 "start proctord in a cgroup of its own, e.g. with systemd-run --scope -p "
			 "Delegate=yes, or in a container as its main process",
			 c, h->parent);
	else
		snprintf(why, whylen, "cannot enable the %s controller in %s: %s", c, h->parent,
			 strerror(errno));
	return -1;
}

/* Make the sandbox's cgroup in h and take its life lock, as one step for
 * every other proctord: from its mkdir to its life lock, the cgroup's name
 * holds the pid of a live process (ours), which the stale scan never takes.
 * The life lock is shared (a stale scan's exclusive lock fails on it).
 * Returns 0; -1 with why when no cgroup could be made (the limits it would
 * serve are then not enforced, and said so); -2 with why when a cgroup was
 * made but could not be claimed: removed or locked by somebody else, which
 * must never cost a limit silently. */
static int cg_create(struct cgroup *cg, struct cg_hier *h, char *why, size_t whylen)
{
	int pfd = open(h->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int stale_fds[CG_STALE_MAX], rc = -1;
	char stale_names[CG_STALE_MAX][64], name[64] = "";
	size_t n_stale = 0;

	if (pfd < 0) {
		snprintf(why, whylen, "cannot open %s: %s", h->parent, strerror(errno));
		return -1;
	}
	/* Only where this proctord may remove what it finds: a proctord of
	 * another user (nobody's, in root's cgroup) would warn of each one it
	 * cannot remove, and its exclusive lock would stand in the way of one
	 * that can. */
	if (!cg->probe && faccessat(pfd, ".", W_OK | X_OK, AT_EACCESS) == 0)
		n_stale = cg_claim_stale(pfd, stale_fds, stale_names, CG_STALE_MAX);
	for (int i = 0; i < 100; i++) {
		if (i == 0)
			snprintf(name, sizeof name, CG_PREFIX "%d", (int)getpid());
		else
			snprintf(name, sizeof name, CG_PREFIX "%d.%d", (int)getpid(), i);
		if (mkdirat(pfd, name, 0755) == 0)
			break;
		if (errno != EEXIST) {
			snprintf(why, whylen, "cannot create a cgroup in %s: %s", h->parent,
				 strerror(errno));
			name[0] = '\0';
			goto out;
		}
		name[0] = '\0';
	}
	if (!name[0]) {
		snprintf(why, whylen, "cannot create a cgroup in %s: names taken", h->parent);
		goto out;
	}
	h->fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (h->fd < 0 || flock(h->fd, LOCK_SH | LOCK_NB) < 0) {
		snprintf(why, whylen,
			 "cannot claim the cgroup %s/%s that proctord just created: %s", h->parent,
			 name, strerror(errno));
		if (h->fd >= 0)
			close(h->fd);
		h->fd = -1;
		rc = -2;
		goto out;
	}
	xasprintf(&h->path, "%s/%s", h->parent, name);
	if (cg->probe) {
		/* --check: made as set-up makes it, no descriptor to join. */
		cg_plan(cg, "would create %s in %s (tried: made, and removed by --check)", name,
			h->parent);
		rc = 0;
		goto out;
	}
	/* v1: the child joins through "tasks", which moves the writing thread
	 * alone: the kernel (5.15 on) then skips the global write lock that
	 * cgroup.procs takes, whose RCU grace period cost ~15 ms per start on
	 * a busy machine. The child is single-threaded, so that is all of it. */
	h->procs_fd = openat(h->fd, h->version == 1 ? "tasks" : "cgroup.procs",
			     O_WRONLY | O_CLOEXEC);
	rc = 0;
out:
	cg_remove_stale(h->parent, pfd, stale_fds, stale_names, n_stale);
	close(pfd);
	return rc;
}

static void cg_take(struct cgroup *cg, enum cg_role r, size_t i)
{
	if (cg->role[r] < 0) {
		cg->role[r] = (int)i;
		cg->h[i].used = 1;
	}
}

static void cg_why_all(struct cgroup *cg, const char *why)
{
	for (int r = 0; r < CG_ROLE_COUNT; r++)
		if (cg->role[r] < 0 && !cg->why[r][0])
			strlcpy(cg->why[r], why, sizeof cg->why[r]);
}

static void cg_setup_v2(struct cgroup *cg, size_t i, const struct limits *l)
{
	struct cg_hier *h = &cg->h[i];
	char why_mem[CG_WHY] = "", why_pids[CG_WHY] = "", why_cpu[CG_WHY] = "", why[CG_WHY];
	char why_cpuset[CG_WHY] = "";
	int pfd = open(h->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int mem = -1, pids = -1, cpu = -1, cpuset = -1, rc;

	if (pfd < 0) {
		snprintf(why, sizeof why, "cannot open the cgroup %s: %s", h->parent, strerror(errno));
		cg_why_all(cg, why);
		return;
	}
	mem = cg_enable(cg, h, pfd, "memory", why_mem, sizeof why_mem);
	pids = cg_enable(cg, h, pfd, "pids", why_pids, sizeof why_pids);
	/* Also without --cpus where proctord cannot be SCHED_FIFO (rootless,
	 * in a container, real-time group scheduling): its leaf and the
	 * sandbox's cgroup then share the CPU by weight, as siblings, so that
	 * a tree of many runnable threads cannot starve its timers and
	 * answers. */
	if (l->cpus_milli != UNITS_UNLIMITED || !cg->rt)
		cpu = cg_enable(cg, h, pfd, "cpu", why_cpu, sizeof why_cpu);
	if (!units_cpuset_empty(&l->cpuset))
		cpuset = cg_enable(cg, h, pfd, "cpuset", why_cpuset, sizeof why_cpuset);
	close(pfd);
	rc = cg_create(cg, h, why, sizeof why);
	if (rc == -2)
		strlcpy(cg->fatal, why, sizeof cg->fatal);
	if (rc < 0) {
		cg_why_all(cg, why);
		return;
	}
	if (cg_v2_has(cg, h, "cpu.stat"))
		cg_take(cg, CG_ROLE_CPU, i);
	if (cg_v2_has(cg, h, "cgroup.kill"))
		cg_take(cg, CG_ROLE_KILL, i);
	if (cg_v2_has(cg, h, "cgroup.freeze"))
		cg_take(cg, CG_ROLE_FREEZE, i);
	if (cg_v2_has(cg, h, "cgroup.events"))
		cg_take(cg, CG_ROLE_EVENTS, i);
	if (mem == 0 && cg_v2_has(cg, h, "memory.max"))
		cg_take(cg, CG_ROLE_MEMORY, i);
	else
		strlcpy(cg->why[CG_ROLE_MEMORY], why_mem, sizeof cg->why[0]);
	if (pids == 0 && cg_v2_has(cg, h, "pids.max"))
		cg_take(cg, CG_ROLE_PIDS, i);
	else
		strlcpy(cg->why[CG_ROLE_PIDS], why_pids, sizeof cg->why[0]);
	if (cpu == 0 && cg_v2_has(cg, h, "cpu.max"))
		cg_take(cg, CG_ROLE_CPUMAX, i);
	else
		strlcpy(cg->why[CG_ROLE_CPUMAX], why_cpu, sizeof cg->why[0]);
	if (cpu == 0 && cg_v2_has(cg, h, "cpu.weight"))
		cg_take(cg, CG_ROLE_CPUWEIGHT, i);
	else
		strlcpy(cg->why[CG_ROLE_CPUWEIGHT], why_cpu, sizeof cg->why[0]);
	if (cpuset == 0 && cg_v2_has(cg, h, "cpuset.cpus"))
		cg_take(cg, CG_ROLE_CPUSET, i);
	else
		strlcpy(cg->why[CG_ROLE_CPUSET], why_cpuset, sizeof cg->why[0]);
	/* Always made: cgroup.kill and cpu.stat need no controller. */
	h->used = 1;
}

static void cg_setup_v1(struct cgroup *cg, size_t i, const struct limits *l)
{
	struct cg_hier *h = &cg->h[i];
	int want = 0, rc;
	char why[CG_WHY];

	if (cg->role[CG_ROLE_MEMORY] < 0 && cgd_has_word(h->ctrls, "memory"))
		want = 1;
	if (cg->role[CG_ROLE_PIDS] < 0 && cgd_has_word(h->ctrls, "pids"))
		want = 1;
	if (cg->role[CG_ROLE_CPU] < 0 && cgd_has_word(h->ctrls, "cpuacct"))
		want = 1;
	if (cg->role[CG_ROLE_CPUMAX] < 0 && l->cpus_milli != UNITS_UNLIMITED &&
	    cgd_has_word(h->ctrls, "cpu"))
		want = 1;
	/* Refused SCHED_FIFO (real-time group scheduling gives proctord's
	 * cgroup no runtime), proctord keeps its deadline by weight: the tree
	 * in a cpu cgroup of its own below proctord's is one entity against
	 * proctord at nice -10, not one per thread. */
	if (cg->role[CG_ROLE_CPUWEIGHT] < 0 && !cg->rt && cgd_has_word(h->ctrls, "cpu"))
		want = 1;
	if (cg->role[CG_ROLE_KILL] < 0 && cg->role[CG_ROLE_FREEZE] < 0 &&
	    cgd_has_word(h->ctrls, "freezer"))
		want = 1;
	if (cg->role[CG_ROLE_CPUSET] < 0 && !units_cpuset_empty(&l->cpuset) &&
	    cgd_has_word(h->ctrls, "cpuset"))
		want = 1;
	if (!want)
		return;
	rc = cg_create(cg, h, why, sizeof why);
	if (rc == -2)
		strlcpy(cg->fatal, why, sizeof cg->fatal);
	if (rc < 0) {
		if (cgd_has_word(h->ctrls, "memory"))
			strlcpy(cg->why[CG_ROLE_MEMORY], why, sizeof cg->why[0]);
		if (cgd_has_word(h->ctrls, "pids"))
			strlcpy(cg->why[CG_ROLE_PIDS], why, sizeof cg->why[0]);
		if (cgd_has_word(h->ctrls, "cpu")) {
			strlcpy(cg->why[CG_ROLE_CPUMAX], why, sizeof cg->why[0]);
			strlcpy(cg->why[CG_ROLE_CPUWEIGHT], why, sizeof cg->why[0]);
		}
		if (cgd_has_word(h->ctrls, "cpuset"))
			strlcpy(cg->why[CG_ROLE_CPUSET], why, sizeof cg->why[0]);
		return;
	}
	if (cgd_has_word(h->ctrls, "memory"))
		cg_take(cg, CG_ROLE_MEMORY, i);
	if (cgd_has_word(h->ctrls, "pids"))
		cg_take(cg, CG_ROLE_PIDS, i);
	if (cgd_has_word(h->ctrls, "cpuacct"))
		cg_take(cg, CG_ROLE_CPU, i);
	if (l->cpus_milli != UNITS_UNLIMITED && cgd_has_word(h->ctrls, "cpu"))
		cg_take(cg, CG_ROLE_CPUMAX, i);
	if (cgd_has_word(h->ctrls, "cpu"))
		cg_take(cg, CG_ROLE_CPUWEIGHT, i);
	if (cg->role[CG_ROLE_KILL] < 0 && cgd_has_word(h->ctrls, "freezer"))
		cg_take(cg, CG_ROLE_FREEZE, i);
	if (!units_cpuset_empty(&l->cpuset) && cgd_has_word(h->ctrls, "cpuset"))
		cg_take(cg, CG_ROLE_CPUSET, i);
	h->used = 1;
}

/* Write one limit; failing is an error. */
static int cg_limit(struct cgroup *cg, enum cg_role r, const char *file, const char *value,
		    char *err, size_t errlen)
{
	struct cg_hier *h = &cg->h[cg->role[r]];

	if (cg_is_untried(cg, h, file)) {
		cg_plan(cg, "would write %s to %s/%s (not tried: --check enables no controller)",
			value, h->path, file);
		return 0;
	}
	if (cg_write_at(h->fd, file, value) == 0) {
		if (cg->probe)
			cg_plan(cg, "would write %s to %s/%s (tried)", value, h->path, file);
		return 0;
	}
	snprintf(err, errlen, "cannot write %s to %s/%s: %s", value, h->path, file,
		 strerror(errno));
	return -1;
}

/* Whether the sandbox's cgroup in h has file, or will have it once set-up
 * enables the controller that --check does not. */
static int cg_file_there(const struct cgroup *cg, const struct cg_hier *h, const char *file)
{
	return cg_exists_at(h->fd, file) || cg_is_untried(cg, h, file);
}

/* --cpuset. A v1 cpuset takes no task until it has memory nodes too: its
 * parent's (a new v1 cpuset starts with none, unless cgroup.clone_children
 * copied them). */
static int cg_apply_cpuset(struct cgroup *cg, const struct limits *l, char *err, size_t errlen)
{
	struct cg_hier *h = &cg->h[cg->role[CG_ROLE_CPUSET]];
	char cpus[4 * UNITS_CPUSET_MAX], mems[512];

	if (h->version == 1) {
		int pfd = open(h->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ssize_t rc = pfd < 0 ? -1 : read_small_file(pfd, "cpuset.mems", mems, sizeof mems);

		if (pfd >= 0)
			close(pfd);
		if (rc < 0) {
			snprintf(err, errlen, "cannot read %s/cpuset.mems: %s", h->parent,
				 strerror(errno));
			return -1;
		}
		mems[strcspn(mems, "\n")] = '\0';
		if (cg_limit(cg, CG_ROLE_CPUSET, "cpuset.mems", mems, err, errlen) < 0)
			return -1;
	}
	units_format_cpuset(&l->cpuset, cpus, sizeof cpus);
	return cg_limit(cg, CG_ROLE_CPUSET, "cpuset.cpus", cpus, err, errlen);
}

static int cg_apply_limits(struct cgroup *cg, const struct limits *l, char *err, size_t errlen)
{
	char v[64];

	if (cg->role[CG_ROLE_MEMORY] >= 0) {
		struct cg_hier *h = &cg->h[cg->role[CG_ROLE_MEMORY]];

		if (h->version == 2) {
			if (l->memory_max != UNITS_UNLIMITED) {
				snprintf(v, sizeof v, "%" PRIu64, l->memory_max);
				if (cg_limit(cg, CG_ROLE_MEMORY, "memory.max", v, err, errlen) < 0)
					return -1;
				/* Swap would let the program past the limit. */
				if (cg_file_there(cg, h, "memory.swap.max") &&
				    cg_limit(cg, CG_ROLE_MEMORY, "memory.swap.max", "0", err, errlen) < 0)
					return -1;
			}
			if (l->memory_high != UNITS_UNLIMITED) {
				snprintf(v, sizeof v, "%" PRIu64, l->memory_high);
				if (cg_limit(cg, CG_ROLE_MEMORY, "memory.high", v, err, errlen) < 0)
					return -1;
			}
			/* An OOM kill takes the whole tree, at once. */
			if (cg_file_there(cg, h, "memory.oom.group") &&
			    cg_limit(cg, CG_ROLE_MEMORY, "memory.oom.group", "1", err, errlen) < 0)
				return -1;
		} else if (l->memory_max != UNITS_UNLIMITED) {
			snprintf(v, sizeof v, "%" PRIu64, l->memory_max);
			if (cg_limit(cg, CG_ROLE_MEMORY, "memory.limit_in_bytes", v, err, errlen) < 0)
				return -1;
			/* memsw (memory + swap), where swap accounting is on;
			 * it may not be below limit_in_bytes, hence second. */
			if (cg_file_there(cg, h, "memory.memsw.limit_in_bytes") &&
			    cg_limit(cg, CG_ROLE_MEMORY, "memory.memsw.limit_in_bytes", v, err,
				     errlen) < 0)
				return -1;
		}
	}
	if (cg->role[CG_ROLE_PIDS] >= 0 && l->pids != UNITS_UNLIMITED) {
		snprintf(v, sizeof v, "%" PRIu64, l->pids);
		if (cg_limit(cg, CG_ROLE_PIDS, "pids.max", v, err, errlen) < 0)
			return -1;
	}
	if (cg->role[CG_ROLE_CPUSET] >= 0 && cg_apply_cpuset(cg, l, err, errlen) < 0)
		return -1;
	if (cg->role[CG_ROLE_CPUMAX] >= 0 && l->cpus_milli != UNITS_UNLIMITED) {
		/* quota per 100 ms period; a thousandth of a CPU is 100 µs.
		 * units_parse_cpus bounds cpus_milli: no overflow. */
		uint64_t quota = l->cpus_milli * 100u;

		if (quota < 1000)
			quota = 1000; /* the kernel's minimum: 1 ms */
		if (cg->h[cg->role[CG_ROLE_CPUMAX]].version == 2) {
			snprintf(v, sizeof v, "%" PRIu64 " 100000", quota);
			if (cg_limit(cg, CG_ROLE_CPUMAX, "cpu.max", v, err, errlen) < 0)
				return -1;
		} else {
			snprintf(v, sizeof v, "%" PRIu64, quota);
			if (cg_limit(cg, CG_ROLE_CPUMAX, "cpu.cfs_period_us", "100000", err, errlen) <
				    0 ||
			    cg_limit(cg, CG_ROLE_CPUMAX, "cpu.cfs_quota_us", v, err, errlen) < 0)
				return -1;
		}
	}
	return 0;
}

/* Descriptors read on every wait, and the OOM watch. */
static void cg_open_readers(struct cgroup *cg)
{
	if (cg->role[CG_ROLE_CPU] >= 0) {
		struct cg_hier *h = &cg->h[cg->role[CG_ROLE_CPU]];

		cg->cpu_fd = cg_open_ro(h->fd, h->version == 2 ? "cpu.stat" : "cpuacct.usage");
	}
	if (cg->role[CG_ROLE_MEMORY] >= 0) {
		struct cg_hier *h = &cg->h[cg->role[CG_ROLE_MEMORY]];

		cg->peak_fd = cg_open_ro(h->fd, h->version == 2 ? "memory.peak"
								: "memory.max_usage_in_bytes");
		cg->oom_fd = cg_open_ro(h->fd, h->version == 2 ? "memory.events" : "memory.oom_control");
		if (h->version == 2 && cg->oom_fd >= 0) {
			/* memory.events raises POLLPRI when it changes, until
			 * it is read again; libev watches no POLLPRI, so a
			 * small epoll set of its own holds it, and that set is
			 * readable while the event is pending. Not inotify: a
			 * user has 128 instances by default, and the status
			 * FIFO already takes one per proctord. */
			struct epoll_event ev = {.events = EPOLLPRI};

			cg->oom_watch_fd = epoll_create1(EPOLL_CLOEXEC);
			if (cg->oom_watch_fd >= 0 &&
			    epoll_ctl(cg->oom_watch_fd, EPOLL_CTL_ADD, cg->oom_fd, &ev) < 0) {
				close(cg->oom_watch_fd);
				cg->oom_watch_fd = -1;
			}
		} else if (cg->oom_fd >= 0) {
			/* v1: an eventfd signalled when the cgroup is out of memory. */
			cg->oom_watch_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
			if (cg->oom_watch_fd >= 0) {
				char reg[64];

				snprintf(reg, sizeof reg, "%d %d", cg->oom_watch_fd, cg->oom_fd);
				if (cg_write_at(h->fd, "cgroup.event_control", reg) < 0) {
					close(cg->oom_watch_fd);
					cg->oom_watch_fd = -1;
				}
			}
		}
	}
	if (cg->role[CG_ROLE_PIDS] >= 0) {
		struct cg_hier *h = &cg->h[cg->role[CG_ROLE_PIDS]];

		cg->pidspeak_fd = cg_open_ro(h->fd, "pids.peak");
		cg->pidsevents_fd = cg_open_ro(h->fd, "pids.events");
	}
	if (cg->role[CG_ROLE_EVENTS] >= 0)
		cg->events_fd = cg_open_ro(cg->h[cg->role[CG_ROLE_EVENTS]].fd, "cgroup.events");
}

int cg_setup(struct cgroup *cg, enum cg_mode mode, const struct limits *l, int probe, char *err,
	     size_t errlen)
{
	memset(cg, 0, sizeof *cg);
	cg->mode = mode;
	cg->probe = probe;
	for (int r = 0; r < CG_ROLE_COUNT; r++)
		cg->role[r] = -1;
	cg->cpu_fd = cg->peak_fd = cg->oom_fd = -1;
	cg->pidspeak_fd = cg->pidsevents_fd = cg->events_fd = cg->oom_watch_fd = -1;
	cg->undo_fd = -1;
	/* Before any cgroup is made: whether the tree needs a cpu cgroup of
	 * its own depends on it. */
	cg->rt_err = prio_rt_probe();
	cg->rt = cg->rt_err == 0;
	if (mode == CG_MODE_NONE) {
		cg_why_all(cg, "cgroups are turned off (cgroup = none)");
		return 0;
	}
	cg_discover(cg);
	/* A cgroup made and lost ends the set-up at once (cg->fatal). */
	for (size_t i = 0; i < cg->n && !cg->fatal[0]; i++)
		if (cg->h[i].version == 2 && mode != CG_MODE_V1)
			cg_setup_v2(cg, i, l);
	for (size_t i = 0; i < cg->n && !cg->fatal[0]; i++)
		if (cg->h[i].version == 1 && mode != CG_MODE_V2)
			cg_setup_v1(cg, i, l);
	if (mode == CG_MODE_V2)
		cg_why_all(cg, "no cgroup v2 hierarchy serves it (cgroup = v2)");
	else if (mode == CG_MODE_V1)
		cg_why_all(cg, "no cgroup v1 hierarchy serves it (cgroup = v1)");
	else
		cg_why_all(cg, "no mounted cgroup hierarchy of proctord's serves it");
	if (cg->fatal[0]) {
		snprintf(err, errlen, "%s", cg->fatal);
		/* --check's probe cgroups made so far, its leaf and controllers:
		 * undone as on success. */
		if (probe) {
			cg_probe_remove(cg);
			cg_probe_undo(cg);
		}
		cgroup_destroy(cg);
		return -1;
	}
	if (probe) {
		char why[CG_WHY];

		if (cg_apply_limits(cg, l, why, sizeof why) < 0)
			strlcpy(cg->tried, why, sizeof cg->tried);
		cg_probe_remove(cg);
		cg_probe_undo(cg);
		return 0;
	}
	if (cg_apply_limits(cg, l, err, errlen) < 0) {
		cgroup_destroy(cg);
		return -1;
	}
	cg_open_readers(cg);
	return 0;
}

int cgroup_setup(struct cgroup *cg, enum cg_mode mode, const struct limits *l, char *err,
		 size_t errlen)
{
	return cg_setup(cg, mode, l, 0, err, errlen);
}

int cgroup_set_pids_max(struct cgroup *cg, uint64_t n, char *err, size_t errlen)
{
	char v[32];

	if (cg->role[CG_ROLE_PIDS] < 0)
		return 0;
	if (n == UNITS_UNLIMITED)
		snprintf(v, sizeof v, "max");
	else
		snprintf(v, sizeof v, "%" PRIu64, n);
	return cg_limit(cg, CG_ROLE_PIDS, "pids.max", v, err, errlen);
}
