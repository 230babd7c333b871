// SPDX-License-Identifier: ISC
// Status lines and responses: the closed set of heads and their human texts.
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <stdlib.h>
#include <unistd.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "report.h"
#include "units.h"
#include "util.h"

static const char *const kill_reason_names[] = {
	[KILL_NONE] = "none",
	[KILL_CPU_TIME] = "cpu-time",
	[KILL_WALL_TIME] = "wall-time",
	[KILL_MEMORY] = "memory",
	[KILL_OUTPUT] = "output",
	[KILL_FILE_SIZE] = "file-size",
	[KILL_TERMINATE] = "terminate",
	[KILL_SYSCALL] = "syscall",
};

static const char *const stage_names[] = {
	[STAGE_SETUP] = "setup",   [STAGE_LIMITS] = "limits", [STAGE_STDIN] = "stdin",
	[STAGE_STDOUT] = "stdout", [STAGE_STDERR] = "stderr", [STAGE_CHDIR] = "chdir",
	[STAGE_EXEC] = "exec",
};

const char *report_kill_reason_name(enum kill_reason r)
{
	return kill_reason_names[r];
}

const char *report_stage_name(enum spawn_stage s)
{
	return stage_names[s];
}

void report_signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	/* Real-time signals have no abbreviation: named as kill -l and the
	 * shells name them, from the nearer end of the range. */
	int mid = SIGRTMIN + (SIGRTMAX - SIGRTMIN) / 2;

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else if (sig == SIGRTMIN)
		snprintf(buf, len, "SIGRTMIN");
	else if (sig > SIGRTMIN && sig <= mid)
		snprintf(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
	else if (sig > mid && sig < SIGRTMAX)
		snprintf(buf, len, "SIGRTMAX-%d", SIGRTMAX - sig);
	else if (sig == SIGRTMAX)
		snprintf(buf, len, "SIGRTMAX");
	else
		snprintf(buf, len, "SIG%d", sig);
}

void report_outcome_from_wait(struct outcome *o, int wstatus, enum kill_reason killed_for)
{
	memset(o, 0, sizeof *o);
	if (killed_for != KILL_NONE) {
		/* proctord killed the tree for a limit: that, not the signal, is
		 * the verdict, even if the program raced to exit on its own. */
		o->kind = OUTCOME_KILLED;
		o->reason = killed_for;
		/* The signal that ended it; 0 if it exited (an exit code is
		 * not a signal number). */
		o->code = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
		return;
	}
	if (WIFEXITED(wstatus)) {
		o->kind = OUTCOME_EXITED;
		o->code = WEXITSTATUS(wstatus);
		return;
	}
	o->code = WTERMSIG(wstatus);
	/* A limit the kernel enforces by signal is reported as the limit. */
	if (o->code == SIGXCPU) {
		o->kind = OUTCOME_KILLED;
		o->reason = KILL_CPU_TIME;
	} else if (o->code == SIGXFSZ) {
		o->kind = OUTCOME_KILLED;
		o->reason = KILL_FILE_SIZE;
	} else {
		o->kind = OUTCOME_SIGNALED;
	}
}

static void killed_text(const struct outcome *o, const struct limits *l, char *buf, size_t len)
{
	char v[32];

	switch (o->reason) {
	case KILL_CPU_TIME:
		units_format_duration(l->cpu_time_us, v, sizeof v);
		snprintf(buf, len, "CPU time limit of %s exceeded", v);
		break;
	case KILL_WALL_TIME:
		units_format_duration(l->wall_time_us, v, sizeof v);
		snprintf(buf, len, "wall-clock limit of %s exceeded", v);
		break;
	case KILL_FILE_SIZE:
		units_format_size(l->fsize, v, sizeof v);
		snprintf(buf, len, "file size limit of %s exceeded", v);
		break;
	case KILL_TERMINATE:
		units_format_duration(l->grace_us, v, sizeof v);
		snprintf(buf, len, "forced termination after %s grace", v);
		break;
	case KILL_MEMORY:
		snprintf(buf, len, "memory limit exceeded");
		break;
	case KILL_OUTPUT:
		units_format_size(l->output_limit, v, sizeof v);
		snprintf(buf, len, "output limit of %s exceeded", v);
		break;
	case KILL_SYSCALL:
		/* The name alone: clients read it as the text's first word. */
		snprintf(buf, len, "%s", o->what[0] ? o->what : "unknown");
		break;
	case KILL_NONE:
		snprintf(buf, len, "killed");
		break;
	}
}

