// SPDX-License-Identifier: ISC
// The status vocabulary: the outcome of the program from its wait status, its
// status line, the answer to a wait and to an invalid request.
#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "status.h"
#include "units.h"
#include "util.h"

const char *report_kill_reason_name(enum kill_reason r)
{
	return proto_kill_reason_name(r);
}

const char *report_stage_name(enum spawn_stage s)
{
	return proto_stage_name(s);
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
		units_format_size(o->output_hit == LIMIT_STDOUT	  ? l->stdout_limit
				  : o->output_hit == LIMIT_STDERR ? l->stderr_limit
								  : l->output_limit,
				  v, sizeof v);
		snprintf(buf, len, "%s limit of %s exceeded",
			 o->output_hit == LIMIT_STDOUT	 ? "stdout"
			 : o->output_hit == LIMIT_STDERR ? "stderr"
							 : "output",
			 v);
		break;
	case KILL_SYSCALL:
		/* The name alone: clients read it as the text's first word. */
		snprintf(buf, len, "%s", o->what[0] ? o->what : "unknown");
		break;
	case KILL_NONE:
	case KILL_PIDS: /* reserved: never decided by this version */
	case KILL_COUNT:
		snprintf(buf, len, "killed");
		break;
	}
}

/* --truncate-output: "stdout truncated at 1MiB", one clause per limit that
 * discarded bytes, after sep; nothing if none did. */
static void truncated_text(const struct outcome *o, const struct limits *l, const char *sep,
			   char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} cuts[] = {{LIMIT_OUTPUT, "output"}, {LIMIT_STDOUT, "stdout"}, {LIMIT_STDERR, "stderr"}};
	size_t used = strlen(buf);

	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0] && used + 1 < len; i++) {
		char v[32];
		int n;

		if (!(o->truncated & cuts[i].bit))
			continue;
		units_format_size(cuts[i].bit == LIMIT_STDOUT	? l->stdout_limit
				  : cuts[i].bit == LIMIT_STDERR ? l->stderr_limit
								: l->output_limit,
				  v, sizeof v);
		n = snprintf(buf + used, len - used, "%s%s truncated at %s", sep, cuts[i].name, v);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
		sep = ", ";
	}
}

void report_status_line(const struct outcome *o, const struct limits *l, char *buf, size_t len)
{
	char name[32], text[REPORT_STATUS_MAX];

	switch (o->kind) {
	case OUTCOME_RUNNING:
		snprintf(buf, len, "%s", proto_head_name(HEAD_RUNNING));
		break;
	case OUTCOME_EXITED:
		snprintf(buf, len, "%s %d", proto_head_name(HEAD_EXITED), o->code);
		break;
	case OUTCOME_SIGNALED: {
		const char *descr = sigdescr_np(o->code);

		if (!descr && o->code >= SIGRTMIN && o->code <= SIGRTMAX)
			descr = "real-time signal";

		report_signal_name(o->code, name, sizeof name);
		strlcpy(text, descr ? descr : "unknown signal", sizeof text);
		/* "Segmentation fault" reads as a clause after the colon. */
		text[0] = (char)tolower((unsigned char)text[0]);
		snprintf(buf, len, "%s %s: %s", proto_head_name(HEAD_SIGNALED), name, text);
		break;
	}
	case OUTCOME_KILLED:
		killed_text(o, l, text, sizeof text);
		snprintf(buf, len, "%s %s: %s", proto_head_name(HEAD_KILLED),
			 report_kill_reason_name(o->reason), text);
		break;
	case OUTCOME_FAILED:
		if (o->what[0])
			snprintf(buf, len, "%s %s: %s: %s", proto_head_name(HEAD_FAILED),
				 report_stage_name(o->stage), o->what, strerror(o->err));
		else
			snprintf(buf, len, "%s %s: %s", proto_head_name(HEAD_FAILED),
				 report_stage_name(o->stage), strerror(o->err));
		break;
	}
	/* Not after a denied call's name, which clients read as the text's
	 * first word. */
	if (o->truncated && (o->kind == OUTCOME_EXITED || o->kind == OUTCOME_SIGNALED ||
			     (o->kind == OUTCOME_KILLED && o->reason != KILL_SYSCALL)))
		truncated_text(o, l, o->kind == OUTCOME_EXITED ? ": " : "; ", buf, len);
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
	snprintf(buf, len, "%s: expected \"0\" or \"1\", got \"%s\"; program %s",
		 proto_head_name(HEAD_INVALID), shown, status);
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
