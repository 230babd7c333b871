// SPDX-License-Identifier: ISC
// proctord: options, start-up, daemonizing and readiness, then the event loop.
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "check.h"
#include "config.h"
#include "fifo.h"
#include "isolate.h"
#include "output.h"
#include "prio.h"
#include "sblimits.h"
#include "log.h"
#include "options.h"
#include "report.h"
#include "sbdir.h"
#include "spawn.h"
#include "startup.h"
#include "supervise.h"
#include "sysfilter.h"
#include "title.h"
#include "units.h"
#include "util.h"
#include "wiring.h"
#include "version.h"

int main(int argc, char **argv)
{
	struct options o;
	struct sbdir dir;
	struct fifo fifo;
	struct supervisor sv;
	struct finish_ctx fin;
	struct spawn_config sc;
	struct spawn_child child;
	/* Static: the exit handler may use it after main has returned. */
	static struct cgroup cg;
	int join_fds[CG_MAX_HIER];
	const char *join_paths[CG_MAX_HIER];
	struct isolate iso;
	struct prio prio;
	struct sysfilter filter;
	struct output output, *out = NULL;
	int filter_sv[2] = {-1, -1};
	int in_fd, out_fd, err_fd;
	struct ev_loop *loop;
	/* Room for a message that quotes paths up to PATH_MAX long. */
	char err[3 * PATH_MAX];
	char **env;
	int ready_fd = -1, code, nice_value;
	uint64_t start_us;

	/* Before anything keeps a pointer into argv or the environment. */
	title_init(argc, argv);
	log_init("proctord");
	startup_stdio();
	options_parse(argc, argv, &o);
	/* Accepted, but most likely a mistake: said once, before anything runs
	 * (on stderr, so that --check's table stays as it is). */
	for (const struct config_key *k = config_keys; k->name; k++)
		if (config_warning(&o.cfg, k, err, sizeof err))
			log_warnx("warning: %s", err);
	memset(&filter, 0, sizeof filter);
	in_fd = out_fd = err_fd = -1;
	if (!o.check) {
		if (o.cfg.seccomp_errno)
			o.cfg.seccomp = 1;
		/* A refusal (--no-root, an unknown user) comes before any
		 * cgroup is touched. */
		if (isolate_prepare(&iso, &o.cfg, err, sizeof err) < 0)
			log_fatalx(EXIT_SETUP, "%s", err);
		if (o.cfg.seccomp &&
		    sysfilter_build(&filter, o.cfg.seccomp_errno, err, sizeof err) < 0)
			log_fatalx(EXIT_SETUP, "%s", err);
		/* Before anything else opens a descriptor (the cgroups do):
		 * /dev/fd/N is the caller's. */
		in_fd = inherited_fd(o.cfg.stdin_path);
		out_fd = inherited_fd(o.cfg.stdout_path);
		err_fd = inherited_fd(o.cfg.stderr_path);
		/* After those: /dev/fd/N is the caller's. A report that cannot
		 * be written is found now, not once the program has run. */
		if (o.cfg.report) {
			/* The daemon would hold the caller's standard output,
			 * and $(proctord --daemonize ...) would wait for it. */
			if (o.daemonize &&
			    (strcmp(o.cfg.report, "-") == 0 || fd_path_is_stdout(o.cfg.report)))
				log_fatalx(EXIT_USAGE,
					   "--report %s: with --daemonize, standard output "
					   "carries the directory only; give a file",
					   o.cfg.report);
			if (report_file_open(&report, o.cfg.report, err, sizeof err) < 0)
				log_fatalx(EXIT_USAGE, "--report %s", err);
			exit_report = &report;
			atexit(remove_report_at_exit);
		}
	}
	if (o.check) {
		size_t n;

		/* Read-only: --check changes nothing on the machine. */
		cgroup_probe(&cg, (enum cg_mode)o.cfg.cgroup_mode, &o.cfg.limits);

		printf("proctord %s: configuration check", PROCTOR_VERSION);
		if (o.config_file)
			printf(" of %s%s%s%s", o.config_file, o.profile ? " [" : "",
			       o.profile ? o.profile : "", o.profile ? "]" : "");
		printf("\n\n");
		config_print_check(&o.cfg, stdout, check_mechanism, &cg);
		check_sources(&cg, stdout);
		if (cgroup_has_plan(&cg)) {
			printf("\nset-up (nothing was changed by --check)\n");
			cgroup_print_plan(&cg, stdout, "");
		}
		n = check_pidns(&o.cfg, stdout);
		n += cgroup_unhonoured(&cg, &o.cfg.limits, NULL, NULL);
		if (n) {
			printf("\n");
			cgroup_unhonoured(&cg, &o.cfg.limits, stdout, "");
		}
		n += check_isolation(&o.cfg, stdout, "\ncannot be honoured: ");
		cgroup_destroy(&cg);
		config_free(&o.cfg);
		return n ? EXIT_SETUP : 0;
	}
	/* From the first thing left behind (the cgroups) to the end of the
	 * clean-up, SIGTERM and the others must not kill proctord: held
	 * until the loop's signalfd takes them over, pending ones included;
	 * ignored once the loop is over (startup_signals_ignore). */
	startup_signals_block(SIG_BLOCK);
	if (cgroup_setup(&cg, (enum cg_mode)o.cfg.cgroup_mode, &o.cfg.limits, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	exit_cgroup = &cg;
	atexit(remove_cgroup_at_exit);
	/* --pids counts the program's processes: the PID namespace's init is
	 * proctord's, so pids.max has room for it (and loses it again if the
	 * program has to start without one). */
	pids_fix.cg = &cg;
	pids_fix.pids = o.cfg.limits.pids;
	if (o.cfg.limits.pids < UNITS_UNLIMITED - 1 &&
	    cgroup_set_pids_max(&cg, o.cfg.limits.pids + 1, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	/* A limit that is asked for and not enforced must never pass silently. */
	if (cgroup_unhonoured(&cg, &o.cfg.limits, NULL, NULL) > 0) {
		cgroup_unhonoured(&cg, &o.cfg.limits, stderr,
				  o.cfg.strict ? "proctord: error: " : "proctord: warning: ");
		if (o.cfg.strict)
			return EXIT_SETUP;
	}
	env = options_env(&o.cfg);

	if (o.daemonize)
		ready_fd = startup_daemonize(&o, env);
	/* A client gone mid-answer is EPIPE, not death. */
	signal(SIGPIPE, SIG_IGN);
	/* Orphans of the program come back to proctord, not to init, so the
	 * whole tree can be measured and killed. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		log_fatal(EXIT_SETUP, "PR_SET_CHILD_SUBREAPER");
	/* The program gets the caller's nice value back (prio_raise changes
	 * proctord's own). */
	errno = 0;
	nice_value = getpriority(PRIO_PROCESS, 0);
	if (errno != 0)
		nice_value = 0;

	loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_SIGNALFD | EVFLAG_NOENV);
	if (!loop)
		log_fatalx(EXIT_SETUP, "cannot create the event loop");
	/* A CPU-time deadline is only as punctual as proctord's wake-up. */
	prio_raise(&prio, loop, nice_value);
	if (sbdir_open(&dir, o.cfg.dir, o.cfg.dir_mode, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	if (fifo_open(&fifo, loop, dir.fd, dir.path, &supervise_fifo_ops, &sv, err, sizeof err) <
	    0) {
		sbdir_close(&dir);
		log_fatalx(EXIT_SETUP, "%s: %s", o.cfg.dir ? o.cfg.dir : "sandbox directory", err);
	}
	if (!o.daemonize && !o.cfg.dir) {
		printf("%s\n", dir.path);
		fflush(stdout);
	}

	spawn_config_init(&sc);
	sc.argv = o.argv;
	sc.envp = env;
	sc.stdin_path = o.cfg.stdin_path;
	sc.stdout_path = o.cfg.stdout_path;
	sc.stderr_path = o.cfg.stderr_path;
	sc.stdin_fd = in_fd;
	sc.stdout_fd = out_fd;
	sc.stderr_fd = err_fd;
	sc.null_stdio = o.daemonize;
	sc.chdir = o.cfg.chdir;
	sc.limits = &o.cfg.limits;
	sc.nice = nice_value;
	sc.cgroup_fd = cgroup_clone_fd(&cg);
	sc.cgroup_procs_fd = cgroup_v2_procs_fd(&cg, &sc.cgroup_path);
	sc.n_join = cgroup_join_fds(&cg, join_fds, join_paths, CG_MAX_HIER, 1);
	sc.join_fds = join_fds;
	sc.join_paths = join_paths;
	sc.isolate = &iso;
	sc.tty_foreground = startup_tty_handover(&o, &iso);
	if (o.cfg.limits.output_limit != UNITS_UNLIMITED) {
		/* stdout and stderr go through proctord, to where they would
		 * have gone: the file or descriptor given, else proctord's own
		 * (daemonized: /dev/null). */
		struct output_dest d[2];
		int own[2] = {1, 2}, given[2] = {out_fd, err_fd};
		const char *paths[2] = {o.cfg.stdout_path, o.cfg.stderr_path};

		for (int i = 0; i < 2; i++) {
			d[i].fd = given[i] >= 0 ? given[i] : own[i];
			d[i].path = given[i] >= 0 ? NULL
				    : paths[i]	  ? paths[i]
				    : o.daemonize ? "/dev/null"
						  : NULL;
		}
		if (output_open(&output, loop, o.cfg.limits.output_limit, &d[0], &d[1]) < 0) {
			fifo_close(&fifo);
			sbdir_close(&dir);
			log_fatal(EXIT_SETUP, "output pipes");
		}
		out = &output;
		sc.stdout_fd = output_child_fd(out, 0);
		sc.stderr_fd = output_child_fd(out, 1);
		sc.stdout_err = output_open_error(out, 0, &sc.stdout_path);
		sc.stderr_err = output_open_error(out, 1, &sc.stderr_path);
	}
	if (o.cfg.seccomp) {
		sc.filter = &filter;
		/* The child hands the filter's listener over this. */
		if (filter.notify &&
		    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, filter_sv) < 0) {
			fifo_close(&fifo);
			sbdir_close(&dir);
			log_fatal(EXIT_SETUP, "socketpair");
		}
		sc.filter_sock = filter_sv[1];
	}
	sc.pidns = spawn_pidns_wanted();
	sc.pidns_required = o.cfg.strict;
	sc.pidns_fallback = pids_without_init;
	start_us = now_us();
	if (spawn_start(&sc, &child) < 0) {
		int saved = errno;

		fifo_close(&fifo);
		sbdir_close(&dir);
		errno = saved;
		if (child.pidns_err)
			log_fatalx(EXIT_SETUP,
				   "error: cannot make a PID namespace for the program (%s): it "
				   "could outlive proctord",
				   strerror(child.pidns_err));
		log_fatal(EXIT_SETUP, "cannot start %s", o.argv[0]);
	}
	if (child.pidns_err)
		log_warnx("warning: cannot make a PID namespace for the program (%s): it may "
			  "outlive proctord if it clears its parent-death signal",
			  strerror(child.pidns_err));
	title_running(dir.path, o.argv[0]);
	/* The program has its copies. */
	for (int i = 0; i < 3; i++) {
		int fds[3] = {in_fd, out_fd, err_fd};

		if (fds[i] >= 0)
			close(fds[i]);
	}
	if (filter_sv[1] >= 0)
		close(filter_sv[1]);
	if (supervise_init(&sv, loop, &o.cfg.limits, &child, &fifo, &cg, start_us, out,
			   filter_sv[0]) < 0) {
		/* Without its timers or listener the limits would not hold: end
		 * it now. */
		log_warn("cannot set up the supervisor (timers, the seccomp listener)");
		kill(child.pid, SIGKILL);
		waitpid(child.pid, NULL, 0);
		if (sc.tty_foreground)
			startup_tty_take_back();
		fifo_close(&fifo);
		sbdir_close(&dir);
		return EXIT_SETUP;
	}
	sv.prio = &prio;
	fin = (struct finish_ctx){&o.cfg, &sv, &cg, out, &iso, 0, child.pidns != SPAWN_PIDNS_NONE};
	if (o.cfg.report) {
		sv.finished = write_report;
		sv.finished_ctx = &fin;
	}
	fifo_start(&fifo);
	if (ready_fd >= 0)
		startup_ready(ready_fd, dir.path);
	startup_notify("READY=1");

	ev_run(loop, 0);

	startup_signals_ignore();
	if (sc.tty_foreground)
		startup_tty_take_back();
	supervise_call_finished(&sv);
	code = sv.exit_code;
	if (fin.failed && code == EXIT_PROTOCOL_DONE)
		code = EXIT_INTERNAL;
	supervise_finish(&sv);
	prio_finish(&prio);
	cgroup_destroy(&cg);
	exit_cgroup = NULL;
	if (out)
		output_close(out);
	sysfilter_free(&filter);
	fifo_close(&fifo);
	sbdir_close(&dir);
	ev_loop_destroy(loop);
	options_env_free(env);
	config_free(&o.cfg);
	return code;
}
