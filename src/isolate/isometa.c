// SPDX-License-Identifier: ISC
// proctord's report made isolate's meta file, its stderr line and its exit status.
#include "isometa.h"

#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static long long iso_json_int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	double d = json_is_number(v) ? json_number_value(v) : 0;

	return d < 0 ? 0 : d > 9.2e18 ? (long long)9.2e18 : (long long)d;
}

/* "SIGSEGV" -> 11; 0 for a name this libc does not know. */
static int iso_signo(const char *name)
{
	if (!name || strncmp(name, "SIG", 3) != 0)
		return 0;
	for (int s = 1; s < NSIG; s++) {
		const char *abbrev = sigabbrev_np(s);

		if (abbrev && strcmp(abbrev, name + 3) == 0)
			return s;
	}
	return 0;
}

static const char *iso_json_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

int iso_outcome_read(const char *json, size_t len, struct iso_outcome *r)
{
	json_t *root = json_loadb(json, len, JSON_DECODE_INT_AS_REAL, NULL);
	json_t *st = json_object_get(root, "status");
	const char *kind = iso_json_str(st, "kind");
	int head = kind ? proto_head_parse(kind) : -1, v;

	memset(r, 0, sizeof *r);
	if (head != HEAD_EXITED && head != HEAD_SIGNALED && head != HEAD_KILLED &&
	    head != HEAD_FAILED) {
		json_decref(root);
		return -1;
	}
	r->head = (enum proto_head)head;
	r->exit_code = (int)iso_json_int(st, "exit_code");
	r->signo = iso_signo(iso_json_str(st, "signal"));
	v = iso_json_str(st, "reason") ? proto_kill_reason_parse(iso_json_str(st, "reason")) : -1;
	r->reason = v < 0 ? KILL_NONE : (enum kill_reason)v;
	v = iso_json_str(st, "stage") ? proto_stage_parse(iso_json_str(st, "stage")) : -1;
	r->stage = v < 0 ? STAGE_COUNT : (enum spawn_stage)v;
	snprintf(r->text, sizeof r->text, "%s",
		 iso_json_str(st, "text") ? iso_json_str(st, "text") : "");
	r->cpu_us = iso_json_int(root, "cpu_us");
	r->wall_us = iso_json_int(root, "wall_us");
	r->peak_bytes = iso_json_int(root, "peak_memory_bytes");
	r->oom_kills = iso_json_int(root, "oom_kills");
	r->max_rss_bytes = iso_json_int(root, "max_rss_bytes");
	r->csw_voluntary = iso_json_int(root, "csw_voluntary");
	r->csw_forced = iso_json_int(root, "csw_forced");
	json_decref(root);
	return 0;
}

/* A growing text in a fixed buffer; truncation only drops the tail. */
struct iso_buf {
	char *s;
	size_t len, cap;
};

static void __attribute__((format(printf, 2, 3))) iso_put(struct iso_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len + 1 >= b->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n < b->cap - b->len ? (size_t)n : b->cap - b->len - 1;
}

/* isolate's final_stats and cg_stats: max-rss in KiB (ru_maxrss), the
 * context switches, then the cgroup's figures. */
static void iso_stats(struct iso_buf *b, const struct iso_outcome *r, const struct iso_opts *o)
{
	long long cpu_ms = r->cpu_us / 1000, wall_ms = r->wall_us / 1000;

	iso_put(b, "time:%lld.%03lld\n", cpu_ms / 1000, cpu_ms % 1000);
	iso_put(b, "time-wall:%lld.%03lld\n", wall_ms / 1000, wall_ms % 1000);
	iso_put(b, "max-rss:%lld\n", r->max_rss_bytes >> 10);
	iso_put(b, "csw-voluntary:%lld\n", r->csw_voluntary);
	iso_put(b, "csw-forced:%lld\n", r->csw_forced);
	if (o->cg) {
		iso_put(b, "cg-mem:%lld\n", r->peak_bytes >> 10);
		if (r->oom_kills > 0)
			iso_put(b, "cg-oom-killed:1\n");
	}
}

/* isolate's err(): status and message in the meta file, the message on
 * stderr unless -s. Returns 1. */
static int iso_err(struct iso_buf *b, const struct iso_opts *o, char *line, size_t llen,
		   const char *status, const char *message)
{
	iso_put(b, "status:%s\nmessage:%s\n", status, message);
	if (!o->silent)
		snprintf(line, llen, "%s\n", message);
	return 1;
}

/* A limit proctord enforced by killing the tree: written as isolate's
 * keeper writes a kill (status, message, killed, then the figures). */
