// SPDX-License-Identifier: ISC
// The sandbox: each step of proctord's start between the options and the
// event loop (a table of steps, each with what undoes it), the --report
// file, and the teardown that undoes the start in reverse order.
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box.h"
#include "boxstrip.h"
#include "cgroup.h"
#include "config.h"
#include "cpuset.h"
#include "log.h"
#include "output.h"
#include "procwalk.h"
#include "report.h"
#include "sandbox.h"
#include "startup.h"
#include "supervise.h"
#include "title.h"
#include "tree.h"
#include "units.h"
#include "util.h"

/* A step that fails says why (err) and returns the exit code; 0 is done. */
/* A step that cannot fail has nothing to say. */
#define STEP_CANNOT_FAIL(err, errlen) ((void)(errlen), (err)[0] = '\0')
typedef int (*sandbox_do)(struct sandbox *sb, char *err, size_t errlen);
typedef void (*sandbox_undo)(struct sandbox *sb);

/* path is /dev/fd/N (or /proc/self/fd/N) and N an open descriptor that
 * proctord inherited: a copy of it, kept out of 0-2, in *fd; or -1 there.
 * Opening the path instead would reopen a file at offset 0, and the child
 * closes N before it opens anything. Returns 0, or -1. */
static int inherited_fd(const char *path, int *fd)
{
	int n;

	*fd = -1;
	if (!path || (n = fd_path_number(path)) < 0 || fcntl(n, F_GETFD) < 0)
		return 0; /* not open: the child's open() says why */
	*fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	return *fd < 0 ? -1 : 0;
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

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
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

/* --- the report ------------------------------------------------------------ */

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

/* What the cgroups measured, where they did, with where it came from. */
static void report_cgroup_figures(struct sandbox *sb, struct report_final *rf, char *src_cpu,
				  char *src_mem, char *src_kill, size_t len)
{
	struct cgroup *cg = &sb->cg;
	uint64_t cpu_usage, peak;

	report_cgroup(cg, &sb->o->cfg.limits, sb->cpu_blind, rf);
	/* The program's processes, not the init's. */
	if (sb->init_counted && rf->have_pids && rf->pids_peak > 0)
		rf->pids_peak--;
	if (cgroup_cpu(cg, &cpu_usage, &rf->user_us, &rf->sys_us) == 0) {
		rf->src_cpu = cgroup_role_source(cg, CG_ROLE_CPU, src_cpu, len);
		measure_program_split(&sb->sv.measure, &rf->user_us, &rf->sys_us, 1);
	}
	if (cgroup_peak(cg, &peak) == 0) {
		rf->peak_memory = peak;
		rf->src_peak = cgroup_role_source(cg, CG_ROLE_MEMORY, src_mem, len);
	}
	if (cgroup_has(cg, CG_ROLE_MEMORY)) {
		rf->have_oom = 1;
		rf->oom_kills = sb->sv.oom_kills;
		cgroup_oom_kills(cg, &rf->oom_kills);
		rf->src_oom = rf->src_peak ? rf->src_peak : "memory cgroup";
	}
	rf->src_kill = cgroup_role_source(cg, CG_ROLE_KILL, src_kill, len);
	if (!rf->src_kill)
		rf->src_kill = cgroup_role_source(cg, CG_ROLE_FREEZE, src_kill, len);
}

/* Write the --report file: the supervisor's report hook, called before it
 * composes the final answer (so that a client reading it finds the report),
 * or after the loop when a signal ended it. ctx is the sandbox. */
static void sandbox_write_report(void *ctx)
{
	struct sandbox *sb = ctx;
	const struct config *cfg = &sb->o->cfg;
	const struct supervisor *sv = &sb->sv;
	char err[3 * PATH_MAX];
	struct report_final rf = {
		.outcome = &sv->outcome,
		.limits = &cfg->limits,
		.cpu_us = sv->final_cpu_us,
		.user_us = sv->measure.reaped_user_ns / 1000u,
		.sys_us = sv->measure.reaped_sys_ns / 1000u,
		.wall_us = sv->end_us - sv->start_us,
		.peak_memory = sv->measure.peak_bytes,
		.max_rss = sv->measure.reaped_maxrss,
		.csw_voluntary = sv->measure.reaped_nvcsw,
		.csw_forced = sv->measure.reaped_nivcsw,
		.output_bytes = sb->out ? output_total(sb->out) : UNITS_UNLIMITED,
		.stdout_bytes = sb->out ? output_stream_bytes(sb->out, 0) : UNITS_UNLIMITED,
		.stderr_bytes = sb->out ? output_stream_bytes(sb->out, 1) : UNITS_UNLIMITED,
		.output_truncated = sb->out ? output_truncated(sb->out) != 0 : -1,
		.interrupted = sv->interrupted,
		.interrupt_signo = sv->interrupt_signo,
		.user = cfg->user,
		.group = cfg->group,
		.uid = sb->iso.set_uid ? (long)sb->iso.uid : -1,
		.gid = sb->iso.set_gid ? (long)sb->iso.gid : -1,
		.new_session = sb->iso.new_session,
		.unshare_net = sb->iso.unshare_net,
		.unshare_ipc = sb->iso.unshare_ipc,
		.seccomp = !cfg->seccomp ? NULL : cfg->seccomp_errno ? "errno" : "kill",
	};
	char src_cpu[600], src_mem[600], src_kill[600];
	char *text;

	report_cgroup_figures(sb, &rf, src_cpu, src_mem, src_kill, sizeof src_cpu);
	if (!rf.src_cpu)
		measure_program_split(&sv->measure, &rf.user_us, &rf.sys_us, 0);
	text = report_json_text(&rf);
	/* Each on its own: a FILE that the program spoiled (a directory put
	 * in its place in DIR) does not keep the report from --report-fd,
	 * whence proctor run takes its verdict. */
	for (size_t i = 0; i < sb->n_reports; i++) {
		if (!text)
			snprintf(err, sizeof err, "cannot build the JSON report");
		if (!text || report_file_write(&sb->reports[i], text, err, sizeof err) < 0) {
			/* After daemonizing, stderr is /dev/null: the exit code
			 * is what says the report is missing. */
			log_warnx("report: %s", err);
			sb->report_failed = 1;
		}
		report_file_close(&sb->reports[i]);
	}
	free(text);
	sb->n_reports = 0;
}

int sandbox_report(struct sandbox *sb)
{
	int code;

	if (sb->tty_group)
		startup_tty_leave(sb->tty_group);
	sb->tty_group = 0;
	if (sb->sc.tty_foreground)
		startup_tty_take_back(sb->sc.tty_foreground - 1);
	sb->sc.tty_foreground = 0;
	supervise_report_once(&sb->sv);
	code = sb->sv.exit_code;
	if (sb->report_failed && code == EXIT_PROTOCOL_DONE)
		code = EXIT_INTERNAL;
	return code;
}

/* --- the start, step by step, with what undoes each -------------------------- */

/* A refusal (--no-root, an unknown user) comes before any cgroup is
 * touched. */
static int step_identity(struct sandbox *sb, char *err, size_t errlen)
{
	if (sb->o->cfg.seccomp_errno)
		sb->o->cfg.seccomp = 1;
	return identity_prepare(&sb->iso, &sb->o->cfg, err, errlen) < 0 ? EXIT_SETUP : 0;
}

static int sandbox_box_reach(void *ctx, int dirfd)
{
	return box_reaches_fd(ctx, dirfd);
}

static int step_box(struct sandbox *sb, char *err, size_t errlen)
{
	struct identity *iso = &sb->iso;

	if (box_prepare(&sb->box, &sb->o->cfg, iso->set_uid ? iso->uid : geteuid(),
			iso->set_gid ? iso->gid : getegid(), err, errlen) < 0)
		return EXIT_USAGE;
	if (box_check_program(&sb->box, sb->o->argv[0], err, errlen) < 0) {
		box_free(&sb->box);
		return EXIT_USAGE;
	}
	iso->unshare_net |= sb->box.active && !sb->box.share_net;
	iso->unshare_ipc |= sb->box.active;
	/* The program's links in DIR are root's or ours: --report's and
	 * --dir's walks follow none there. */
	if (sb->box.active)
		sbdir_distrust_links(sandbox_box_reach, &sb->box);
	return 0;
}

static void undo_box(struct sandbox *sb)
{
	sbdir_distrust_links(NULL, NULL);
	box_free(&sb->box);
}

static void undo_stdio(struct sandbox *sb)
{
	close_fd(&sb->in_fd);
	close_fd(&sb->out_fd);
	close_fd(&sb->err_fd);
	close_fd(&sb->end_fd);
	close_fd(&sb->eof_fd);
}

/* Before anything else opens a descriptor (the cgroups do): /dev/fd/N is
 * the caller's. */
static int step_stdio(struct sandbox *sb, char *err, size_t errlen)
{
	const struct config *c = &sb->o->cfg;
	const char *paths[3] = {c->stdin_path, c->stdout_path, c->stderr_path};
	int *fds[3] = {&sb->in_fd, &sb->out_fd, &sb->err_fd};

	for (int i = 0; i < 3; i++)
		if (inherited_fd(paths[i], fds[i]) < 0) {
			snprintf(err, errlen, "%s: %s", paths[i], strerror(errno));
			undo_stdio(sb);
			return EXIT_SETUP;
		}
	if (sb->o->end_fd && (sb->end_fd = supervise_end_fd_take(sb->o->end_fd, err, errlen)) < 0) {
		undo_stdio(sb);
		return EXIT_USAGE;
	}
	if (sb->o->end_on_eof &&
	    (sb->eof_fd = supervise_eof_fd_take(sb->o->end_on_eof, err, errlen)) < 0) {
		undo_stdio(sb);
		return EXIT_USAGE;
	}
	return 0;
}

/* From the first thing left behind (the report's temporary file) to the
 * end of the teardown, SIGTERM and the others must not kill proctord: held
 * until the loop's signalfd takes them over, pending ones included;
 * ignored once the loop is over (startup_signals_ignore). */
static int step_signals(struct sandbox *sb, char *err, size_t errlen)
{
	(void)sb;
	STEP_CANNOT_FAIL(err, errlen);
	startup_signals_block(SIG_BLOCK);
	return 0;
}

/* --report FILE, opened now: a report that cannot be written is found
 * before the program has run. */
static int report_open_file(struct sandbox *sb, char *err, size_t errlen)
{
	const struct options *o = sb->o;
	char why[3 * PATH_MAX];

	/* The daemon would hold the caller's standard output, and
	 * $(proctord --daemonize ...) would wait for it. */
	if (o->daemonize && (strcmp(o->cfg.report, "-") == 0 || fd_path_is_stdout(o->cfg.report))) {
		snprintf(err, errlen,
			 "--report %s: with --daemonize, standard output carries the directory "
			 "only; give a file",
			 o->cfg.report);
		return EXIT_USAGE;
	}
	if (report_file_open(&sb->reports[sb->n_reports], o->cfg.report, why, sizeof why) < 0) {
		snprintf(err, errlen, "--report %s", why);
		return EXIT_USAGE;
	}
	sb->n_reports++;
	return 0;
}

/* --report-fd N: an inherited descriptor, written in place. */
static int report_open_fd(struct sandbox *sb, char *err, size_t errlen)
{
	const char *arg = sb->o->report_fd;
	char why[3 * PATH_MAX], *path, *end;
	long n;
	int rc;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < 3 || n > INT_MAX) {
		snprintf(err, errlen, "--report-fd %s: not a descriptor number from 3 up", arg);
		return EXIT_USAGE;
	}
	xasprintf(&path, "/dev/fd/%ld", n);
	rc = report_file_open(&sb->reports[sb->n_reports], path, why, sizeof why);
	free(path);
	if (rc < 0) {
		snprintf(err, errlen, "--report-fd %s", why);
		return EXIT_USAGE;
	}
	/* Not the child's: only proctord's copy stays open. */
	close((int)n);
	sb->n_reports++;
	return 0;
}

