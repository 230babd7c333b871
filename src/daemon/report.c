// SPDX-License-Identifier: ISC
// The JSON report (--report): the figures, limits, sources and isolation of a
// sandbox that has ended, as text. Figures above INT64_MAX are bare digits.
#include <inttypes.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "units.h"
#include "util.h"

/* jansson's integers are signed 64-bit. A figure above INT64_MAX is held as
 * a string that starts with a NUL, which no C string we put in the report
 * can contain; report_json_text replaces it by the bare digits. */
#define REPORT_U64_MARK "\"\\u0000u64:"

static json_t *report_u64(uint64_t v)
{
	char buf[32];
	int n;

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	n = snprintf(buf, sizeof buf, "%cu64:%" PRIu64, '\0', v);
	return json_stringn(buf, (size_t)n);
}

static json_t *report_limit(uint64_t v)
{
	return v == UNITS_UNLIMITED ? json_null() : report_u64(v);
}

/* The dumped text with every marked string "\u0000u64:DIGITS" turned into
 * DIGITS, in place. */
static void report_unmark(char *text)
{
	size_t mark = strlen(REPORT_U64_MARK);
	char *r = text, *w = text, *m;

	while ((m = strstr(r, REPORT_U64_MARK))) {
		size_t digits;

		memmove(w, r, (size_t)(m - r));
		w += m - r;
		r = m + mark;
		digits = strspn(r, "0123456789");
		memmove(w, r, digits);
		w += digits;
		r += digits + (r[digits] == '"');
	}
	memmove(w, r, strlen(r) + 1);
}

/* A string given by the caller (a user name), or null. */
static json_t *report_text(const char *s)
{
	char *safe;
	json_t *j;

	if (!s)
		return json_null();
	safe = utf8_escape(s);
	j = json_string(safe);
	free(safe);
	return j;
}

