// SPDX-License-Identifier: ISC
// The supervisor: the program's life as a state machine, its timers, limits and end.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "supervise.h"
#include "title.h"
#include "tree.h"
#include "util.h"

/* Re-scan for leftovers while killing the tree: soon at first, then less
 * often, so that a process stuck in uninterruptible sleep does not keep
 * proctord waking a thousand times a second. */
#define SWEEP_INTERVAL 0.001
#define SWEEP_INTERVAL_MAX 0.1
/* The CPU deadline timer never fires more often than this (ns): with n CPUs
 * the tree may overshoot by at most n times this, plus the kill itself. */
#define CPU_MIN_INTERVAL_NS 100000u
/* After an OOM event with no kill counted, the count is read again after
 * 1, 2, 4 ... 512 ms: about a second in all. */
#define OOM_RECHECK_FIRST 0.001
#define OOM_RECHECKS 10u

static void supervise_dispatch(struct supervisor *s, enum sv_event ev);

/* The one place the loop ends. */
static void supervise_stop(struct supervisor *s, int code)
{
	s->state = SV_DONE;
	s->exit_code = code;
	ev_break(s->loop, EVBREAK_ALL);
}

static void supervise_stop_timers(struct supervisor *s)
{
	/* A timer left armed after the program ended would turn into a false
	 * verdict (DOMjudge). */
	ptimer_stop(&s->wall_timer);
	ptimer_stop(&s->cpu_timer);
	ptimer_stop(&s->grace_timer);
	ev_timer_stop(s->loop, &s->oom_timer);
}

/* No deadline is left to keep: proctord leaves real-time, but only once the
 * kill is sent (lowered, it may wait behind the program's threads). */
static void supervise_calm(struct supervisor *s)
{
	if (s->prio)
		prio_lower(s->prio);
}

/* --end-fd: the sandbox has ended and its output is delivered: the report,
 * then the byte that says so, and proctord ends as after a terminating wait.
 * A client's terminating wait answered first has ended the loop already. */
static void supervise_end_announce(struct supervisor *s)
{
	if (s->end_fd < 0 || s->state != SV_ENDED || (s->output && !output_done(s->output)))
		return;
	/* ENDED -> REPORTED -> DONE, as a terminating wait's answer would. */
	s->state = SV_REPORTED;
	supervise_report_once(s);
	if (write(s->end_fd, "1", 1) != 1)
		log_warn("--end-fd");
	close(s->end_fd);
	s->end_fd = -1;
	supervise_stop(s, EXIT_PROTOCOL_DONE);
}

/* A close-on-exec copy of inherited descriptor arg (closed: the program
 * does not inherit it), open for writing or for reading; for reading, a
 * pipe or a socket, whose end can be seen. Returns it, or -1 (err says
 * why, naming opt). */
static int supervise_fd_take(const char *opt, const char *arg, int writing, char *err,
			     size_t errlen)
{
	struct stat st;
	char *end;
	long n;
	int fl, fd;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] < '0' || arg[0] > '9' || n < 3 || n > INT_MAX) {
		snprintf(err, errlen, "%s %s: not a descriptor number from 3 up", opt, arg);
		return -1;
	}
	fl = fcntl((int)n, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == (writing ? O_RDONLY : O_WRONLY)) {
		snprintf(err, errlen, "%s %s: %s", opt, arg,
			 fl < 0	     ? "not an open descriptor"
			 : writing ? "not open for writing"
				     : "not open for reading");
		return -1;
	}
	if (!writing && (fstat((int)n, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))) {
		snprintf(err, errlen, "%s %s: not a pipe or a socket, whose end could be seen", opt,
			 arg);
		return -1;
	}
	fd = fcntl((int)n, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		snprintf(err, errlen, "%s %s: %s", opt, arg, strerror(errno));
		return -1;
	}
	close((int)n);
	return fd;
}

int supervise_end_fd_take(const char *arg, char *err, size_t errlen)
{
	return supervise_fd_take("--end-fd", arg, 1, err, errlen);
}

int supervise_eof_fd_take(const char *arg, char *err, size_t errlen)
{
	return supervise_fd_take("--end-on-eof", arg, 0, err, errlen);
}

/* SWEEPING -> ENDED: the figures freeze. */
static void supervise_end(struct supervisor *s)
{
	s->state = SV_ENDED;
	s->end_us = now_us();
	ev_timer_stop(s->loop, &s->sweep_timer);
	s->final_cpu_us = measure_cpu_us_settled(&s->measure);
	if (s->ended)
		s->ended(s->ended_ctx);
	if (s->interrupted) {
		/* The output gets a last flush in output_close. */
		supervise_stop(s, EXIT_INTERRUPTED);
		return;
	}
	/* Deliver what the pipes still hold; the terminating wait is answered
	 * once that is done (supervise_ready). */
	if (s->output)
		output_end(s->output);
	fifo_kick(s->fifo);
	supervise_end_announce(s);
}

/* Neither a cgroup nor /proc (not proctord's own: procwalk_is_own) can
 * list the tree: its process group does, and proctord's children (in a PID
 * namespace the init's death has taken all of it). Sharing that group (the
 * terminal's, --tty-foreground), proctord first goes back to its own, or
 * the group's SIGKILL would be its own; a ^C no longer matters once the
 * tree is being killed. Left in it, only its child is killed (which is all
 * of it in a PID namespace), and the sweep ends once it has none. */