/* A report not written (a start that failed, a fatal error): its
 * temporary file goes. */
static void undo_report(struct sandbox *sb)
{
	for (size_t i = 0; i < sb->n_reports; i++)
		report_file_close(&sb->reports[i]);
	sb->n_reports = 0;
}

/* After the caller's descriptors are copied: /dev/fd/N is the caller's. */
static int step_report(struct sandbox *sb, char *err, size_t errlen)
{
	int code = 0;

	if (sb->o->cfg.report)
		code = report_open_file(sb, err, errlen);
	if (!code && sb->o->report_fd)
		code = report_open_fd(sb, err, errlen);
	if (code)
		undo_report(sb);
	return code;
}

static int step_env(struct sandbox *sb, char *err, size_t errlen)
{
	STEP_CANNOT_FAIL(err, errlen);
	sb->env = options_env(&sb->o->cfg);
	return 0;
}

static void undo_env(struct sandbox *sb)
{
	options_env_free(sb->env);
	sb->env = NULL;
}

/* --daemonize's caller side: the daemon owns the sandbox, whose teardown
 * the caller's exit must not run. */
static void sandbox_disown(void)
{
	log_on_fatal(NULL, NULL);
}

/* --daemonize: only the daemon comes back, the sandbox's owner from now
 * on. */