static json_t *report_status_json(const struct outcome *o, const struct limits *l)
{
	char raw[REPORT_STATUS_MAX], name[32], *line;
	const char *colon;
	json_t *st;

	/* "failed exec: PATH: ..." with a PATH that is not UTF-8. */
	report_status_line(o, l, raw, sizeof raw);
	line = utf8_escape(raw);
	colon = strstr(line, ": ");
	st = json_pack("{s:s, s:s%, s:s}", "line", line, "head", line,
		       colon ? (size_t)(colon - line) : strlen(line), "kind",
		       proto_head_name((enum proto_head)o->kind));
	json_object_set_new(st, "text", colon ? json_string(colon + 2) : json_null());
	free(line);
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
	json_object_set_new(st, "limit",
			    o->kind == OUTCOME_KILLED && proto_kill_reason_is_limit(o->reason)
				    ? json_string(report_kill_reason_name(o->reason))
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

/* What the report says of the output: the limits, each stream's count,
 * the truncation and where the counts come from. */
static void report_output_json(json_t *root, json_t *limits, json_t *sources,
			       const struct report_final *f)
{
	const struct limits *l = f->limits;

	json_object_set_new(limits, "output_bytes", report_limit(l->output_limit));
	json_object_set_new(limits, "stdout_bytes", report_limit(l->stdout_limit));
	json_object_set_new(limits, "stderr_bytes", report_limit(l->stderr_limit));
	json_object_set_new(limits, "truncate_output", json_boolean(l->truncate_output));
	json_object_set_new(root, "stdout_bytes", report_limit(f->stdout_bytes));
	json_object_set_new(root, "stderr_bytes", report_limit(f->stderr_bytes));
	json_object_set_new(root, "output_truncated",
			    f->output_truncated < 0 ? json_null() : json_boolean(f->output_truncated));
	json_object_set_new(
		sources, "output_bytes",
		json_string(f->output_bytes != UNITS_UNLIMITED
				    ? "bytes the program wrote to stdout and stderr, counted in the "
				      "pipes that proctord drains (--output-limit, --stdout-limit, "
				      "--stderr-limit); a stream to /dev/null or with no limit is not "
				      "counted"
				    : "not counted: without an output limit the output passes "
				      "straight to its destination"));
}

/* "interrupt_signal": the first ending signal proctord took ("SIGINT",
 * the terminal's ^C), or null: what proctor run exits 128 + N for. */
static void report_interrupt_json(json_t *root, int signo)
{
	char name[32];

	if (signo <= 0) {
		json_object_set_new(root, "interrupt_signal", json_null());
		return;
	}
	snprintf(name, sizeof name, "SIG%s", sigabbrev_np(signo));
	json_object_set_new(root, "interrupt_signal", json_string(name));
}

char *report_json_text(const struct report_final *f)
{
	const struct limits *l = f->limits;
	json_t *root, *limits, *sources, *unenforced, *isolation;
	char *dumped, *text;

	limits = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			   "cpu_time_us", report_limit(l->cpu_time_us), "wall_time_us",
			   report_limit(l->wall_time_us), "address_space_bytes",
			   report_limit(l->address_space), "fsize_bytes", report_limit(l->fsize),
			   "nofile", report_limit(l->nofile), "stack_bytes", report_limit(l->stack),
			   "memory_max_bytes", report_limit(l->memory_max), "memory_high_bytes",
			   report_limit(l->memory_high), "pids", report_limit(l->pids),
			   "cpus_milli", report_limit(l->cpus_milli), "grace_us",
			   report_u64(l->grace_us));
	if (units_cpuset_empty(&l->cpuset)) {
		json_object_set_new(limits, "cpuset", json_null());
	} else {
		char cpus[4 * UNITS_CPUSET_MAX];

		units_format_cpuset(&l->cpuset, cpus, sizeof cpus);
		json_object_set_new(limits, "cpuset", json_string(cpus));
	}
	isolation = json_pack("{s:b, s:b, s:b}", "new_session", f->new_session, "unshare_net",
			      f->unshare_net, "unshare_ipc", f->unshare_ipc);
	json_object_set_new(isolation, "user", report_text(f->user));
	json_object_set_new(isolation, "group", report_text(f->group));
	json_object_set_new(isolation, "uid", f->uid >= 0 ? json_integer(f->uid) : json_null());
	json_object_set_new(isolation, "gid", f->gid >= 0 ? json_integer(f->gid) : json_null());
	json_object_set_new(isolation, "seccomp",
			    f->seccomp ? json_string(f->seccomp) : json_null());
	/* Limits that were asked for and that nothing enforced. */
	unenforced = json_array();
	for (size_t i = 0; i < f->n_not_enforced; i++)
		json_array_append_new(unenforced, json_string(f->not_enforced[i]));
	sources = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:s}", "cpu",
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
			      "subreaper)");
	root = json_pack("{s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, "
			 "s:o, s:o}",
			 "version", PROTO_JSON_VERSION, "type", "report", "status", report_status_json(f->outcome, l), "cpu_us",
			 report_u64(f->cpu_us), "user_us", report_u64(f->user_us), "sys_us",
			 report_u64(f->sys_us), "wall_us", report_u64(f->wall_us),
			 "peak_memory_bytes", report_u64(f->peak_memory), "oom_kills",
			 f->have_oom ? report_u64(f->oom_kills) : json_null(),
			 "output_bytes", report_limit(f->output_bytes), "pids_peak",
			 f->have_pids ? report_u64(f->pids_peak) : json_null(),
			 "pids_max_hits",
			 f->have_pids ? report_u64(f->pids_max_hits) : json_null(),
			 "interrupted", f->interrupted, "limits", limits, "not_enforced", unenforced,
			 "sources", sources, "isolation", isolation);
	if (!root)
		return NULL;
	json_object_set_new(root, "max_rss_bytes", report_u64(f->max_rss));
	json_object_set_new(root, "csw_voluntary", report_u64(f->csw_voluntary));
	json_object_set_new(root, "csw_forced", report_u64(f->csw_forced));
	report_interrupt_json(root, f->interrupt_signo);
	report_output_json(root, limits, sources, f);
	dumped = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	if (!dumped)
		return NULL;
	report_unmark(dumped);
	xasprintf(&text, "%s\n", dumped);
	free(dumped);
	return text;
}