static ssize_t supervise_kill_group(struct supervisor *s)
{
	siginfo_t si;

	if (s->shares_group) {
		pid_t home = s->home_group == getpid() ? 0 : s->home_group;

		if (setpgid(0, home) < 0 && setpgid(0, 0) < 0) {
			/* Checked below. */
		}
		s->shares_group = getpgrp() == s->child.pid;
	}
	if (!s->shares_group)
		return tree_signal_group(s->child.pid, SIGKILL);
	if (!s->main_reaped)
		kill(s->child.pid, SIGKILL);
	memset(&si, 0, sizeof si);
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0)
		return errno == ECHILD ? 0 : -1;
	return 1;
}

/* Kill the whole tree: through the cgroup where one holds it all, and also
 * every descendant found through /proc: a program running as root may move
 * a child out of the sandbox's cgroup, but not out from under proctord, its
 * subreaper. Returns how many are left to wait for: 0 none, > 0 some, -1
 * unknown (not "none": keep sweeping). */
static ssize_t supervise_kill_tree(struct supervisor *s)
{
	int left = cgroup_populated(s->cg);
	ssize_t walked;

	if (left > 0)
		cgroup_kill(s->cg);
	/* Zombies are out of the cgroup but still in the walk until SIGCHLD
	 * reaps them. */
	walked = tree_signal_all(getpid(), SIGKILL);
	if (left < 0 && walked < 0)
		return supervise_kill_group(s);
	if (left > 0 || walked > 0)
		return left > walked ? left : walked;
	return left < 0 ? walked : 0;
}

/* Kill every descendant; once none is left (the main process is reaped in
 * SWEEPING), the sandbox has ended. */
static void supervise_sweep(struct supervisor *s)
{
	if (supervise_kill_tree(s) == 0)
		supervise_end(s);
}

/* Look for leftovers again, soon at first, then less often. */
static void supervise_sweep_later(struct supervisor *s)
{
	ev_timer *w = &s->sweep_timer;

	w->repeat = w->repeat * 2 > SWEEP_INTERVAL_MAX ? SWEEP_INTERVAL_MAX : w->repeat * 2;
	ev_timer_again(s->loop, w);
}

/* Whether the cgroup's OOM killer has struck since the start. */
static int supervise_oom_struck(struct supervisor *s)
{
	uint64_t n;

	if (cgroup_oom_kills(s->cg, &n) == 0)
		s->oom_kills = n;
	return s->oom_kills > 0;
}

/* The verdict so far, as answers and the process title give it. */
static void supervise_set_outcome(struct supervisor *s, int wstatus)
{
	report_outcome_from_wait(&s->outcome, wstatus, s->kill_reason);
	if (s->kill_reason == KILL_SYSCALL)
		strlcpy(s->outcome.what, s->syscall, sizeof s->outcome.what);
	if (s->output) {
		s->outcome.output_hit = output_hit(s->output);
		s->outcome.truncated = output_truncated(s->output);
	}
}

/* The init's report of the program's end (PID namespace): the program has
 * ended, and the init is on its way out with the rest of the namespace. The
 * sandbox ends when the init is reaped, once all of it is gone, so that the
 * figures freeze at once. */
static void supervise_read_status(struct supervisor *s)
{
	struct spawn_status st;

	if (s->child.statusfd < 0 || s->program_ended)
		return;
	if (spawn_read_status(s->child.statusfd, &st) != 1)
		return;
	s->program_ended = 1;
	s->main_wstatus = st.wstatus;
	s->main_ru = st.ru;
}

/*
 * The actions: one per cell of the table below. Each is the whole of what
 * an event does in a state; a kill first reaps (itself a transition: the
 * program may have ended just before the timer fired, and then its own end
 * is the verdict, not the limit).
 */

static void supervise_reap(struct supervisor *s)
{
	int gone = 0;

	supervise_read_status(s);
	for (;;) {
		struct rusage ru;
		int st;
		pid_t pid = wait4(-1, &st, WNOHANG | __WALL, &ru);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid <= 0)
			break;
		measure_reaped(&s->measure, pid, &ru);
		if (pid == s->child.pid) {
			s->main_reaped = gone = 1;
			if (s->child.pidfd >= 0) {
				close(s->child.pidfd);
				s->child.pidfd = -1;
			}
			/* The init's report is in the pipe before it exits;
			 * without one (a set-up failure, or killed), its own
			 * end stands for the program's. */
			supervise_read_status(s);
			if (!s->program_ended) {
				s->program_ended = 1;
				s->main_wstatus = st;
				s->main_ru = ru;
			}
		}
	}
	if (gone)
		supervise_dispatch(s, SV_EV_MAIN_GONE);
}

static void supervise_check_exec(struct supervisor *s)
{
	int r;

	if (s->exec_checked)
		return;
	/* s->failure is only written when a failure was read. */
	r = spawn_read_failure(s->child.errfd, &s->failure, &s->setup);
	if (s->setup.known >= 0 && s->measure.setup_pending)
		measure_setup_known(&s->measure, s->setup.known, s->setup.cg_ns, s->setup.all_ns);
	if (r < 0)
		return;
	if (r == 1)
		s->exec_failed = 1;
	s->exec_checked = 1;
	ev_io_stop(s->loop, &s->err_io);
	close(s->child.errfd);
	s->child.errfd = -1;
}