static int step_daemonize(struct sandbox *sb, char *err, size_t errlen)
{
	STEP_CANNOT_FAIL(err, errlen);
	if (sb->o->daemonize)
		sb->ready_fd = startup_daemonize(sb->o, sb->env, sandbox_disown);
	sb->owner = getpid();
	return 0;
}

/* The readiness pipe, if the readiness was not sent: the caller then finds
 * no directory, and takes the daemon's exit code. */
static void undo_daemonize(struct sandbox *sb)
{
	close_fd(&sb->ready_fd);
}

static int step_subreaper(struct sandbox *sb, char *err, size_t errlen)
{
	STEP_CANNOT_FAIL(err, errlen);
	sb->nice_value = startup_supervisor();
	return 0;
}

static int step_loop(struct sandbox *sb, char *err, size_t errlen)
{
	sb->loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_SIGNALFD | EVFLAG_NOENV);
	if (!sb->loop) {
		snprintf(err, errlen, "cannot create the event loop");
		return EXIT_SETUP;
	}
	return 0;
}

/* With the loop goes the FIFOs' inotify instance: its close can take
 * milliseconds (the kernel waits out a grace period for its watch), and
 * comes after the directory's removal has told clients proctord is
 * done. */
static void undo_loop(struct sandbox *sb)
{
	fifo_close_inotify(&sb->fifo);
	ev_loop_destroy(sb->loop);
	sb->loop = NULL;
}

static int step_dir(struct sandbox *sb, char *err, size_t errlen)
{
	const struct options *o = sb->o;

	return sbdir_open(&sb->dir, o->cfg.dir, o->cfg.dir_mode, err, errlen) < 0 ? EXIT_SETUP : 0;
}

