// SPDX-License-Identifier: ISC
// From the configuration to a running sandbox: each step of proctord's
// set-up between the options and the event loop, its clean-up, the at-exit
// removals, and the --report file.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "box.h"
#include "boxstrip.h"
#include "config.h"
#include "cpuset.h"
#include "log.h"
#include "output.h"
#include "procwalk.h"
#include "report.h"
#include "reportfile.h"
#include "startup.h"
#include "supervise.h"
#include "title.h"
#include "units.h"
#include "util.h"
#include "wiring.h"

/* The sandbox's cgroups, removed at any exit of this process (a set-up
 * failure ends in exit()); NULL once handed over or gone. */
static struct cgroup *exit_cgroup;

static void remove_cgroup_at_exit(void)
{
	if (exit_cgroup)
		cgroup_destroy(exit_cgroup);
	exit_cgroup = NULL;
}

/* The --report file, opened before the program starts: its temporary file
 * is removed at any exit of this process; NULL once handed over. */
/* --report FILE, then --report-fd N; n_reports of them are open. */
static struct report_file reports[2];
static size_t n_reports;
static int exit_report;

static void remove_report_at_exit(void)
{
	if (exit_report)
		for (size_t i = 0; i < n_reports; i++)
			report_file_close(&reports[i]);
	exit_report = 0;
}

/* path is /dev/fd/N (or /proc/self/fd/N) and N an open descriptor that
 * proctord inherited: a copy of it, kept out of 0-2, or -1. Opening the path
 * instead would reopen a file at offset 0, and the child closes N before it
 * opens anything. */
static int inherited_fd(const char *path)
{
	int n, fd;

	if (!path || (n = fd_path_number(path)) < 0 || fcntl(n, F_GETFD) < 0)
		return -1; /* not open: the child's open() says why */
	fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		log_fatal(EXIT_SETUP, "%s", path);
	return fd;
}

/* Whether path is /dev/fd/N (or /proc/self/fd/N) for the file that is also
 * standard output. */