/* RUNNING, GRACE, KILLING -> SWEEPING (and ENDED if nothing is left). */
static void supervise_main_ended(struct supervisor *s)
{
	supervise_stop_timers(s);
	/* The set-up report is in the pipe before the child exits. */
	supervise_check_exec(s);
	/* An OOM kill anywhere in the tree is the verdict, however the main
	 * process ended: on v1 a child's kill is counted after the event
	 * that woke us (or with none at all), so the count is read again
	 * now, before the verdict is fixed. */
	if (s->kill_reason == KILL_NONE && supervise_oom_struck(s))
		s->kill_reason = KILL_MEMORY;
	/* Everything the main process wrote is in its pipes now: into a file
	 * destination before the status is final. Past the limit, that is
	 * the verdict, as for any limit the program raced to exit on. */
	if (s->output && output_drain(s->output) && s->kill_reason == KILL_NONE)
		s->kill_reason = KILL_OUTPUT;
	/* A kill already decided is the verdict, whatever the wait status
	 * says: answers have carried it since the decision. */
	if (s->exec_failed && s->kill_reason == KILL_NONE)
		s->outcome = s->failure;
	else
		supervise_set_outcome(s, s->main_wstatus);
	title_outcome(&s->outcome, &s->limits);
	s->state = SV_SWEEPING;
	supervise_sweep(s);
	if (s->state == SV_SWEEPING) {
		ev_timer_set(&s->sweep_timer, SWEEP_INTERVAL, SWEEP_INTERVAL);
		ev_timer_start(s->loop, &s->sweep_timer);
	}
	supervise_calm(s);
}

/* RUNNING, GRACE -> KILLING: kill the whole tree now for reason; the
 * verdict is that reason. */
static void supervise_kill(struct supervisor *s, enum kill_reason reason)
{
	supervise_reap(s);
	if (s->state >= SV_KILLING || s->program_ended)
		return;
	/* A program that failed to start never ran: its end, a moment away,
	 * is the verdict. */
	supervise_check_exec(s);
	if (s->exec_failed)
		return;
	/* An OOM kill not yet seen (v1 counts it after its event) outranks
	 * the limit that ends the tree now. */
	if (reason != KILL_MEMORY && supervise_oom_struck(s))
		reason = KILL_MEMORY;
	s->kill_reason = reason;
	/* From this moment every answer says killed REASON (the text needs
	 * no more than the reason and, for syscall, the call's name). */
	supervise_set_outcome(s, 0);
	title_outcome(&s->outcome, &s->limits);
	s->state = SV_KILLING;
	supervise_stop_timers(s);
	if (s->child.pidfd >= 0)
		syscall(SYS_pidfd_send_signal, s->child.pidfd, SIGKILL, NULL, 0);
	else
		kill(s->child.pid, SIGKILL);
	supervise_kill_tree(s);
	supervise_calm(s);
	ev_timer_set(&s->sweep_timer, SWEEP_INTERVAL, SWEEP_INTERVAL);
	ev_timer_start(s->loop, &s->sweep_timer);
}

static void supervise_kill_wall(struct supervisor *s)
{
	supervise_kill(s, KILL_WALL_TIME);
}

static void supervise_kill_term(struct supervisor *s)
{
	supervise_kill(s, KILL_TERMINATE);
}

static void supervise_kill_output(struct supervisor *s)
{
	supervise_kill(s, KILL_OUTPUT);
}

static void supervise_kill_syscall(struct supervisor *s)
{
	strlcpy(s->syscall, s->denied, sizeof s->syscall);
	supervise_kill(s, KILL_SYSCALL);
}

/* The CPU deadline: the tree cannot burn its remaining budget faster than on
 * every CPU it may use, so nothing can be exceeded before remaining / ncpus
 * of wall time. Sleepers cost one wake-up per such interval, not a poll. */
static void supervise_cpu_check(struct supervisor *s)
{
	uint64_t cpu, rss, left, next_ns;

	supervise_reap(s);
	if (s->state >= SV_KILLING)
		return;
	/* Only the CPU figure: the cgroup's where there is one, without the
	 * /proc walk over every thread, which is proctord's largest cost. */
	if (cgroup_cpu(s->cg, &cpu, NULL, NULL) == 0)
		cpu = measure_program_us(&s->measure, cpu, 1, 0);
	else
		measure_sample(&s->measure, &cpu, &rss);
	if (cpu >= s->limits.cpu_time_us) {
		supervise_kill(s, KILL_CPU_TIME);
		return;
	}
	left = s->limits.cpu_time_us - cpu;
	next_ns = left * 1000u / s->ncpus;
	if (next_ns < CPU_MIN_INTERVAL_NS)
		next_ns = CPU_MIN_INTERVAL_NS;
	ptimer_arm(&s->cpu_timer, next_ns);
}

/* An OOM kill ends the sandbox. v1's eventfd fires when the cgroup runs
 * out of memory, before the OOM killer has chosen and counted its victim:
 * with no kill counted yet, look again soon, then less often, a few times
 * (the killer may also free memory without killing, and count nothing). */