/* The lock file and, if proctord made it, the directory: a client that
 * finds DIR gone knows that the program and its cgroups are gone. */
static void undo_dir(struct sandbox *sb)
{
	sbdir_close(&sb->dir);
}

static int step_apart(struct sandbox *sb, char *err, size_t errlen)
{
	return box_check_apart(&sb->box, &sb->dir, err, errlen) < 0 ? EXIT_SETUP : 0;
}

static int step_fifos(struct sandbox *sb, char *err, size_t errlen)
{
	const struct options *o = sb->o;
	char why[3 * PATH_MAX];

	if (fifo_open(&sb->fifo, sb->loop, sb->dir.fd, sb->dir.path, &supervise_fifo_ops, &sb->sv,
		      why, sizeof why) < 0) {
		snprintf(err, errlen, "%s: %s", o->cfg.dir ? o->cfg.dir : "sandbox directory", why);
		return EXIT_SETUP;
	}
	return 0;
}

static void undo_fifos(struct sandbox *sb)
{
	fifo_close(&sb->fifo);
}

static int step_cgroups(struct sandbox *sb, char *err, size_t errlen)
{
	const struct config *c = &sb->o->cfg;

	if (cgroup_setup(&sb->cg, (enum cg_mode)c->cgroup_mode, &c->limits, err, errlen) < 0)
		return EXIT_SETUP;
	return 0;
}

/* Once the program's tree is gone: a cgroup with a process cannot be
 * removed. */
static void undo_cgroups(struct sandbox *sb)
{
	cgroup_destroy(&sb->cg);
}

/* Without a cgroup that counts CPU, the tree's CPU time comes from /proc:
 * one that is not proctord's (a container's, not mounted afresh) names
 * other processes, so --cpu-time is left to RLIMIT_CPU, whole seconds per
 * process. Whether so, with why. */
static int sandbox_cpu_blind(const struct sandbox *sb, char *why, size_t len)
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

/* The limits the cgroups hold, and those they cannot: said, and with
 * --strict refused (EXIT_SETUP, after the messages). */
static int step_limits(struct sandbox *sb, char *err, size_t errlen)
{
	const struct config *c = &sb->o->cfg;
	char why[3 * PATH_MAX];

	/* --pids counts the program's processes: the PID namespace's init is
	 * proctord's, so pids.max has room for it (and loses it again if the
	 * program has to start without one: pids_without_init). */
	if (c->limits.pids < UNITS_UNLIMITED - 1 &&
	    cgroup_set_pids_max(&sb->cg, c->limits.pids + 1, err, errlen) < 0)
		return EXIT_SETUP;
	err[0] = '\0';
	/* Not root, proctord owns its cgroups, and so does the program, of
	 * its uid: only a box keeps their files out of its reach. */
	cgroup_program_writes(&sb->cg, geteuid() != 0 && !sb->box.active);
	/* No pids cgroup: a non-root proctord's program runs in a user
	 * namespace of its own, where RLIMIT_NPROC counts only its tree. */
	sb->nproc = cgroup_pids_by_rlimit(&sb->cg, &c->limits, sb->box.active,
					  spawn_pidns_wanted() == SPAWN_PIDNS_USER ||
						  identity_box_root(&sb->iso, sb->box.active, &(uid_t){0},
								   &(gid_t){0}));
	/* A limit that is asked for and not enforced must never pass silently. */
	sb->cpu_blind = sandbox_cpu_blind(sb, why, sizeof why);
	if (sb->cpu_blind)
		fprintf(stderr,
			"proctord: %s: cpu_time cannot be honoured: no cgroup counts the tree's CPU, "
			"and /proc is not proctord's: %s; only RLIMIT_CPU holds it, per process\n",
			c->strict ? "error" : "warning", why);
	if (cgroup_unhonoured(&sb->cg, &c->limits, NULL, NULL) > 0) {
		cgroup_unhonoured(&sb->cg, &c->limits, stderr,
				  c->strict ? "proctord: error: " : "proctord: warning: ");
		if (c->strict)
			return EXIT_SETUP;
	}
	return c->strict && sb->cpu_blind ? EXIT_SETUP : 0;
}

/* A CPU-time deadline is only as punctual as proctord's wake-up. The
 * cgroups were set up on the kernel's word that SCHED_FIFO would be
 * granted (cgroup_setup): a refusal now must not pass silently. */
static int step_prio(struct sandbox *sb, char *err, size_t errlen)
{
	STEP_CANNOT_FAIL(err, errlen);
	if (!prio_raise(&sb->prio, sb->loop, sb->nice_value) && sb->cg.rt)
		log_warnx("SCHED_FIFO was refused after all: the CPU deadline may fire late "
			  "under many runnable threads");
	return 0;
}

/* Before the cgroups go: their removal is not to be done real-time. */
static void undo_prio(struct sandbox *sb)
{
	prio_lower(&sb->prio);
}

