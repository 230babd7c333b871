// SPDX-License-Identifier: ISC
// proctord --check: the effective settings, their sources and what enforces
// them, each mechanism tried as a start uses it (probe cgroups, checktry.c,
// boxcheck.c) and nothing of it left behind.
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "box.h"
#include "boxcheck.h"
#include "ctrcheck.h"
#include "cgroup.h"
#include "check.h"
#include "checktry.h"
#include "config.h"
#include "cpuset.h"
#include "hostcheck.h"
#include "identity.h"
#include "log.h"
#include "options.h"
#include "prio.h"
#include "procwalk.h"
#include "spawn.h"
#include "sysfilter.h"
#include "version.h"

/* What --check says of the identity, the namespaces outside a box and the
 * filter, each tried as the run uses it (checktry.c). Returns how many
 * things cannot be honoured. */
static size_t check_isolation(const struct config *c, const struct cgroup *cg, FILE *out,
			      const char *prefix)
{
	struct identity iso;
	char err[512];
	size_t n = 0;

	if (c->seccomp || c->seccomp_errno) {
		fprintf(out, "\n%-14s %s, %s", "seccomp denies", sysfilter_denied[0],
			sysfilter_denied[1]);
		for (size_t i = 2; sysfilter_denied[i]; i++)
			fprintf(out, ", %s", sysfilter_denied[i]);
		for (size_t i = 0; sysfilter_denied_args[i]; i++)
			fprintf(out, ", %s", sysfilter_denied_args[i]);
		fprintf(out, "\n%-14s %s\n", "seccomp action",
			c->seccomp_errno ? "the call fails with EPERM"
					 : "proctord is notified and kills the tree (killed syscall: NAME)");
	}
	/* A box's own filter too (its run only warns if it cannot be had). */
	if (checktry_seccomp(c, cg, err, sizeof err) < 0) {
		fprintf(out, "%s%s%s\n", prefix, c->box && !c->seccomp ? "the box's filter: " : "",
			err);
		n++;
	}
	if (checktry_unshare(c, err, sizeof err) < 0) {
		fprintf(out, "%s%s\n", prefix, err);
		n++;
	}
	if (identity_prepare(&iso, c, err, sizeof err) < 0) {
		fprintf(out, "%s%s\n", prefix, err);
		n++;
	}
	return n;
}

static void check_mechanism(void *ctx, const struct config_key *k, char *buf, size_t len)
{
	if (strcmp(k->name, "cpuset") == 0)
		cpuset_mechanism(ctx, buf, len);
	else
		cgroup_key_mechanism(ctx, k->name, buf, len);
}

/* What keeps the CPU deadline punctual: SCHED_FIFO as the kernel grants it
 * (tried), else the tree's own cpu cgroup, else nothing but nice -10. */
static void check_deadline(const struct cgroup *cg, FILE *out)
{
	char why[400], b[600];
	const char *dir = NULL;
	long rt_us;

	if (cg->rt) {
		fprintf(out, "%-14s %s\n", "cpu deadline",
			"proctord SCHED_FIFO 1 (not inherited): wakes ahead of any number of "
			"threads; over 50 ms of its own CPU in 100 ms, nice -10 until the window "
			"ends");
		return;
	}
	rt_us = cgroup_rt_runtime(cg, &dir);
	if (!prio_rt_permitted())
		snprintf(why, sizeof why, "no CAP_SYS_NICE, RLIMIT_RTPRIO 0");
	else if (rt_us == 0)
		snprintf(why, sizeof why,
			 "SCHED_FIFO refused: real-time group scheduling gives proctord's cgroup "
			 "no runtime, cpu.rt_runtime_us 0 in %s",
			 dir);
	else
		snprintf(why, sizeof why, "SCHED_FIFO refused: %s", strerror(cg->rt_err));
	if (cgroup_role_source(cg, CG_ROLE_CPUWEIGHT, b, sizeof b))
		fprintf(out,
			"%-14s proctord at nice -10 (%s); the tree in a cpu cgroup of its own, one "
			"weight against proctord's however many threads it runs: %s\n",
			"cpu deadline", why, b);
	else
		fprintf(out,
			"%-14s proctord at nice -10 only (%s): may wake late when the tree has many "
			"more runnable threads than CPUs\n",
			"cpu deadline", why);
}