static void supervise_oom(struct supervisor *s)
{
	if (supervise_oom_struck(s)) {
		supervise_kill(s, KILL_MEMORY);
		return;
	}
	if (s->oom_rechecks >= OOM_RECHECKS)
		return;
	ev_timer_stop(s->loop, &s->oom_timer);
	ev_timer_set(&s->oom_timer, OOM_RECHECK_FIRST * (double)(1u << s->oom_rechecks), 0.);
	ev_timer_start(s->loop, &s->oom_timer);
	s->oom_rechecks++;
}

/* Once the verdict is decided, only the count (for the report). */
static void supervise_oom_count(struct supervisor *s)
{
	supervise_oom_struck(s);
}

/* KILLING: the tree is still being killed; the main process is not reaped. */
static void supervise_kill_more(struct supervisor *s)
{
	supervise_kill_tree(s);
	supervise_sweep_later(s);
}

/* SWEEPING: leftovers; none left ends the sandbox. */
static void supervise_sweep_more(struct supervisor *s)
{
	supervise_sweep(s);
	if (s->state == SV_SWEEPING)
		supervise_sweep_later(s);
}

/* RUNNING -> GRACE. */
static void supervise_begin_grace(struct supervisor *s)
{
	s->state = SV_GRACE;
	/* No signal now: a program that ends by itself within the grace period
	 * has terminated normally, and a SIGTERM would make that impossible. */
	ptimer_arm(&s->grace_timer, s->limits.grace_us * 1000u);
}

/*
 * The signals (SIGTERM, SIGINT, SIGHUP, SIGQUIT: a ^C at the terminal, an
 * operator, systemd) climb a ladder, one rung each, whatever started the
 * grace: the first is passed on to the program and its descendants, as a
 * terminal would, so that it can save its state and end within the grace;
 * the second ends the grace (the tree is killed); the third, while the tree
 * is being killed, kills what is left at once rather than at the sweep's
 * next turn. proctord is interrupted (exit 4) from the first.
 */
static void supervise_sig_pass(struct supervisor *s)
{
	s->interrupted = 1;
	/* Sharing the program's group (the terminal's foreground), proctord
	 * takes a terminal's SIGINT, SIGQUIT or SIGHUP to have reached the
	 * program already; only SIGTERM, which no terminal sends, goes on.
	 * To the program's whole tree, not to a PID namespace's init, which
	 * is no part of the program (and under valgrind would take it). */
	if (!s->shares_group || s->signo == SIGTERM) {
		if (tree_signal_but(getpid(), s->measure.init_pid, s->signo) < 0 &&
		    !s->shares_group)
			kill(-s->child.pid, s->signo); /* no /proc: its group */
	}
	/* A client's grace runs its course; a signal's starts now. */
	if (s->state == SV_RUNNING)
		ptimer_arm(&s->grace_timer, s->limits.grace_us * 1000u);
	s->state = SV_SIGNALED;
}

/* SIGNALED -> KILLING: the second signal ends the grace. */
static void supervise_sig_cut(struct supervisor *s)
{
	supervise_kill(s, KILL_TERMINATE);
}

/* KILLING, SWEEPING: kill the leftovers again now, and look again soon. */
static void supervise_sig_kill(struct supervisor *s)
{
	s->interrupted = 1;
	supervise_kill_tree(s);
	ev_timer_stop(s->loop, &s->sweep_timer);
	ev_timer_set(&s->sweep_timer, SWEEP_INTERVAL, SWEEP_INTERVAL);
	ev_timer_start(s->loop, &s->sweep_timer);
}

/* RUNNING -> GRACE: the caller is gone (--end-on-eof): as a terminating
 * wait that nobody reads; no signal, the program is not told. */
static void supervise_caller_gone(struct supervisor *s)
{
	s->interrupted = 1;
	supervise_begin_grace(s);
}

/* DONE, and the caller's end after the grace has begun: the loop is
 * stopping already, or stops at the end. */
static void supervise_sig_mark(struct supervisor *s)
{
	s->interrupted = 1;
}

static void supervise_sig_stop(struct supervisor *s)
{
	s->interrupted = 1;
	supervise_stop(s, EXIT_INTERRUPTED);
}

/* ENDED: a terminating wait may be waiting for the output's end. */
static void supervise_kick(struct supervisor *s)
{
	fifo_kick(s->fifo);
	supervise_end_announce(s);
}

void supervise_report_once(struct supervisor *s)
{
	if (s->reported)
		return;
	s->reported = 1;
	if (s->report)
		s->report(s->report_ctx);
}

/* ENDED -> REPORTED: the figures are final; the report goes before the
 * answer. */
static void supervise_report(struct supervisor *s)
{
	s->state = SV_REPORTED;
	supervise_report_once(s);
}

/* REPORTED -> DONE. */
static void supervise_final_delivered(struct supervisor *s)
{
	supervise_stop(s, s->interrupted ? EXIT_INTERRUPTED : EXIT_PROTOCOL_DONE);
}

