// SPDX-License-Identifier: ISC
// Status lines and responses: the closed set of heads and their human texts.
#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "report.h"
#include "units.h"

static const char *const kill_reason_names[] = {
	[KILL_NONE] = "none",
	[KILL_CPU_TIME] = "cpu-time",
	[KILL_WALL_TIME] = "wall-time",
	[KILL_MEMORY] = "memory",
	[KILL_OUTPUT] = "output",
	[KILL_FILE_SIZE] = "file-size",
	[KILL_TERMINATE] = "terminate",
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

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
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
		o->code = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
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
		snprintf(buf, len, "output limit exceeded");
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

void report_invalid_line(const char *garbage, const char *status, char *buf, size_t len)
{
	char shown[4 * 32 + 1];
	size_t j = 0;

	/* Echo the request back printable, so the line stays one line of text. */
	for (size_t i = 0; garbage[i] && j + 5 < sizeof shown; i++) {
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