/* The directory printed when proctord made it up. */
static int step_announce(struct sandbox *sb, char *err, size_t errlen)
{
	STEP_CANNOT_FAIL(err, errlen);
	if (!sb->o->daemonize && !sb->o->cfg.dir) {
		printf("%s\n", sb->dir.path);
		fflush(stdout);
	}
	return 0;
}

/* Whether a stream goes to the null device: what nobody can read is not
 * counted, and not piped through proctord (it costs the program CPU time,
 * which --cpu-time holds, and nobody's disk). A path is looked at, not
 * opened: the child opens it as without a limit. */
static int sandbox_stream_null(const char *path, int fd)
{
	struct stat st;
	int r = path ? lstat(path, &st) : fstat(fd, &st);

	return r == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

/* The output limits: a stream with a limit on it goes through proctord, to
 * where it would have gone: the file or descriptor given, else proctord's
 * own (daemonized: /dev/null, which is not counted). Standard error sent to
 * standard output (stderr_to_stdout) is the same pipe, counted once. */
static int step_output(struct sandbox *sb, char *err, size_t errlen)
{
	const struct options *o = sb->o;
	const struct limits *l = &o->cfg.limits;
	struct output_limits lim = {l->output_limit, {l->stdout_limit, l->stderr_limit},
				    l->truncate_output};
	struct output_dest d[2], *dp[2] = {NULL, NULL};
	int own[2] = {1, 2}, given[2] = {sb->out_fd, sb->err_fd};
	const char *paths[2] = {o->cfg.stdout_path, o->cfg.stderr_path};
	uid_t uid = 0;
	gid_t gid = 0;
	/* In a box, as its user (spawn.c: spawn_child_open_stdio), the
	 * host's for a mapped uid 0, through no link at all. */
	int mapped = identity_box_root(&sb->iso, sb->box.active, &uid, &gid);

	for (int i = 0; i < 2; i++) {
		d[i].fd = given[i] >= 0 ? given[i] : own[i];
		d[i].uid = mapped ? uid : sb->box.active && sb->iso.set_uid ? sb->iso.uid : (uid_t)-1;
		d[i].gid = mapped ? gid : sb->box.active && sb->iso.set_gid ? sb->iso.gid : (gid_t)-1;
		d[i].no_links = sb->box.active;
		d[i].path = given[i] >= 0  ? NULL
			    : paths[i]	   ? paths[i]
			    : o->daemonize ? "/dev/null"
					   : NULL;
		d[i].reached = d[i].path && box_reaches(&sb->box, d[i].path);
		if ((lim.total != UNITS_UNLIMITED || lim.stream[i] != UNITS_UNLIMITED) &&
		    !(i == 1 && o->cfg.stderr_to_stdout) && !sandbox_stream_null(d[i].path, d[i].fd))
			dp[i] = &d[i];
	}
	if (!dp[0] && !dp[1])
		return 0;
	if (output_open(&sb->output, sb->loop, &lim, dp[0], dp[1]) < 0) {
		snprintf(err, errlen, "output pipes: %s", strerror(errno));
		return EXIT_SETUP;
	}
	sb->out = &sb->output;
	return 0;
}

static void undo_output(struct sandbox *sb)
{
	if (sb->out)
		output_close(sb->out);
	sb->out = NULL;
}

/* --seccomp's filter: built once the cgroups are known (where no cpuset
 * cgroup holds --cpuset, it denies sched_setaffinity too). A box without
 * --seccomp still denies the key rings and the terminal ioctls
 * (sysfilter_build_box): failing with EPERM, no listener; optional, as its
 * load is: where libseccomp cannot build it (no seccomp(2): valgrind, an
 * old kernel) the box holds without it. */
static int step_filter(struct sandbox *sb, char *err, size_t errlen)
{
	const struct options *o = sb->o;
	char why[256];

	if (o->cfg.seccomp) {
		if (sysfilter_build(&sb->filter, o->cfg.seccomp_errno,
				    cpuset_by_affinity(&sb->cg, &o->cfg.limits.cpuset), err,
				    errlen) < 0)
			return EXIT_SETUP;
	} else if (sb->box.active && sysfilter_build_box(&sb->filter, why, sizeof why) < 0) {
		log_warnx("warning: --box: %s: the box's filter is not loaded (%s are not denied)",
			  why, sysfilter_box_summary);
	}
	return 0;
}

static void undo_filter(struct sandbox *sb)
{
	sysfilter_free(&sb->filter);
}

/* The socket over which the child hands over the filter's listener. */
static int step_listener(struct sandbox *sb, char *err, size_t errlen)
{
	if (sb->filter.notify &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sb->filter_sv) < 0) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		sb->filter_sv[0] = sb->filter_sv[1] = -1;
		return EXIT_SETUP;
	}
	return 0;
}

static void undo_listener(struct sandbox *sb)
{
	close_fd(&sb->filter_sv[0]);
	close_fd(&sb->filter_sv[1]);
}