/*
 * What each event does in each state ("-": nothing). Rows are events,
 * columns states; the C table below is the same, by state, and the unit
 * test test-supervise checks that the two agree.
 *
 *              RUNNING   GRACE     SIGNALED  KILLING   SWEEPING  ENDED     REPORTED  DONE
 * child        reap      reap      reap      reap      reap      reap      reap      reap
 * main-gone    ended     ended     ended     ended     -         -         -         -
 * setup        exec      exec      exec      exec      exec      exec      exec      exec
 * wall         wall      wall      wall      -         -         -         -         -
 * cpu          cpu       cpu       cpu       -         -         -         -         -
 * grace        -         term      term      -         -         -         -         -
 * sweep        -         -         -         kill-more sweep     -         -         -
 * oom          oom       oom       oom       count     count     count     count     count
 * output-over  output    output    output    -         -         -         -         -
 * output-done  -         -         -         -         -         kick      -         -
 * syscall      syscall   syscall   syscall   -         -         -         -         -
 * signal       sig-pass  sig-pass  sig-cut   sig-kill  sig-kill  sig-stop  sig-stop  sig-mark
 * terminate    grace     -         -         -         -         -         -         -
 * caller-gone  caller    mark      mark      mark      mark      halt      halt      -
 * answer       reap      reap      reap      reap      -         -         -         -
 * final        -         -         -         -         -         report    -         -
 * delivered    -         -         -         -         -         -         stop      -
 *
 * reap: collect what ended; the main process's end is main-gone, at once.
 * ended: -> SWEEPING, the verdict from its wait status (or the kill's
 * reason), and -> ENDED if nothing is left (the ended hook runs then: a
 * box's set-id files go, boxstrip.c). wall, cpu (once over the
 * budget), term, output, syscall, oom (once an OOM kill is counted): reap,
 * then -> KILLING for that reason unless the program has ended meanwhile.
 * kill-more, sweep: kill the leftovers again (sweep: -> ENDED once none is
 * left; ENDED tells the FIFOs). grace: -> GRACE. sig-*: mark proctord
 * interrupted; sig-pass passes the signal on to the program's tree
 * (-> SIGNALED, the grace armed unless a client's runs already),
 * sig-cut ends the grace (-> KILLING), sig-kill kills the leftovers again
 * at once, sig-stop ends the loop. caller (--end-on-eof: the caller has
 * closed its end): -> GRACE, as a terminating wait nobody reads, and
 * proctord is interrupted; mark: interrupted (the loop stops at the end);
 * halt: the loop stops now.
 * report: -> REPORTED, the --report file is written. stop: -> DONE.
 * With --end-fd, ended (once in ENDED) and kick also announce the end when
 * the output is delivered: the report (-> REPORTED), one byte on the
 * descriptor, then -> DONE, as a terminating wait's answer would.
 *
 * The FIFOs compose answers from the state and change nothing of it (the
 * figures they take update only the measurement's own records); an answer
 * that must see fresh state asks for it first with an event: answer (a
 * wait) reaps, so that a program that has just ended is seen as ended;
 * final (the terminating wait, once supervise_ready says it may be
 * answered) writes the report. DONE: ev_break lets the callbacks already
 * pending run; they only record.
 */
struct sv_action {
	void (*fn)(struct supervisor *s);
	const char *name;
};

/* A table reads best as one: clang-format would spread it out. */
// clang-format off
#define A(fn, name) {supervise_##fn, name}
#define REAP A(reap, "reap")
#define EXEC A(check_exec, "exec")
#define COUNT A(oom_count, "count")
#define MARK A(sig_mark, "mark")
/* What RUNNING, GRACE and SIGNALED have in common. */
#define RUNNING_OR_GRACE                                \
	[SV_EV_CHILD] = REAP,                           \
	[SV_EV_MAIN_GONE] = A(main_ended, "ended"),     \
	[SV_EV_SETUP] = EXEC,                           \
	[SV_EV_WALL] = A(kill_wall, "wall"),            \
	[SV_EV_CPU] = A(cpu_check, "cpu"),              \
	[SV_EV_OOM] = A(oom, "oom"),                    \
	[SV_EV_OUTPUT_OVER] = A(kill_output, "output"), \
	[SV_EV_SYSCALL] = A(kill_syscall, "syscall"),   \
	[SV_EV_ANSWER] = REAP