/* Whether /proc is proctord's own (procwalk_is_own), with why not. */
static int check_proc_own(char *why, size_t len)
{
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int own = procwalk_is_own(fd, why, len);

	if (fd >= 0)
		close(fd);
	return own;
}

/* /proc and what rests on it. Returns 1 if --cpu-time cannot be honoured:
 * no cgroup counts CPU and /proc is not proctord's. */
static size_t check_proc(const struct cgroup *cg, const struct limits *l, FILE *out)
{
	char why[200];

	if (check_proc_own(why, sizeof why)) {
		fprintf(out, "%-14s proctord's own (its \"self\" is proctord)\n", "/proc");
		return 0;
	}
	fprintf(out,
		"%-14s NOT proctord's: %s; no figure, kill or end is taken from it: the program's "
		"process group is killed, and the tree has ended when proctord has no child left\n",
		"/proc", why);
	/* A wait's figures are read from there while the program runs. */
	fprintf(out,
		"\nwarning: waits answer %s while the program runs: /proc is not proctord's (mount "
		"proc afresh in proctord's PID namespace)\n",
		cgroup_has(cg, CG_ROLE_CPU) ? "0 memory" : "0 CPU time and 0 memory");
	if (l->cpu_time_us == UNITS_UNLIMITED || cgroup_has(cg, CG_ROLE_CPU))
		return 0;
	fprintf(out, "\ncpu_time cannot be honoured: no cgroup counts the tree's CPU, and /proc is "
		     "not proctord's; only RLIMIT_CPU holds it, per process\n");
	return 1;
}

/* Whether role r is served by a cgroup v2 hierarchy. */
static int check_v2(const struct cgroup *cg, enum cg_role r)
{
	return cg->role[r] >= 0 && cg->h[cg->role[r]].version == 2;
}

/* Where each figure comes from on this machine. */
static void check_sources(const struct cgroup *cg, FILE *out)
{
	char b[600], why[200];
	int proc = check_proc_own(why, sizeof why);

	fprintf(out, "\n%-14s %s\n", "figure", "source");
	fprintf(out, "%-14s %s\n", "cpu",
		cgroup_role_source(cg, CG_ROLE_CPU, b, sizeof b) ? b
		: proc ? "CPU clocks of the live processes (/proc) + rusage of the reaped ones"
		       : "NONE while the program runs (/proc is not proctord's): 0 until the end, "
			 "then the rusage of the reaped processes");
	fprintf(out, "%-14s %s\n", "memory",
		proc ? "sum of /proc/PID/statm resident over the live tree"
		     : "NONE (/proc is not proctord's): 0");
	fprintf(out, "%-14s %s\n", "peak_memory",
		cgroup_role_source(cg, CG_ROLE_MEMORY, b, sizeof b)
			? b
			: "largest of the /proc samples and of the reaped processes' ru_maxrss");
	fprintf(out, "%-14s %s\n", "oom_kills",
		!cgroup_has(cg, CG_ROLE_MEMORY)	 ? "not available without a memory cgroup"
		: check_v2(cg, CG_ROLE_MEMORY) ? "cgroup2 memory.events oom_kill"
					       : "cgroup1 memory.oom_control oom_kill");
	fprintf(out, "%-14s %s\n", "pids_peak",
		!cgroup_has(cg, CG_ROLE_PIDS) ? "not available without a pids cgroup"
		: check_v2(cg, CG_ROLE_PIDS)  ? "cgroup2 pids.peak, pids.events max"
					      : "cgroup1 pids.peak, pids.events max");
	if (cgroup_role_source(cg, CG_ROLE_KILL, b, sizeof b) ||
	    cgroup_role_source(cg, CG_ROLE_FREEZE, b, sizeof b))
		fprintf(out, "%-14s %s%s\n", "tree kill", b,
			cgroup_has(cg, CG_ROLE_KILL) ? "" : ", kill every listed process, thaw");
	else if (cgroup_active(cg))
		fprintf(out, "%-14s %s\n", "tree kill", "SIGKILL to every process in cgroup.procs");
	else
		fprintf(out, "%-14s %s\n", "tree kill",
			proc ? "SIGKILL to every descendant found through /proc (proctord is a "
			       "subreaper)"
			     : "SIGKILL to the program's process group (/proc is not proctord's)");
	check_deadline(cg, out);
	fprintf(out, "%-14s %s\n", "end of tree",
		cgroup_role_source(cg, CG_ROLE_EVENTS, b, sizeof b)
			? b
			: (cgroup_active(cg) ? "cgroup.procs empty"
			   : proc	      ? "no descendant left in /proc"
					      : "proctord, their subreaper, has no child left"));
}