/* What spawn needs to know, from the options and the start so far. */
static void sandbox_spawn_config(struct sandbox *sb)
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
	sc->stderr_to_stdout = o->cfg.stderr_to_stdout;
	sc->null_stdio = o->daemonize;
	sc->stdio_reached[0] = o->cfg.stdin_path && box_reaches(&sb->box, o->cfg.stdin_path);
	sc->stdio_reached[1] = o->cfg.stdout_path && box_reaches(&sb->box, o->cfg.stdout_path);
	sc->stdio_reached[2] = o->cfg.stderr_path && box_reaches(&sb->box, o->cfg.stderr_path);
	sc->chdir = o->cfg.chdir ? o->cfg.chdir : sb->box.active ? "/box" : NULL;
	sc->limits = &o->cfg.limits;
	sc->nice = sb->nice_value;
	sc->nproc = sb->nproc;
	sc->cgroup_fd = cgroup_clone_fd(&sb->cg);
	sc->cpu_in_v2 = cgroup_role_version(&sb->cg, CG_ROLE_CPU) == 2;
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
	if (identity_box_root(&sb->iso, sb->box.active, &sc->map_uid, &sc->map_gid)) {
		sc->pidns = SPAWN_PIDNS_USER_ROOT;
		sb->child_iso.set_uid = sb->child_iso.set_gid = 0;
	}
	sc->identity = &sb->child_iso;
	sc->tty_foreground = startup_tty_handover(o, &sb->iso);
}

/* What the steps before made for the program: the output's pipes, the
 * filter and its socket. */
static void sandbox_spawn_config_more(struct sandbox *sb)
{
	struct spawn_config *sc = &sb->sc;

	if (sb->out && output_child_fd(sb->out, 0) >= 0) {
		sc->stdout_fd = output_child_fd(sb->out, 0);
		sc->stdout_err = output_open_error(sb->out, 0, &sc->stdout_path);
	}
	if (sb->out && output_child_fd(sb->out, 1) >= 0) {
		sc->stderr_fd = output_child_fd(sb->out, 1);
		sc->stderr_err = output_open_error(sb->out, 1, &sc->stderr_path);
	}
	if (sb->filter.insns)
		sc->filter = &sb->filter;
	sc->filter_sock = sb->filter_sv[1];
	sc->pidns_required = sb->o->cfg.strict || sb->box.active;
	sc->box = &sb->box;
	sc->pidns_fallback = pids_without_init;
	sc->pidns_fallback_ctx = sb;
}

/* What a start that did not get the namespaces it asked for must say. */
static void sandbox_spawn_warnings(struct sandbox *sb)
{
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
}

/* --box as root: DIR lent for the run to the uid the program has on the
 * host (--user's, or nobody for the box's uid 0), so that it can write its
 * working directory; handed back once the box is empty (boxowner.c). */
static int sandbox_lend_dir(struct sandbox *sb, char *err, size_t errlen)
{
	int keep_out[2] = {-1, -1};
	uid_t uid;
	gid_t gid;

	/* --user only as root (identity_prepare); the mapped uid 0 only
	 * where proctord can chown (identity_box_root). */
	if (!sb->box.active)
		return 0;
	if (sb->iso.set_uid && sb->iso.uid != 0)
		uid = sb->iso.uid;
	else if (!identity_box_root(&sb->iso, 1, &uid, &gid))
		return 0;
	/* Only the reports opened (the others are zeroed, not -1). */
	for (size_t i = 0; i < sb->n_reports && i < 2; i++)
		keep_out[i] = sb->reports[i].dirfd;
	return boxowner_hand_over(&sb->lent, &sb->box, uid, keep_out, 2, err, errlen);
}

/* Start the program; the caller's descriptors and the filter's socket are
 * then the program's alone. */
static int step_program(struct sandbox *sb, char *err, size_t errlen)
{
	struct spawn_plan plan;
	int r, saved;

	sandbox_spawn_config(sb);
	sandbox_spawn_config_more(sb);
	/* Everything the child reads, checked here (a limit it could not set
	 * fails the start, not the program). */
	if (spawn_plan_build(&plan, &sb->sc, err, errlen) < 0 ||
	    sandbox_lend_dir(sb, err, errlen) < 0) {
		spawn_plan_free(&plan);
		sb->sc.tty_foreground = 0;
		return EXIT_SETUP;
	}
	sb->start_us = now_us();
	r = spawn_start(&plan, &sb->child);
	saved = errno;
	spawn_plan_free(&plan);
	/* Without its user namespace, the box's uid 0 is the host's: DIR is
	 * its owner's to write again. */
	if (r < 0 || sb->child.root_map_err)
		boxowner_hand_back(&sb->lent);
	errno = saved;
	if (r < 0) {
		if (sb->child.pidns_err && sb->box.active)
			snprintf(err, errlen, "error: cannot make the box's namespaces (%s)%s",
				 strerror(sb->child.pidns_err),
				 geteuid() == 0 && !identity_has_caps(IDENTITY_BIT(CAP_SYS_ADMIN))
					 ? ": proctord is uid 0 without CAP_SYS_ADMIN, and its box's "
					   "user namespace must map uid 0, to itself (CAP_SETFCAP) or "
					   "to nobody (CAP_SETUID, CAP_SETGID, CAP_CHOWN): grant those "
					   "(Podman and Docker do by default) or run proctord as "
					   "another user"
					 : "");
		else if (sb->child.pidns_err)
			snprintf(err, errlen,
				 "error: cannot make a PID namespace for the program (%s): it "
				 "could outlive proctord",
				 strerror(sb->child.pidns_err));
		else
			snprintf(err, errlen, "cannot start %s: %s", sb->o->argv[0], strerror(errno));
		sb->sc.tty_foreground = 0;
		return EXIT_SETUP;
	}
	/* The init has its copy; what the box can write is kept for the
	 * end. */
	if (sb->box.active && boxstrip_keep(&sb->strip, &sb->box) < 0)
		log_warn("warning: --box: cannot keep the box's directory for the end");
	undo_box(sb);
	sandbox_spawn_warnings(sb);
	if (sb->sc.tty_foreground)
		sb->tty_group = startup_tty_join(sb->child.pid);
	title_running(sb->dir.path, sb->o->argv[0]);
	/* The program has its copies. */
	close_fd(&sb->in_fd);
	close_fd(&sb->out_fd);
	close_fd(&sb->err_fd);
	close_fd(&sb->filter_sv[1]);
	return 0;
}