static const struct sv_action supervise_actions[SV_N_STATES][SV_N_EVENTS] = {
	[SV_RUNNING] = {
		RUNNING_OR_GRACE,
		[SV_EV_SIGNAL] = A(sig_pass, "sig-pass"),
		[SV_EV_TERMINATE] = A(begin_grace, "grace"),
		[SV_EV_CALLER_GONE] = A(caller_gone, "caller"),
	},
	[SV_GRACE] = {
		RUNNING_OR_GRACE,
		[SV_EV_GRACE] = A(kill_term, "term"),
		[SV_EV_SIGNAL] = A(sig_pass, "sig-pass"),
		[SV_EV_CALLER_GONE] = MARK,
	},
	[SV_SIGNALED] = {
		RUNNING_OR_GRACE,
		[SV_EV_GRACE] = A(kill_term, "term"),
		[SV_EV_SIGNAL] = A(sig_cut, "sig-cut"),
		[SV_EV_CALLER_GONE] = MARK,
	},
	[SV_KILLING] = {
		[SV_EV_CHILD] = REAP,
		[SV_EV_MAIN_GONE] = A(main_ended, "ended"),
		[SV_EV_SETUP] = EXEC,
		[SV_EV_SWEEP] = A(kill_more, "kill-more"),
		[SV_EV_OOM] = COUNT,
		[SV_EV_SIGNAL] = A(sig_kill, "sig-kill"),
		[SV_EV_CALLER_GONE] = MARK,
		[SV_EV_ANSWER] = REAP,
	},
	[SV_SWEEPING] = {
		[SV_EV_CHILD] = REAP,
		[SV_EV_SETUP] = EXEC,
		[SV_EV_SWEEP] = A(sweep_more, "sweep"),
		[SV_EV_OOM] = COUNT,
		[SV_EV_SIGNAL] = A(sig_kill, "sig-kill"),
		[SV_EV_CALLER_GONE] = MARK,
	},
	[SV_ENDED] = {
		[SV_EV_CHILD] = REAP,
		[SV_EV_SETUP] = EXEC,
		[SV_EV_OOM] = COUNT,
		[SV_EV_OUTPUT_DONE] = A(kick, "kick"),
		[SV_EV_SIGNAL] = A(sig_stop, "sig-stop"),
		[SV_EV_CALLER_GONE] = A(sig_stop, "halt"),
		[SV_EV_FINAL] = A(report, "report"),
	},
	[SV_REPORTED] = {
		[SV_EV_CHILD] = REAP,
		[SV_EV_SETUP] = EXEC,
		[SV_EV_OOM] = COUNT,
		[SV_EV_SIGNAL] = A(sig_stop, "sig-stop"),
		[SV_EV_CALLER_GONE] = A(sig_stop, "halt"),
		[SV_EV_DELIVERED] = A(final_delivered, "stop"),
	},
	[SV_DONE] = {
		[SV_EV_CHILD] = REAP,
		[SV_EV_SETUP] = EXEC,
		[SV_EV_OOM] = COUNT,
		[SV_EV_SIGNAL] = A(sig_mark, "sig-mark"),
	},
};

#undef RUNNING_OR_GRACE
#undef MARK
#undef COUNT
#undef EXEC
#undef REAP
#undef A

/* An action may dispatch in turn (reap finds the main process gone; the
 * end kicks the FIFOs, which may ask for the final answer's event): each
 * dispatch reads the state as the previous action left it. */
static void supervise_dispatch(struct supervisor *s, enum sv_event ev)
{
	const struct sv_action *a = &supervise_actions[s->state][ev];

	if (a->fn)
		a->fn(s);
}

static const char *const supervise_state_names[SV_N_STATES] = {
	[SV_RUNNING] = "RUNNING",
	[SV_GRACE] = "GRACE",
	[SV_SIGNALED] = "SIGNALED",
	[SV_KILLING] = "KILLING",
	[SV_SWEEPING] = "SWEEPING",
	[SV_ENDED] = "ENDED",
	[SV_REPORTED] = "REPORTED",
	[SV_DONE] = "DONE",
};

static const char *const supervise_event_names[SV_N_EVENTS] = {
	[SV_EV_CHILD] = "child",
	[SV_EV_MAIN_GONE] = "main-gone",
	[SV_EV_SETUP] = "setup",
	[SV_EV_WALL] = "wall",
	[SV_EV_CPU] = "cpu",
	[SV_EV_GRACE] = "grace",
	[SV_EV_SWEEP] = "sweep",
	[SV_EV_OOM] = "oom",
	[SV_EV_OUTPUT_OVER] = "output-over",
	[SV_EV_OUTPUT_DONE] = "output-done",
	[SV_EV_SYSCALL] = "syscall",
	[SV_EV_SIGNAL] = "signal",
	[SV_EV_TERMINATE] = "terminate",
	[SV_EV_CALLER_GONE] = "caller-gone",
	[SV_EV_ANSWER] = "answer",
	[SV_EV_FINAL] = "final",
	[SV_EV_DELIVERED] = "delivered",
};
// clang-format on

const char *supervise_state_name(enum sv_state st)
{
	return st < SV_N_STATES ? supervise_state_names[st] : NULL;
}

const char *supervise_event_name(enum sv_event ev)
{
	return ev < SV_N_EVENTS ? supervise_event_names[ev] : NULL;
}

const char *supervise_action_name(enum sv_state st, enum sv_event ev)
{
	if (st >= SV_N_STATES || ev >= SV_N_EVENTS)
		return NULL;
	return supervise_actions[st][ev].fn ? supervise_actions[st][ev].name : "-";
}

/*
 * The event sources: each callback only says what happened.
 */

static void supervise_sigchld_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	supervise_dispatch(w->data, SV_EV_CHILD);
}

static void supervise_err_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	supervise_dispatch(w->data, SV_EV_SETUP);
}

static void supervise_wall_cb(struct ptimer *t)
{
	supervise_dispatch(t->data, SV_EV_WALL);
}

static void supervise_cpu_cb(struct ptimer *t)
{
	supervise_dispatch(t->data, SV_EV_CPU);
}

static void supervise_grace_cb(struct ptimer *t)
{
	supervise_dispatch(t->data, SV_EV_GRACE);
}

/* Whatever the state, the zombies first: the sweep looks for the living. */
static void supervise_sweep_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	supervise_dispatch(w->data, SV_EV_CHILD);
	supervise_dispatch(w->data, SV_EV_SWEEP);
}

/* The cgroup's memory.events changed (v2), or it ran out of memory (v1). */
static void supervise_oom_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	supervise_dispatch(w->data, SV_EV_OOM);
}