static int fd_path_is_stdout(const char *path)
{
	int n = fd_path_number(path);
	struct stat a, b;

	if (n < 0 || fstat(n, &a) < 0 || fstat(1, &b) < 0)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* What the cgroups add to the report: limits not enforced, pids figures;
 * and --cpu-time where nothing could count the tree's CPU (cpu_blind). */
static void report_cgroup(struct cgroup *cg, const struct limits *l, int cpu_blind,
			  struct report_final *rf)
{
	if (cpu_blind)
		rf->not_enforced[rf->n_not_enforced++] = "cpu_time";
	static const char *const keys[] = {"memory_max", "memory_high", "pids", "cpus"};
	const uint64_t vals[] = {l->memory_max, l->memory_high, l->pids, l->cpus_milli};

	for (size_t i = 0; i < 4; i++) {
		if (vals[i] == UNITS_UNLIMITED)
			continue;
		if (!cgroup_enforced(cg, keys[i]))
			rf->not_enforced[rf->n_not_enforced++] = keys[i];
	}
	if (cgroup_pids(cg, &rf->pids_peak, &rf->pids_max_hits) == 0)
		rf->have_pids = 1;
}

/* pids.max without the room for an init (spawn's pidns_fallback; ctx is
 * the sandbox). */
static int pids_without_init(void *ctx)
{
	struct sandbox *sb = ctx;
	uint64_t pids = sb->o->cfg.limits.pids;
	char err[512];

	if (pids < UNITS_UNLIMITED - 1 && cgroup_set_pids_max(&sb->cg, pids, err, sizeof err) < 0) {
		log_warnx("%s", err);
		errno = EIO;
		return -1;
	}
	return 0;
}

/* Write the --report file: called by the supervisor before it composes the
 * final answer (so that a client reading it finds the report), or after the
 * loop when a signal ended it. */
static void write_report(void *ctx)
{
	struct finish_ctx *f = ctx;
	char err[3 * PATH_MAX];
	struct report_final rf = {
		.outcome = &f->sv->outcome,
		.limits = &f->cfg->limits,
		.cpu_us = f->sv->final_cpu_us,
		.user_us = f->sv->measure.reaped_user_ns / 1000u,
		.sys_us = f->sv->measure.reaped_sys_ns / 1000u,
		.wall_us = f->sv->end_us - f->sv->start_us,
		.peak_memory = f->sv->measure.peak_bytes,
		.output_bytes = f->out ? output_total(f->out) : UNITS_UNLIMITED,
		.interrupted = f->sv->interrupted,
		.user = f->cfg->user,
		.group = f->cfg->group,
		.uid = f->iso->set_uid ? (long)f->iso->uid : -1,
		.gid = f->iso->set_gid ? (long)f->iso->gid : -1,
		.new_session = f->iso->new_session,
		.unshare_net = f->iso->unshare_net,
		.unshare_ipc = f->iso->unshare_ipc,
		.seccomp = !f->cfg->seccomp ? NULL : f->cfg->seccomp_errno ? "errno" : "kill",
	};
	char src_cpu[600], src_mem[600], src_kill[600];
	uint64_t cpu_usage, peak;
	char *text;

	report_cgroup(f->cg, &f->cfg->limits, f->cpu_blind, &rf);
	/* The program's processes, not the init's. */
	if (f->init_counted && rf.have_pids && rf.pids_peak > 0)
		rf.pids_peak--;
	if (cgroup_cpu(f->cg, &cpu_usage, &rf.user_us, &rf.sys_us) == 0)
		rf.src_cpu = cgroup_role_source(f->cg, CG_ROLE_CPU, src_cpu, sizeof src_cpu);
	if (cgroup_peak(f->cg, &peak) == 0) {
		rf.peak_memory = peak;
		rf.src_peak = cgroup_role_source(f->cg, CG_ROLE_MEMORY, src_mem, sizeof src_mem);
	}
	if (cgroup_has(f->cg, CG_ROLE_MEMORY)) {
		rf.have_oom = 1;
		rf.oom_kills = f->sv->oom_kills;
		cgroup_oom_kills(f->cg, &rf.oom_kills);
		rf.src_oom = rf.src_peak ? rf.src_peak : "memory cgroup";
	}
	rf.src_kill = cgroup_role_source(f->cg, CG_ROLE_KILL, src_kill, sizeof src_kill);
	if (!rf.src_kill)
		rf.src_kill = cgroup_role_source(f->cg, CG_ROLE_FREEZE, src_kill, sizeof src_kill);

	text = report_json_text(&rf);
	/* Each on its own: a FILE that the program spoiled (a directory put
	 * in its place in DIR) does not keep the report from --report-fd,
	 * whence proctor run takes its verdict. */
	for (size_t i = 0; i < n_reports; i++) {
		if (!text)
			snprintf(err, sizeof err, "cannot build the JSON report");
		if (!text || report_file_write(&reports[i], text, err, sizeof err) < 0) {
			/* After daemonizing, stderr is /dev/null: the exit code
			 * is what says the report is missing. */
			log_warnx("report: %s", err);
			f->failed = 1;
		}
		report_file_close(&reports[i]);
	}
	free(text);
	n_reports = 0;
	exit_report = 0;
}

/* Opened now: a report that cannot be written is found before the program
 * has run. */
static void wiring_report_open(const struct options *o)
{
	char err[3 * PATH_MAX];

	/* The daemon would hold the caller's standard output, and
	 * $(proctord --daemonize ...) would wait for it. */
	if (o->daemonize && (strcmp(o->cfg.report, "-") == 0 || fd_path_is_stdout(o->cfg.report)))
		log_fatalx(EXIT_USAGE,
			   "--report %s: with --daemonize, standard output "
			   "carries the directory only; give a file",
			   o->cfg.report);
	if (report_file_open(&reports[n_reports], o->cfg.report, err, sizeof err) < 0)
		log_fatalx(EXIT_USAGE, "--report %s", err);
	n_reports++;
}

/* --report-fd N: an inherited descriptor, written in place. */
static void wiring_report_fd_open(const struct options *o)
{
	char err[3 * PATH_MAX], *path;
	char *end;
	long n;

	errno = 0;
	n = strtol(o->report_fd, &end, 10);
	if (errno || end == o->report_fd || *end || n < 3 || n > INT_MAX)
		log_fatalx(EXIT_USAGE, "--report-fd %s: not a descriptor number from 3 up",
			   o->report_fd);
	xasprintf(&path, "/dev/fd/%ld", n);
	if (report_file_open(&reports[n_reports], path, err, sizeof err) < 0)
		log_fatalx(EXIT_USAGE, "--report-fd %s", err);
	free(path);
	/* Not the child's: only proctord's copy stays open. */
	close((int)n);
	n_reports++;
}

static int wiring_box_reach(void *ctx, int dirfd)
{
	return box_reaches_fd(ctx, dirfd);
}

void wiring_prepare(struct sandbox *sb, struct options *o)
{
	/* Room for a message that quotes paths up to PATH_MAX long. */
	char err[3 * PATH_MAX];

	memset(sb, 0, sizeof *sb);
	sb->o = o;
	sb->ready_fd = -1;
	sb->end_fd = -1;
	sb->filter_sv[0] = sb->filter_sv[1] = -1;
	if (o->cfg.seccomp_errno)
		o->cfg.seccomp = 1;
	/* A refusal (--no-root, an unknown user) comes before any cgroup is
	 * touched. */
	if (isolate_prepare(&sb->iso, &o->cfg, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	if (box_prepare(&sb->box, &o->cfg, sb->iso.set_uid ? sb->iso.uid : geteuid(),
			sb->iso.set_gid ? sb->iso.gid : getegid(), err, sizeof err) < 0)
		log_fatalx(EXIT_USAGE, "%s", err);
	sb->iso.unshare_net |= sb->box.active && !sb->box.share_net;
	sb->iso.unshare_ipc |= sb->box.active;
	/* The program's links in DIR are root's or ours: --report's and
	 * --dir's walks follow none there. */
	if (sb->box.active)
		sbdir_distrust_links(wiring_box_reach, &sb->box);
	/* Before anything else opens a descriptor (the cgroups do): /dev/fd/N
	 * is the caller's. */
	sb->in_fd = inherited_fd(o->cfg.stdin_path);
	sb->out_fd = inherited_fd(o->cfg.stdout_path);
	sb->err_fd = inherited_fd(o->cfg.stderr_path);
	if (o->end_fd && (sb->end_fd = supervise_end_fd_take(o->end_fd, err, sizeof err)) < 0)
		log_fatalx(EXIT_USAGE, "%s", err);
	/* After those: /dev/fd/N is the caller's. */
	if (o->cfg.report)
		wiring_report_open(o);
	if (o->report_fd)
		wiring_report_fd_open(o);
	if (n_reports) {
		exit_report = 1;
		atexit(remove_report_at_exit);
	}
}

void wiring_prepare_free(struct sandbox *sb)
{
	/* Freed after the start already; here for an end before it. */
	box_free(&sb->box);
	boxstrip_close(&sb->strip);
	sysfilter_free(&sb->filter);
}

/* The supervisor's ended hook: the box is empty, its set-id files go. */
static void wiring_box_ended(void *ctx)
{
	struct sandbox *sb = ctx;

	boxstrip_run(&sb->strip);
}

/* Without a cgroup that counts CPU, the tree's CPU time comes from /proc:
 * one that is not proctord's (a container's, not mounted afresh) names
 * other processes, so --cpu-time is left to RLIMIT_CPU, whole seconds per
 * process. Whether so, with why. */
static int wiring_cpu_blind(const struct sandbox *sb, char *why, size_t len)
{
	int fd, own;

	if (sb->o->cfg.limits.cpu_time_us == UNITS_UNLIMITED || cgroup_has(&sb->cg, CG_ROLE_CPU))
		return 0;
	fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	own = procwalk_is_own(fd, why, len);
	if (fd >= 0)
		close(fd);
	return !own;
}

int wiring_cgroups(struct sandbox *sb)
{
	const struct config *c = &sb->o->cfg;
	char err[3 * PATH_MAX];

	if (cgroup_setup(&sb->cg, (enum cg_mode)c->cgroup_mode, &c->limits, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	exit_cgroup = &sb->cg;
	atexit(remove_cgroup_at_exit);
	/* --pids counts the program's processes: the PID namespace's init is
	 * proctord's, so pids.max has room for it (and loses it again if the
	 * program has to start without one: pids_without_init). */
	if (c->limits.pids < UNITS_UNLIMITED - 1 &&
	    cgroup_set_pids_max(&sb->cg, c->limits.pids + 1, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	/* Not root, proctord owns its cgroups, and so does the program, of
	 * its uid: only a box keeps their files out of its reach. */
	cgroup_program_writes(&sb->cg, geteuid() != 0 && !sb->box.active);
	/* No pids cgroup: a non-root proctord's program runs in a user
	 * namespace of its own, where RLIMIT_NPROC counts only its tree. */
	sb->nproc = cgroup_pids_by_rlimit(&sb->cg, &c->limits, sb->box.active,
					  spawn_pidns_wanted() == SPAWN_PIDNS_USER ||
						  isolate_box_root(&sb->iso, sb->box.active, &(uid_t){0},
								   &(gid_t){0}));
	/* A limit that is asked for and not enforced must never pass silently. */
	sb->cpu_blind = wiring_cpu_blind(sb, err, sizeof err);
	if (sb->cpu_blind)
		fprintf(stderr,
			"proctord: %s: cpu_time cannot be honoured: no cgroup counts the tree's CPU, "
			"and /proc is not proctord's: %s; only RLIMIT_CPU holds it, per process\n",
			c->strict ? "error" : "warning", err);
	if (cgroup_unhonoured(&sb->cg, &c->limits, NULL, NULL) > 0) {
		cgroup_unhonoured(&sb->cg, &c->limits, stderr,
				  c->strict ? "proctord: error: " : "proctord: warning: ");
		if (c->strict)
			return EXIT_SETUP;
	}
	return c->strict && sb->cpu_blind ? EXIT_SETUP : 0;
}

void wiring_cgroups_remove(struct sandbox *sb)
{
	cgroup_destroy(&sb->cg);
	exit_cgroup = NULL;
}

void wiring_disown(void)
{
	exit_cgroup = NULL;
	exit_report = 0;
}

void wiring_serve(struct sandbox *sb)
{
	const struct options *o = sb->o;
	char err[3 * PATH_MAX];

	sb->loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_SIGNALFD | EVFLAG_NOENV);
	if (!sb->loop)
		log_fatalx(EXIT_SETUP, "cannot create the event loop");
	/* A CPU-time deadline is only as punctual as proctord's wake-up. The
	 * cgroups were set up on the kernel's word that SCHED_FIFO would be
	 * granted (cgroup_setup): a refusal now must not pass silently. */
	if (!prio_raise(&sb->prio, sb->loop, sb->nice_value) && sb->cg.rt)
		log_warnx("SCHED_FIFO was refused after all: the CPU deadline may fire late "
			  "under many runnable threads");
	if (sbdir_open(&sb->dir, o->cfg.dir, o->cfg.dir_mode, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	if (box_check_apart(&sb->box, &sb->dir, err, sizeof err) < 0) {
		sbdir_close(&sb->dir);
		log_fatalx(EXIT_SETUP, "%s", err);
	}
	if (fifo_open(&sb->fifo, sb->loop, sb->dir.fd, sb->dir.path, &supervise_fifo_ops, &sb->sv,
		      err, sizeof err) < 0) {
		sbdir_close(&sb->dir);
		log_fatalx(EXIT_SETUP, "%s: %s", o->cfg.dir ? o->cfg.dir : "sandbox directory",
			   err);
	}
	if (!o->daemonize && !o->cfg.dir) {
		printf("%s\n", sb->dir.path);
		fflush(stdout);
	}
}

void wiring_serve_close(struct sandbox *sb)
{
	fifo_close(&sb->fifo);
	sbdir_close(&sb->dir);
	/* Last: its close can wait out a grace period, and the directory's
	 * removal has told clients proctord is done. */
	fifo_close_inotify(&sb->fifo);
	ev_loop_destroy(sb->loop);
}

/* What spawn needs to know, from the options and the set-up so far. */
static void wiring_spawn_config(struct sandbox *sb)
{
	const struct options *o = sb->o;
	struct spawn_config *sc = &sb->sc;

	spawn_config_init(sc);
	sc->argv = o->argv;
	sc->envp = sb->env;
	sc->stdin_path = o->cfg.stdin_path;
	sc->stdout_path = o->cfg.stdout_path;
	sc->stderr_path = o->cfg.stderr_path;
	sc->stdin_fd = sb->in_fd;
	sc->stdout_fd = sb->out_fd;
	sc->stderr_fd = sb->err_fd;
	sc->null_stdio = o->daemonize;
	sc->stdio_reached[0] = o->cfg.stdin_path && box_reaches(&sb->box, o->cfg.stdin_path);
	sc->stdio_reached[1] = o->cfg.stdout_path && box_reaches(&sb->box, o->cfg.stdout_path);
	sc->stdio_reached[2] = o->cfg.stderr_path && box_reaches(&sb->box, o->cfg.stderr_path);
	sc->chdir = o->cfg.chdir ? o->cfg.chdir : sb->box.active ? "/box" : NULL;
	sc->limits = &o->cfg.limits;
	sc->nice = sb->nice_value;
	sc->nproc = sb->nproc;
	sc->cgroup_fd = cgroup_clone_fd(&sb->cg);
	sc->cgroup_procs_fd = cgroup_v2_procs_fd(&sb->cg, &sc->cgroup_path);
	sc->n_join = cgroup_join_fds(&sb->cg, sb->join_fds, sb->join_paths, CG_MAX_HIER, 1);
	sc->join_fds = sb->join_fds;
	sc->join_paths = sb->join_paths;
	if (cpuset_by_affinity(&sb->cg, &o->cfg.limits.cpuset)) {
		cpuset_mask(&o->cfg.limits.cpuset, &sb->affinity);
		sc->affinity = &sb->affinity;
	}
	sc->pidns = spawn_pidns_wanted();
	sb->child_iso = sb->iso;
	if (isolate_box_root(&sb->iso, sb->box.active, &sc->map_uid, &sc->map_gid)) {
		sc->pidns = SPAWN_PIDNS_USER_ROOT;
		sb->child_iso.set_uid = sb->child_iso.set_gid = 0;
	}
	sc->isolate = &sb->child_iso;
	sc->tty_foreground = startup_tty_handover(o, &sb->iso);
}

/* --output-limit: stdout and stderr go through proctord, to where they would
 * have gone: the file or descriptor given, else proctord's own (daemonized:
 * /dev/null). */
static void wiring_output(struct sandbox *sb)
{
	const struct options *o = sb->o;
	struct spawn_config *sc = &sb->sc;
	struct output_dest d[2];
	int own[2] = {1, 2}, given[2] = {sb->out_fd, sb->err_fd};
	const char *paths[2] = {o->cfg.stdout_path, o->cfg.stderr_path};

	for (int i = 0; i < 2; i++) {
		d[i].fd = given[i] >= 0 ? given[i] : own[i];
		/* In a box, as its user (spawn.c: spawn_child_open_stdio),
		 * the host's for a mapped uid 0, through no link at all. */
		d[i].uid = sc->pidns == SPAWN_PIDNS_USER_ROOT	   ? sc->map_uid
			   : sb->box.active && sb->iso.set_uid ? sb->iso.uid
							       : (uid_t)-1;
		d[i].gid = sc->pidns == SPAWN_PIDNS_USER_ROOT	   ? sc->map_gid
			   : sb->box.active && sb->iso.set_gid ? sb->iso.gid
							       : (gid_t)-1;
		d[i].no_links = sb->box.active;
		d[i].path = given[i] >= 0  ? NULL
			    : paths[i]	   ? paths[i]
			    : o->daemonize ? "/dev/null"
					   : NULL;
	}
	if (output_open(&sb->output, sb->loop, o->cfg.limits.output_limit, &d[0], &d[1]) < 0) {
		fifo_close(&sb->fifo);
		sbdir_close(&sb->dir);
		log_fatal(EXIT_SETUP, "output pipes");
	}
	sb->out = &sb->output;
	sc->stdout_fd = output_child_fd(sb->out, 0);
	sc->stderr_fd = output_child_fd(sb->out, 1);
	sc->stdout_err = output_open_error(sb->out, 0, &sc->stdout_path);
	sc->stderr_err = output_open_error(sb->out, 1, &sc->stderr_path);
}

/* --seccomp: the filter, and the socket over which the child hands over the
 * filter's listener. */
static void wiring_filter(struct sandbox *sb)
{
	const struct options *o = sb->o;
	char err[256];

	/* Built once the cgroups are known: where no cpuset cgroup holds
	 * --cpuset, the filter denies sched_setaffinity too. */
	if (sysfilter_build(&sb->filter, o->cfg.seccomp_errno,
			    cpuset_by_affinity(&sb->cg, &o->cfg.limits.cpuset), err, sizeof err) < 0) {
		fifo_close(&sb->fifo);
		sbdir_close(&sb->dir);
		log_fatalx(EXIT_SETUP, "%s", err);
	}
	sb->sc.filter = &sb->filter;
	if (sb->filter.notify &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sb->filter_sv) < 0) {
		fifo_close(&sb->fifo);
		sbdir_close(&sb->dir);
		log_fatal(EXIT_SETUP, "socketpair");
	}
	sb->sc.filter_sock = sb->filter_sv[1];
}

/* A box without --seccomp still denies the key rings and the terminal
 * ioctls (sysfilter_build_box): failing with EPERM, no listener. */
static void wiring_box_filter(struct sandbox *sb)
{
	char err[256];

	/* Optional, as its load is: where libseccomp cannot build it (no
	 * seccomp(2): valgrind, an old kernel) the box holds without it. */
	if (sysfilter_build_box(&sb->filter, err, sizeof err) < 0) {
		log_warnx("warning: --box: %s: the box's filter is not loaded (%s are not denied)",
			  err, sysfilter_box_summary);
		return;
	}
	sb->sc.filter = &sb->filter;
}

/* Start the program; the caller's descriptors and the filter's socket are
 * then the program's alone. */
static void wiring_spawn(struct sandbox *sb)
{
	struct spawn_config *sc = &sb->sc;
	int fds[3] = {sb->in_fd, sb->out_fd, sb->err_fd};

	sc->pidns_required = sb->o->cfg.strict || sb->box.active;
	sc->box = &sb->box;
	sc->pidns_fallback = pids_without_init;
	sc->pidns_fallback_ctx = sb;
	sb->start_us = now_us();
	if (spawn_start(sc, &sb->child) < 0) {
		int saved = errno;

		fifo_close(&sb->fifo);
		sbdir_close(&sb->dir);
		errno = saved;
		if (sb->child.pidns_err && sb->box.active)
			log_fatalx(EXIT_SETUP, "error: cannot make the box's namespaces (%s)",
				   strerror(sb->child.pidns_err));
		if (sb->child.pidns_err)
			log_fatalx(EXIT_SETUP,
				   "error: cannot make a PID namespace for the program (%s): it "
				   "could outlive proctord",
				   strerror(sb->child.pidns_err));
		log_fatal(EXIT_SETUP, "cannot start %s", sb->o->argv[0]);
	}
	/* The init has its copy; what the box can write is kept for the
	 * end. */
	if (sb->box.active && boxstrip_keep(&sb->strip, &sb->box) < 0)
		log_warn("warning: --box: cannot keep the box's directory for the end");
	box_free(&sb->box);
	sbdir_distrust_links(NULL, NULL);
	if (sb->child.pidns_err)
		log_warnx("warning: cannot make a PID namespace for the program (%s): it may "
			  "outlive proctord if it clears its parent-death signal",
			  strerror(sb->child.pidns_err));
	if (sb->child.root_map_err)
		log_warnx("warning: --box: no user namespace for uid 0 (%s): the program runs as "
			  "the host's uid 0, without capabilities; give --user",
			  strerror(sb->child.root_map_err));
	/* Without its user namespace, RLIMIT_NPROC was not set (it would have
	 * counted the uid's every process on the host). */
	if (sb->child.pidns != SPAWN_PIDNS_USER && sb->child.pidns != SPAWN_PIDNS_USER_ROOT &&
	    sb->cg.pids_nproc) {
		sb->cg.pids_nproc = 0;
		log_warnx("warning: pids cannot be honoured: no pids cgroup, and no user "
			  "namespace for RLIMIT_NPROC (%s)",
			  strerror(sb->child.pidns_err));
	}
	title_running(sb->dir.path, sb->o->argv[0]);
	/* The program has its copies. */
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (sb->filter_sv[1] >= 0)
		close(sb->filter_sv[1]);
}

void wiring_start(struct sandbox *sb)
{
	wiring_spawn_config(sb);
	if (sb->o->cfg.limits.output_limit != UNITS_UNLIMITED)
		wiring_output(sb);
	if (sb->o->cfg.seccomp)
		wiring_filter(sb);
	else if (sb->box.active)
		wiring_box_filter(sb);
	wiring_spawn(sb);
}

void wiring_output_close(struct sandbox *sb)
{
	if (sb->out)
		output_close(sb->out);
}

int wiring_supervise(struct sandbox *sb)
{
	struct options *o = sb->o;

	if (supervise_init(&sb->sv, sb->loop, &o->cfg.limits, &sb->child, &sb->fifo, &sb->cg,
			   sb->start_us, sb->out, sb->filter_sv[0]) < 0) {
		/* Without its timers or listener the limits would not hold: end
		 * it now. */
		log_warn("cannot set up the supervisor (timers, the seccomp listener)");
		kill(sb->child.pid, SIGKILL);
		waitpid(sb->child.pid, NULL, 0);
		if (sb->sc.tty_foreground)
			startup_tty_take_back();
		fifo_close(&sb->fifo);
		sbdir_close(&sb->dir);
		return EXIT_SETUP;
	}
	sb->sv.prio = &sb->prio;
	sb->sv.end_fd = sb->end_fd;
	if (sb->strip.n) {
		sb->sv.ended = wiring_box_ended;
		sb->sv.ended_ctx = sb;
	}
	sb->fin = (struct finish_ctx){
	    &o->cfg, &sb->sv, &sb->cg, sb->out, &sb->iso, 0, sb->child.pidns != SPAWN_PIDNS_NONE,
	    sb->cpu_blind};
	if (n_reports) {
		sb->sv.finished = write_report;
		sb->sv.finished_ctx = &sb->fin;
	}
	return 0;
}

int wiring_result(struct sandbox *sb)
{
	int code;

	if (sb->sc.tty_foreground)
		startup_tty_take_back();
	supervise_call_finished(&sb->sv);
	code = sb->sv.exit_code;
	if (sb->fin.failed && code == EXIT_PROTOCOL_DONE)
		code = EXIT_INTERNAL;
	return code;
}