/* Whatever is left of the program's tree (a start that failed after it,
 * a fatal error): killed and reaped, through the cgroup and the walk of
 * /proc, as the supervisor's sweep does; proctord is the subreaper of every
 * orphan. Then the terminal back, and the box's set-id bits off. */
static void sandbox_kill_program(struct sandbox *sb)
{
	int rounds = 0;

	cgroup_kill(&sb->cg);
	kill(sb->child.pid, SIGKILL);
	for (;;) {
		pid_t w = waitpid(-1, NULL, __WALL | WNOHANG);

		if (w > 0 || (w < 0 && errno == EINTR))
			continue;
		if (w < 0)
			break; /* ECHILD: none left */
		if (++rounds == 10000) {
			log_warnx("warning: the program's tree is still there after 10 s");
			break;
		}
		tree_signal_all(getpid(), SIGKILL);
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
}

static void undo_program(struct sandbox *sb)
{
	if (!sb->sv.main_reaped)
		sandbox_kill_program(sb);
	close_fd(&sb->child.statusfd);
	close_fd(&sb->child.errfd);
	close_fd(&sb->child.pidfd);
	if (sb->tty_group)
		startup_tty_leave(sb->tty_group);
	sb->tty_group = 0;
	if (sb->sc.tty_foreground)
		startup_tty_take_back(sb->sc.tty_foreground - 1);
	sb->sc.tty_foreground = 0;
	if (sb->strip.n && !sb->stripped)
		boxstrip_run(&sb->strip);
	boxstrip_close(&sb->strip);
	boxowner_hand_back(&sb->lent);
}

/* The supervisor's ended hook: the box is empty, its set-id files go. */
static void sandbox_box_ended(void *ctx)
{
	struct sandbox *sb = ctx;

	boxstrip_run(&sb->strip);
	sb->stripped = 1;
	boxowner_hand_back(&sb->lent);
}

/* The supervisor over the program, and the --report file at its end.
 * Without its timers or listener the limits would not hold: the program is
 * killed (by the teardown). */
static int step_supervise(struct sandbox *sb, char *err, size_t errlen)
{
	if (supervise_init(&sb->sv, sb->loop, &sb->o->cfg.limits, &sb->child, &sb->fifo, &sb->cg,
			   sb->start_us, sb->out, sb->filter_sv[0]) < 0) {
		snprintf(err, errlen, "cannot set up the supervisor (timers, the seccomp listener): %s",
			 strerror(errno));
		return EXIT_SETUP;
	}
	/* Its descriptors are the supervisor's now, and so is the
	 * listener's socket. */
	sb->child.statusfd = sb->child.errfd = sb->child.pidfd = -1;
	sb->filter_sv[0] = -1;
	sb->sv.prio = &sb->prio;
	sb->sv.end_fd = sb->end_fd;
	sb->end_fd = -1;
	sb->sv.eof_fd = sb->eof_fd;
	sb->sv.shares_group = sb->tty_group != 0;
	sb->sv.home_group = sb->tty_group;
	sb->eof_fd = -1;
	if (sb->strip.n || sb->lent.handed) {
		sb->sv.ended = sandbox_box_ended;
		sb->sv.ended_ctx = sb;
	}
	sb->init_counted = sb->child.pidns != SPAWN_PIDNS_NONE;
	if (sb->n_reports) {
		sb->sv.report = sandbox_write_report;
		sb->sv.report_ctx = sb;
	}
	return 0;
}

static void undo_supervise(struct sandbox *sb)
{
	supervise_close(&sb->sv);
}

/* --- the ladder -------------------------------------------------------------- */

/* The start's steps in order, each with its name and what undoes it (NULL:
 * nothing, or what a later step's undo covers). */
static const struct {
	const char *name;
	sandbox_do start;
	sandbox_undo undo;
} sandbox_steps[SB_N_STEPS] = {
    [SB_IDENTITY] = {"identity", step_identity, NULL},
    [SB_BOX] = {"box", step_box, undo_box},
    [SB_STDIO] = {"stdio", step_stdio, undo_stdio},
    [SB_SIGNALS] = {"signals", step_signals, NULL},
    [SB_REPORT] = {"report", step_report, undo_report},
    [SB_ENV] = {"env", step_env, undo_env},
    [SB_DAEMONIZE] = {"daemonize", step_daemonize, undo_daemonize},
    [SB_SUBREAPER] = {"subreaper", step_subreaper, NULL},
    [SB_LOOP] = {"loop", step_loop, undo_loop},
    [SB_DIR] = {"dir", step_dir, undo_dir},
    [SB_APART] = {"apart", step_apart, NULL},
    [SB_FIFOS] = {"fifos", step_fifos, undo_fifos},
    [SB_CGROUPS] = {"cgroups", step_cgroups, undo_cgroups},
    [SB_LIMITS] = {"limits", step_limits, NULL},
    [SB_PRIO] = {"prio", step_prio, undo_prio},
    [SB_ANNOUNCE] = {"announce", step_announce, NULL},
    [SB_OUTPUT] = {"output", step_output, undo_output},
    [SB_FILTER] = {"filter", step_filter, undo_filter},
    [SB_LISTENER] = {"listener", step_listener, undo_listener},
    [SB_PROGRAM] = {"program", step_program, undo_program},
    [SB_SUPERVISE] = {"supervise", step_supervise, undo_supervise},
};

const char *sandbox_step_name(enum sandbox_step step)
{
	return step < SB_N_STEPS ? sandbox_steps[step].name : NULL;
}

void sandbox_end(struct sandbox *sb)
{
	/* One step at a time, so that a fatal error within an undo ends
	 * with the steps below it undone still. */
	while (sb->done > 0) {
		size_t step = --sb->done;

		if (sandbox_steps[step].undo)
			sandbox_steps[step].undo(sb);
	}
}

/* log_fatal's hook: a fatal error anywhere in proctord ends with the
 * teardown, in the sandbox's owner (not in a child before its execve, nor
 * in --daemonize's caller). */
static void sandbox_end_fatal(void *ctx)
{
	struct sandbox *sb = ctx;

	if (getpid() == sb->owner)
		sandbox_end(sb);
}

/* The fields whose nothing is -1, before any step. */
static void sandbox_init(struct sandbox *sb, struct options *o)
{
	memset(sb, 0, sizeof *sb);
	sb->o = o;
	sb->owner = getpid();
	sb->in_fd = sb->out_fd = sb->err_fd = sb->end_fd = sb->eof_fd = -1;
	sb->ready_fd = -1;
	sb->filter_sv[0] = sb->filter_sv[1] = -1;
	sb->child.pidfd = sb->child.errfd = sb->child.statusfd = -1;
	boxowner_init(&sb->lent);
	sb->fifo.ino_fd = -1;
	/* For the tests of the teardown (tests/blackbox/teardown.sh): the
	 * start fails on purpose once the step so named is done. */
	sb->fail_at = getenv("PROCTORD_FAIL_AT");
	/* And for the tests of what happens in between: a pause of MS
	 * milliseconds once the step STEP is done (tests/blackbox/run.sh:
	 * a program that ends before the supervisor exists). */
	sb->pause_at = getenv("PROCTORD_PAUSE_AT");
}

/* PROCTORD_PAUSE_AT=STEP:MS, STEP being name: sleep MS (up to 10000) ms. */
static void sandbox_pause_at(const char *spec, const char *name)
{
	size_t n = strlen(name);
	struct timespec ts;
	long ms;

	if (!spec || strncmp(spec, name, n) != 0 || spec[n] != ':')
		return;
	ms = strtol(spec + n + 1, NULL, 10);
	if (ms <= 0 || ms > 10000)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int sandbox_start(struct sandbox *sb, struct options *o)
{
	/* Room for a message that quotes paths up to PATH_MAX long. */
	char err[3 * PATH_MAX];
	int code = 0;

	sandbox_init(sb, o);
	log_on_fatal(sandbox_end_fatal, sb);
	for (size_t i = 0; i < SB_N_STEPS && !code; i++) {
		err[0] = '\0';
		code = sandbox_steps[i].start(sb, err, sizeof err);
		if (code) {
			if (err[0])
				log_warnx("%s", err);
			break;
		}
		sb->done = i + 1;
		sandbox_pause_at(sb->pause_at, sandbox_steps[i].name);
		if (sb->fail_at && strcmp(sb->fail_at, sandbox_steps[i].name) == 0) {
			log_warnx("PROCTORD_FAIL_AT=%s: the start fails here on purpose",
				  sb->fail_at);
			code = EXIT_SETUP;
		}
	}
	if (code)
		sandbox_end(sb);
	return code;
}