/* Time to read the OOM count again (supervise_oom). */
static void supervise_oom_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	supervise_dispatch(w->data, SV_EV_OOM);
}

static void supervise_output_exceeded(void *ctx)
{
	supervise_dispatch(ctx, SV_EV_OUTPUT_OVER);
}

static void supervise_output_done(void *ctx)
{
	supervise_dispatch(ctx, SV_EV_OUTPUT_DONE);
}

/* A process of the tree made a denied system call; it is stopped inside it. */
static void supervise_syscall_denied(void *ctx, const char *name)
{
	struct supervisor *s = ctx;

	s->denied = name;
	supervise_dispatch(s, SV_EV_SYSCALL);
	s->denied = NULL;
}

const int supervise_end_signals[SUPERVISE_N_END_SIGNALS] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};

void supervise_end_sigset(sigset_t *set)
{
	for (int i = 0; i < SUPERVISE_N_END_SIGNALS; i++)
		sigaddset(set, supervise_end_signals[i]);
}

static void supervise_signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct supervisor *s = w->data;

	log_warnx("received SIG%s: ending the program", sigabbrev_np(w->signum));
	s->signo = w->signum;
	if (!s->interrupt_signo)
		s->interrupt_signo = w->signum;
	supervise_dispatch(s, SV_EV_SIGNAL);
}

/* --end-on-eof: what the caller writes is read and thrown away; the end
 * (no writer left: the caller died or closed it) is the event, once. A
 * descriptor that fails is taken for an end too: nothing more would come. */
static void supervise_eof_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct supervisor *s = w->data;
	char buf[4096];
	int n = 0;

	if (ioctl(s->eof_fd, FIONREAD, &n) == 0 && n > 0) {
		if (read(s->eof_fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf) > 0)
			return;
	}
	ev_io_stop(loop, w);
	log_warnx("the caller's end (--end-on-eof) is closed: ending the program");
	supervise_dispatch(s, SV_EV_CALLER_GONE);
}

/*
 * The FIFOs' side: request and prepare are events; ready and compose only
 * read the state.
 */

static void supervise_request(void *ctx, const struct fifo_request *req)
{
	if (req->kind == REQUEST_TERMINATE)
		supervise_dispatch(ctx, SV_EV_TERMINATE);
}

/* A terminating wait is answered once the sandbox has ended and its output
 * is delivered. */
static int supervise_ready(void *ctx, const struct fifo_request *req)
{
	const struct supervisor *s = ctx;

	if (req->kind != REQUEST_TERMINATE)
		return 1;
	return s->state >= SV_ENDED && (!s->output || output_done(s->output));
}

static void supervise_prepare(void *ctx, const struct fifo_request *req)
{
	supervise_dispatch(ctx, req->kind == REQUEST_TERMINATE ? SV_EV_FINAL : SV_EV_ANSWER);
}

static void supervise_status(const struct supervisor *s, char *buf, size_t len)
{
	if (s->state < SV_KILLING) {
		struct outcome running = {.kind = OUTCOME_RUNNING};

		report_status_line(&running, &s->limits, buf, len);
	} else {
		report_status_line(&s->outcome, &s->limits, buf, len);
	}
}

static size_t supervise_compose(void *ctx, const struct fifo_request *req, char *buf, size_t len)
{
	struct supervisor *s = ctx;
	char status[REPORT_STATUS_MAX], line[REPORT_STATUS_MAX];
	uint64_t cpu, rss = 0;

	if (s->state < SV_KILLING) {
		measure_sample(&s->measure, &cpu, &rss);
	} else if (s->state < SV_ENDED) {
		/* The tree is being killed: its CPU still counts, but the
		 * status is final, so memory is 0. */
		measure_sample(&s->measure, &cpu, &rss);
		rss = 0;
	} else {
		cpu = s->final_cpu_us;
	}
	supervise_status(s, status, sizeof status);
	if (req->kind == REQUEST_INVALID) {
		report_invalid_line(req->garbage, req->garbage_len, status, line, sizeof line);
		return report_response(cpu, rss, line, buf, len);
	}
	return report_response(cpu, rss, status, buf, len);
}

static void supervise_delivered(void *ctx)
{
	supervise_dispatch(ctx, SV_EV_DELIVERED);
}

const struct fifo_ops supervise_fifo_ops = {
	.request = supervise_request,
	.ready = supervise_ready,
	.prepare = supervise_prepare,
	.compose = supervise_compose,
	.final_delivered = supervise_delivered,
};

static unsigned supervise_ncpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	return 1;
}

/* A supervise_init that fails leaves nothing of its own: the child's
 * descriptors and the listener's socket stay the caller's. Returns -1. */
static int supervise_init_undo(struct supervisor *s)
{
	int saved = errno;

	ptimer_close(&s->wall_timer);
	ptimer_close(&s->cpu_timer);
	ptimer_close(&s->grace_timer);
	free(s->sysfilter.notif);
	s->sysfilter.notif = NULL;
	s->sysfilter.loop = NULL;
	measure_free(&s->measure);
	errno = saved;
	return -1;
}