/* Whether the program can run in a PID namespace of its own. Returns 1 if
 * not and --strict makes that an error. */
static size_t check_pidns(const struct config *c, FILE *out)
{
	enum spawn_pidns ns = spawn_pidns_wanted();
	int err = spawn_pidns_probe(ns);

	if (!err) {
		fprintf(out, "%-14s %s: the program is PID 2, its parent PID 1 is proctord's init, "
			     "which dies with proctord and takes the namespace with it\n",
			"pid namespace",
			ns == SPAWN_PIDNS ? "new" : "new, in a user namespace mapping only uid "
						    "and gid to themselves");
		return 0;
	}
	fprintf(out, "%-14s NOT available (%s): the program is proctord's child and may "
		     "outlive a SIGKILLed proctord\n",
		"pid namespace", strerror(err));
	if (!c->strict)
		return 0;
	fprintf(out, "\ncannot be honoured: a PID namespace (--strict)\n");
	return 1;
}

/* A box's processes without --pids and without a pids cgroup: its default. */
static void check_box_pids(const struct config *c, uint64_t nproc, FILE *out)
{
	if (!c->box || c->limits.pids != UNITS_UNLIMITED)
		return;
	if (nproc)
		fprintf(out,
			"%-14s at most %d processes and threads without --pids (RLIMIT_NPROC "
			"%" PRIu64 " in the box's user namespace, its init included: no pids cgroup "
			"here); a fork bomb fails to fork past it\n",
			"box pids", CG_BOX_PIDS, nproc);
	else
		fprintf(out, "%-14s unlimited without --pids: give --pids to stop a fork bomb\n",
			"box pids");
}

int check_run(struct options *o)
{
	/* Static, as the sandbox's are: the cgroup state is large. */
	static struct cgroup cg;
	size_t n = 0;
	uint64_t nproc;

	/* Tried on probe cgroups, removed again before it returns. */
	cgroup_probe(&cg, (enum cg_mode)o->cfg.cgroup_mode, &o->cfg.limits);
	cgroup_program_writes(&cg, geteuid() != 0 && !o->cfg.box);
	nproc = cgroup_pids_by_rlimit(&cg, &o->cfg.limits, o->cfg.box != NULL,
				      spawn_pidns_wanted() == SPAWN_PIDNS_USER &&
					  spawn_pidns_probe(SPAWN_PIDNS_USER) == 0);

	printf("proctord %s: configuration check", PROCTOR_VERSION);
	if (o->config_file)
		printf(" of %s%s%s%s", o->config_file, o->profile ? " [" : "",
		       o->profile ? o->profile : "", o->profile ? "]" : "");
	printf("\n\n");
	config_print_check(&o->cfg, stdout, check_mechanism, &cg);
	check_sources(&cg, stdout);
	cgroup_print_hierarchies(&cg, stdout);
	if (cgroup_has_plan(&cg)) {
		printf("\nset-up (as a start does it; each line says what --check tried and "
		       "undid)\n");
		cgroup_print_plan(&cg, stdout, "");
	}
	if (cg.tried[0]) {
		printf("\ncannot be honoured: %s\n", cg.tried);
		n++;
	}
	ctrcheck_print(&o->cfg, stdout);
	n += check_pidns(&o->cfg, stdout);
	n += check_proc(&cg, &o->cfg.limits, stdout);
	n += cgroup_unhonoured(&cg, &o->cfg.limits, NULL, NULL);
	if (n) {
		printf("\n");
		cgroup_unhonoured(&cg, &o->cfg.limits, stdout, "");
	}
	n += check_isolation(&o->cfg, &cg, stdout, "\ncannot be honoured: ");
	n += boxcheck(&o->cfg, stdout, "\ncannot be honoured: ");
	check_box_pids(&o->cfg, nproc, stdout);
	hostcheck_print("", &o->cfg.limits.cpuset, stdout);
	cgroup_destroy(&cg);
	config_free(&o->cfg);
	return n ? EXIT_SETUP : 0;
}