static int iso_meta_killed(struct iso_buf *b, const struct iso_outcome *r, const struct iso_opts *o,
			   char *line, size_t llen)
{
	const char *msg = r->reason == KILL_WALL_TIME ? "Time limit exceeded (wall clock)"
						      : "Time limit exceeded";

	iso_err(b, o, line, llen, "TO", msg);
	iso_put(b, "killed:1\n");
	iso_stats(b, r, o);
	return 1;
}

/* The program ended (by itself or by a signal): the figures, then the
 * checks isolate makes after the end, in its order. */
static int iso_meta_ended(struct iso_buf *b, const struct iso_outcome *r, const struct iso_opts *o,
			  char *line, size_t llen)
{
	long long cpu_ms = r->cpu_us / 1000, wall_ms = r->wall_us / 1000;
	char msg[64];
	int sig = r->head == HEAD_SIGNALED ? r->signo : SIGKILL;

	iso_stats(b, r, o);
	if (o->time_ms && cpu_ms > o->time_ms)
		return iso_err(b, o, line, llen, "TO", "Time limit exceeded");
	if (o->wall_ms && wall_ms > o->wall_ms)
		return iso_err(b, o, line, llen, "TO", "Time limit exceeded (wall clock)");
	if (r->head == HEAD_KILLED && r->reason == KILL_FILE_SIZE)
		sig = SIGXFSZ;
	if (r->head != HEAD_EXITED) {
		iso_put(b, "exitsig:%d\n", sig);
		snprintf(msg, sizeof msg, "Caught fatal signal %d", sig);
		return iso_err(b, o, line, llen, "SG", msg);
	}
	iso_put(b, "exitcode:%d\n", r->exit_code);
	if (r->exit_code) {
		snprintf(msg, sizeof msg, "Exited with error status %d", r->exit_code);
		return iso_err(b, o, line, llen, "RE", msg);
	}
	if (!o->silent)
		snprintf(line, llen, "OK (%lld.%03lld sec real, %lld.%03lld sec wall)\n",
			 cpu_ms / 1000, cpu_ms % 1000, wall_ms / 1000, wall_ms % 1000);
	return 0;
}

/* isolate's keeper on a signal of its own (SIGINT, SIGTERM...): the
 * program is killed, whatever it was doing. */
static int iso_meta_interrupted(struct iso_buf *b, const struct iso_outcome *r,
				const struct iso_opts *o, char *line, size_t llen)
{
	iso_put(b, "exitsig:%d\n", r->interrupt);
	iso_err(b, o, line, llen, "SG", "Interrupted");
	iso_put(b, "killed:1\n");
	iso_stats(b, r, o);
	return 1;
}

/* The program could not be executed. isolate's message is
 * execve("PROGRAM"): ERROR, where proctord says PROGRAM: ERROR. 2.x (and
 * 1.9 on) prints it and the child exits 127; 1.8, judge0's, makes it an
 * internal error (judge0 reads "Exec Format Error" from it). */
static int iso_meta_exec(struct iso_buf *b, const struct iso_outcome *r, const struct iso_opts *o,
			 char *line, size_t llen)
{
	const char *prog = o->argc > 0 ? o->argv[0] : "";
	size_t plen = strlen(prog);
	const char *why = r->text;
	char msg[1200];
	struct iso_outcome e = *r;

	if (strncmp(why, prog, plen) == 0 && strncmp(why + plen, ": ", 2) == 0)
		why += plen + 2;
	snprintf(msg, sizeof msg, "execve(\"%s\"): %s", prog, why);
	if (o->v1)
		return iso_meta_xx(msg, b->s, b->cap, line, llen);
	fprintf(stderr, "%s\n", msg);
	e.head = HEAD_EXITED;
	e.exit_code = 127;
	return iso_meta_ended(b, &e, o, line, llen);
}

int iso_meta_xx(const char *message, char *meta, size_t mlen, char *line, size_t llen)
{
	snprintf(meta, mlen, "status:XX\nmessage:%s\n", message);
	snprintf(line, llen, "%s\n", message);
	return 2;
}

int iso_meta(const struct iso_outcome *r, const struct iso_opts *o, char *meta, size_t mlen,
	     char *line, size_t llen)
{
	struct iso_buf b = {meta, 0, mlen};

	meta[0] = line[0] = '\0';
	if (r->interrupt)
		return iso_meta_interrupted(&b, r, o, line, llen);
	if (r->head == HEAD_FAILED && r->stage == STAGE_EXEC)
		return iso_meta_exec(&b, r, o, line, llen);
	if (r->head == HEAD_FAILED)
		return iso_meta_xx(r->text[0] ? r->text : "The program could not be started", meta,
				   mlen, line, llen);
	if (r->head == HEAD_KILLED && (r->reason == KILL_CPU_TIME || r->reason == KILL_WALL_TIME))
		return iso_meta_killed(&b, r, o, line, llen);
	return iso_meta_ended(&b, r, o, line, llen);
}