int supervise_init(struct supervisor *s, struct ev_loop *loop, const struct limits *l,
		   const struct spawn_child *child, struct fifo *fifo, struct cgroup *cg,
		   uint64_t start_us, struct output *output, int filter_sock)
{
	memset(s, 0, sizeof *s);
	s->loop = loop;
	s->limits = *l;
	s->child = *child;
	s->fifo = fifo;
	s->cg = cg;
	s->output = output;
	s->start_us = start_us;
	s->state = SV_RUNNING;
	s->end_fd = s->eof_fd = -1;
	s->ncpus = supervise_ncpus();
	measure_init(&s->measure, getpid(), cg);
	s->setup.known = 0;
	if (child->statusfd >= 0) {
		s->measure.init_pid = child->pid;
		/* The init says what the set-up took, on the set-up pipe. */
		s->measure.setup_pending = 1;
		s->setup.known = -1;
	}

	ev_signal_init(&s->sigchld, supervise_sigchld_cb, SIGCHLD);
	for (int i = 0; i < SUPERVISE_N_END_SIGNALS; i++) {
		ev_signal_init(&s->sigend[i], supervise_signal_cb, supervise_end_signals[i]);
		s->sigend[i].data = s;
	}
	ev_io_init(&s->err_io, supervise_err_cb, child->errfd, EV_READ);
	s->wall_timer.fd = s->cpu_timer.fd = s->grace_timer.fd = -1;
	if (ptimer_init(&s->wall_timer, loop, supervise_wall_cb, s) < 0 ||
	    ptimer_init(&s->cpu_timer, loop, supervise_cpu_cb, s) < 0 ||
	    ptimer_init(&s->grace_timer, loop, supervise_grace_cb, s) < 0)
		return supervise_init_undo(s);
	ev_timer_init(&s->sweep_timer, supervise_sweep_cb, SWEEP_INTERVAL, SWEEP_INTERVAL);
	ev_timer_init(&s->oom_timer, supervise_oom_timer_cb, OOM_RECHECK_FIRST, 0.);
	s->oom_timer.data = s;
	if (filter_sock >= 0 &&
	    sysfilter_watch_start(&s->sysfilter, loop, filter_sock, supervise_syscall_denied, s) < 0)
		return supervise_init_undo(s);
	if (output)
		output_start(output, supervise_output_exceeded, supervise_output_done, s);
	s->sigchld.data = s;
	s->err_io.data = s->sweep_timer.data = s->oom_io.data = s;
	if (cgroup_oom_watch_fd(cg) >= 0) {
		ev_io_init(&s->oom_io, supervise_oom_cb, cgroup_oom_watch_fd(cg), EV_READ);
		ev_io_start(loop, &s->oom_io);
	}

	ev_signal_start(loop, &s->sigchld);
	for (int i = 0; i < SUPERVISE_N_END_SIGNALS; i++)
		ev_signal_start(loop, &s->sigend[i]);
	ev_io_start(loop, &s->err_io);
	if (l->wall_time_us != UNITS_UNLIMITED) {
		/* Measured from the start, not from when the loop first runs. */
		uint64_t spent = now_us() - start_us;

		ptimer_arm(&s->wall_timer,
			   spent >= l->wall_time_us ? 0 : (l->wall_time_us - spent) * 1000u);
	}
	if (l->cpu_time_us != UNITS_UNLIMITED)
		ptimer_arm(&s->cpu_timer, l->cpu_time_us * 1000u / s->ncpus);
	return 0;
}

int supervise_start(struct supervisor *s)
{
	/* A child that died before the watchers existed: its SIGCHLD came
	 * before there was a watcher to take it. This may go as far as the
	 * end (--end-fd announced, the loop stopped), so the hooks must be
	 * in place and the loop not yet running: ev_run would forget an
	 * ev_break made before it. */
	supervise_dispatch(s, SV_EV_CHILD);
	if (s->state != SV_DONE && s->eof_fd >= 0) {
		ev_io_init(&s->eof_io, supervise_eof_cb, s->eof_fd, EV_READ);
		s->eof_io.data = s;
		ev_io_start(s->loop, &s->eof_io);
	}
	return s->state != SV_DONE;
}

void supervise_close(struct supervisor *s)
{
	ev_signal_stop(s->loop, &s->sigchld);
	/* libev unblocks a signal when its watcher stops: the caller has
	 * made them ignored first (a second SIGTERM must not cut the clean-up
	 * short). */
	for (int i = 0; i < SUPERVISE_N_END_SIGNALS; i++)
		ev_signal_stop(s->loop, &s->sigend[i]);
	ev_io_stop(s->loop, &s->err_io);
	if (s->child.statusfd >= 0)
		close(s->child.statusfd);
	if (cgroup_oom_watch_fd(s->cg) >= 0)
		ev_io_stop(s->loop, &s->oom_io);
	ptimer_close(&s->wall_timer);
	ptimer_close(&s->cpu_timer);
	ptimer_close(&s->grace_timer);
	ev_timer_stop(s->loop, &s->sweep_timer);
	ev_timer_stop(s->loop, &s->oom_timer);
	sysfilter_watch_close(&s->sysfilter);
	if (s->child.errfd >= 0)
		close(s->child.errfd);
	if (s->child.pidfd >= 0)
		close(s->child.pidfd);
	if (s->end_fd >= 0)
		close(s->end_fd);
	if (s->eof_fd >= 0) {
		ev_io_stop(s->loop, &s->eof_io);
		close(s->eof_fd);
	}
	measure_free(&s->measure);
}