void report_status_line(const struct outcome *o, const struct limits *l, char *buf, size_t len)
{
	char name[32], text[REPORT_STATUS_MAX];

	switch (o->kind) {
	case OUTCOME_RUNNING:
		snprintf(buf, len, "running");
		break;
	case OUTCOME_EXITED:
		snprintf(buf, len, "exited %d", o->code);
		break;
	case OUTCOME_SIGNALED: {
		const char *descr = sigdescr_np(o->code);

		if (!descr && o->code >= SIGRTMIN && o->code <= SIGRTMAX)
			descr = "real-time signal";

		report_signal_name(o->code, name, sizeof name);
		snprintf(text, sizeof text, "%s", descr ? descr : "unknown signal");
		/* "Segmentation fault" reads as a clause after the colon. */
		text[0] = (char)tolower((unsigned char)text[0]);
		snprintf(buf, len, "signaled %s: %s", name, text);
		break;
	}
	case OUTCOME_KILLED:
		killed_text(o, l, text, sizeof text);
		snprintf(buf, len, "killed %s: %s", report_kill_reason_name(o->reason), text);
		break;
	case OUTCOME_FAILED:
		if (o->what[0])
			snprintf(buf, len, "failed %s: %s: %s", report_stage_name(o->stage), o->what,
				 strerror(o->err));
		else
			snprintf(buf, len, "failed %s: %s", report_stage_name(o->stage),
				 strerror(o->err));
		break;
	}
	/* A status line is one line, whatever a path contained. */
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

void report_invalid_line(const char *garbage, size_t garbage_len, const char *status, char *buf,
			 size_t len)
{
	char shown[4 * 32 + 1];
	size_t j = 0;

	/* Echo the request back printable, so the line stays one line of text. */
	for (size_t i = 0; i < garbage_len && j + 5 < sizeof shown; i++) {
		unsigned char c = (unsigned char)garbage[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			shown[j++] = (char)c;
		else
			j += (size_t)snprintf(shown + j, sizeof shown - j, "\\x%02x", c);
	}
	shown[j] = '\0';
	snprintf(buf, len, "invalid: expected \"0\" or \"1\", got \"%s\"; program %s", shown, status);
}

size_t report_response(uint64_t cpu_us, uint64_t rss_bytes, const char *status, char *buf,
		       size_t len)
{
	int n = snprintf(buf, len, "%" PRIu64 "\n%" PRIu64 "\n%s\n", cpu_us, rss_bytes, status);

	if (n < 0)
		return 0;
	if ((size_t)n >= len) {
		/* Never cut the final newline: clients read lines. */
		buf[len - 2] = '\n';
		buf[len - 1] = '\0';
		return len - 1;
	}
	return (size_t)n;
}

static json_t *report_limit(uint64_t v)
{
	return v == UNITS_UNLIMITED ? json_null() : json_integer((json_int_t)v);
}

static json_t *report_status_json(const struct outcome *o, const struct limits *l)
{
	char line[REPORT_STATUS_MAX], name[32], head[REPORT_STATUS_MAX];
	static const char *const kinds[] = {
		[OUTCOME_RUNNING] = "running", [OUTCOME_EXITED] = "exited",
		[OUTCOME_SIGNALED] = "signaled", [OUTCOME_KILLED] = "killed",
		[OUTCOME_FAILED] = "failed",
	};
	const char *colon;
	json_t *st;

	report_status_line(o, l, line, sizeof line);
	colon = strstr(line, ": ");
	snprintf(head, sizeof head, "%.*s", colon ? (int)(colon - line) : (int)strlen(line), line);
	st = json_pack("{s:s, s:s, s:s, s:s?}", "line", line, "head", head, "kind", kinds[o->kind],
		       "text", colon ? colon + 2 : NULL);
	json_object_set_new(st, "exit_code",
			    o->kind == OUTCOME_EXITED ? json_integer(o->code) : json_null());
	if (o->kind == OUTCOME_SIGNALED || (o->kind == OUTCOME_KILLED && o->code > 0)) {
		report_signal_name(o->code, name, sizeof name);
		json_object_set_new(st, "signal", json_string(name));
	} else {
		json_object_set_new(st, "signal", json_null());
	}
	json_object_set_new(st, "reason",
			    o->kind == OUTCOME_KILLED ? json_string(report_kill_reason_name(o->reason))
						      : json_null());
	json_object_set_new(st, "stage",
			    o->kind == OUTCOME_FAILED ? json_string(report_stage_name(o->stage))
						      : json_null());
	json_object_set_new(st, "syscall",
			    o->kind == OUTCOME_KILLED && o->reason == KILL_SYSCALL
				    ? json_string(o->what[0] ? o->what : "unknown")
				    : json_null());
	return st;
}

int report_write_json(const char *path, const struct report_final *f, char *err, size_t errlen)
{
	const struct limits *l = f->limits;
	json_t *root, *limits, *sources, *unenforced, *isolation;
	char *tmp, *dircopy;
	int fd, rc = -1;

	limits = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}",
			   "cpu_time_us", report_limit(l->cpu_time_us), "wall_time_us",
			   report_limit(l->wall_time_us), "address_space_bytes",
			   report_limit(l->address_space), "fsize_bytes", report_limit(l->fsize),
			   "nofile", report_limit(l->nofile), "stack_bytes", report_limit(l->stack),
			   "memory_max_bytes", report_limit(l->memory_max), "memory_high_bytes",
			   report_limit(l->memory_high), "pids", report_limit(l->pids),
			   "cpus_milli", report_limit(l->cpus_milli), "grace_us",
			   (json_int_t)l->grace_us);
	json_object_set_new(limits, "output_bytes", report_limit(l->output_limit));
	isolation = json_pack("{s:b, s:b, s:b}", "new_session", f->new_session, "unshare_net",
			      f->unshare_net, "unshare_ipc", f->unshare_ipc);
	json_object_set_new(isolation, "user", f->user ? json_string(f->user) : json_null());
	json_object_set_new(isolation, "group", f->group ? json_string(f->group) : json_null());
	json_object_set_new(isolation, "uid", f->uid >= 0 ? json_integer(f->uid) : json_null());
	json_object_set_new(isolation, "gid", f->gid >= 0 ? json_integer(f->gid) : json_null());
	json_object_set_new(isolation, "seccomp",
			    f->seccomp ? json_string(f->seccomp) : json_null());
	/* Limits that were asked for and that nothing enforced. */
	unenforced = json_array();
	for (size_t i = 0; i < f->n_not_enforced; i++)
		json_array_append_new(unenforced, json_string(f->not_enforced[i]));
	sources = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "cpu",
		f->src_cpu ? f->src_cpu
			   : "rusage of every reaped process of the tree (exact once the tree has "
			     "ended)",
		"user_sys", f->src_cpu ? f->src_cpu : "rusage of every reaped process of the tree",
		"wall", "CLOCK_MONOTONIC from the start to the end of the program", "peak_memory",
		f->src_peak ? f->src_peak
			    : "largest of the /proc/PID/statm samples and of the reaped processes' "
			      "ru_maxrss",
		"oom_kills", f->src_oom ? f->src_oom : "not available without a memory cgroup",
		"tree_kill",
		f->src_kill ? f->src_kill
			    : "SIGKILL to every descendant found through /proc (proctord is a "
			      "subreaper)",
		"output_bytes",
		f->output_bytes != UNITS_UNLIMITED
			? "bytes the program wrote to stdout and stderr, counted in the pipes that "
			  "proctord drains (--output-limit)"
			: "not counted: without --output-limit the output passes straight to its "
			  "destination");
	root = json_pack("{s:i, s:o, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:b, s:o, s:o, "
			 "s:o, s:o}",
			 "version", 1, "status", report_status_json(f->outcome, l), "cpu_us",
			 (json_int_t)f->cpu_us, "user_us", (json_int_t)f->user_us, "sys_us",
			 (json_int_t)f->sys_us, "wall_us", (json_int_t)f->wall_us,
			 "peak_memory_bytes", (json_int_t)f->peak_memory, "oom_kills",
			 f->have_oom ? json_integer((json_int_t)f->oom_kills) : json_null(),
			 "output_bytes", report_limit(f->output_bytes), "pids_peak",
			 f->have_pids ? json_integer((json_int_t)f->pids_peak) : json_null(),
			 "pids_max_hits",
			 f->have_pids ? json_integer((json_int_t)f->pids_max_hits) : json_null(),
			 "interrupted", f->interrupted, "limits", limits, "not_enforced", unenforced,
			 "sources", sources, "isolation", isolation);
	if (!root) {
		snprintf(err, errlen, "cannot build the JSON report");
		return -1;
	}
	/* Beside the target, so that rename() is atomic: a reader sees the old
	 * report or the whole new one, never half of it. */
	dircopy = xstrdup(path);
	xasprintf(&tmp, "%s/.%s.XXXXXX", dirname(dircopy), strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fchmod(fd, 0644) < 0 || json_dumpfd(root, fd, JSON_INDENT(2) | JSON_SORT_KEYS) < 0 ||
	    write(fd, "\n", 1) != 1 || fsync(fd) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	free(tmp);
	free(dircopy);
	return rc;
}
