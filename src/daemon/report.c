// SPDX-License-Identifier: ISC
// Status lines and responses: the closed set of heads and their human texts.
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "report.h"
#include "sbdir.h"
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
		units_format_size(l->output_limit, v, sizeof v);
		snprintf(buf, len, "output limit of %s exceeded", v);
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

static json_t *report_status_json(const struct outcome *o, const struct limits *l)
{
	char line[REPORT_STATUS_MAX], name[32], head[REPORT_STATUS_MAX];
	const char *colon;
	json_t *st;

	report_status_line(o, l, line, sizeof line);
	colon = strstr(line, ": ");
	snprintf(head, sizeof head, "%.*s", colon ? (int)(colon - line) : (int)strlen(line), line);
	st = json_pack("{s:s, s:s, s:s, s:s?}", "line", line, "head", head, "kind", proto_head_name((enum proto_head)o->kind),
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
	json_object_set_new(limits, "output_bytes", report_limit(l->output_limit));
	if (units_cpuset_empty(&l->cpuset)) {
		json_object_set_new(limits, "cpuset", json_null());
	} else {
		char cpus[4 * UNITS_CPUSET_MAX];

		units_format_cpuset(&l->cpuset, cpus, sizeof cpus);
		json_object_set_new(limits, "cpuset", json_string(cpus));
	}
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
	root = json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, "
			 "s:o, s:o}",
			 "version", 1, "status", report_status_json(f->outcome, l), "cpu_us",
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
	dumped = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	if (!dumped)
		return NULL;
	report_unmark(dumped);
	xasprintf(&text, "%s\n", dumped);
	free(dumped);
	return text;
}

/* What is at FILE may be replaced: nothing, or a regular file of ours. */
static int report_target_ok(struct report_file *r, char *err, size_t errlen)
{
	struct stat st;

	if (fstatat(r->dirfd, r->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen,
			 "%s is a symbolic link: a report replaces only a regular file of ours "
			 "(give /dev/fd/N for an open descriptor, - for standard output)",
			 r->path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen,
			 "%s is not a regular file: a report replaces only a regular file of ours "
			 "(give /dev/fd/N for an open descriptor, - for standard output)",
			 r->path);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "%s belongs to uid %u, not to proctord's uid %u: a report replaces only "
			 "a regular file of ours",
			 r->path, (unsigned)st.st_uid, (unsigned)geteuid());
		return -1;
	}
	return 0;
}

/* The temporary file, made now: unnamed where the file system allows it
 * (nothing is left behind if proctord is killed), else .FILE.XXXXXX. */
static int report_tmp_open(struct report_file *r, char *err, size_t errlen)
{
	r->fd = openat(r->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (r->fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		goto done;
	for (int tries = 0; tries < 100; tries++) {
		unsigned char b[6];

		if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
			break;
		free(r->tmpname);
		xasprintf(&r->tmpname, ".%s.%02x%02x%02x%02x%02x%02x", r->name, b[0], b[1], b[2],
			  b[3], b[4], b[5]);
		r->fd = openat(r->dirfd, r->tmpname,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (r->fd >= 0 || errno != EEXIST)
			break;
	}
done:
	if (r->fd < 0) {
		snprintf(err, errlen, "%s: cannot create a file beside it: %s", r->path,
			 strerror(errno));
		free(r->tmpname);
		r->tmpname = NULL;
		return -1;
	}
	/* 0644 whatever the umask, as a report always was. */
	if (fchmod(r->fd, 0644) < 0) {
		snprintf(err, errlen, "%s: chmod: %s", r->path, strerror(errno));
		return -1;
	}
	return 0;
}

int report_file_open(struct report_file *r, const char *path, char *err, size_t errlen)
{
	char *copy, *slash;
	int n;

	memset(r, 0, sizeof *r);
	r->fd = r->dirfd = -1;
	r->path = xstrdup(path);
	n = strcmp(path, "-") == 0 ? 1 : fd_path_number(path);
	if (n >= 0) {
		int fl = fcntl(n, F_GETFL);

		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
			snprintf(err, errlen, "%s: descriptor %d is not open for writing", path, n);
			goto fail;
		}
		r->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
		if (r->fd < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		return 0;
	}
	copy = xstrdup(path);
	slash = strrchr(copy, '/');
	r->name = xstrdup(slash ? slash + 1 : copy);
	if (slash)
		slash[slash == copy] = '\0';
	/* Another user's link on the way could lead to a file of ours (root's:
	 * any) in a directory the caller never meant. */
	r->dirfd = sbdir_open_links(slash ? copy : ".", path, err, errlen);
	if (r->dirfd < 0) {
		free(copy);
		goto fail;
	}
	free(copy);
	if (!r->name[0] || strcmp(r->name, ".") == 0 || strcmp(r->name, "..") == 0) {
		snprintf(err, errlen, "%s: not a file name", path);
		goto fail;
	}
	if (report_target_ok(r, err, errlen) < 0 || report_tmp_open(r, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	report_file_close(r);
	return -1;
}

int report_file_write(struct report_file *r, const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text), done = 0;

	while (done < len) {
		ssize_t n = write(r->fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "cannot write %s: %s", r->path,
				 n < 0 ? strerror(errno) : "nothing written");
			return -1;
		}
		done += (size_t)n;
	}
	if (r->dirfd < 0)
		return 0; /* in place */
	if (fsync(r->fd) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", r->path, strerror(errno));
		return -1;
	}
	if (!r->tmpname) {
		/* Give the unnamed file a name to rename: linkat can
		 * replace nothing. */
		char proc[64];

		snprintf(proc, sizeof proc, "/proc/self/fd/%d", r->fd);
		for (int tries = 0; tries < 100 && !r->tmpname; tries++) {
			unsigned char b[6];

			if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
				break;
			xasprintf(&r->tmpname, ".%s.%02x%02x%02x%02x%02x%02x", r->name, b[0],
				  b[1], b[2], b[3], b[4], b[5]);
			if (linkat(AT_FDCWD, proc, r->dirfd, r->tmpname, AT_SYMLINK_FOLLOW) < 0) {
				int again = errno == EEXIST;

				free(r->tmpname);
				r->tmpname = NULL;
				if (!again)
					break;
			}
		}
		if (!r->tmpname) {
			snprintf(err, errlen, "cannot write %s: %s", r->path, strerror(errno));
			return -1;
		}
	}
	/* Again: what is there may have changed while the program ran. */
	if (report_target_ok(r, err, errlen) < 0)
		return -1;
	if (renameat(r->dirfd, r->tmpname, r->dirfd, r->name) < 0) {
		snprintf(err, errlen, "cannot rename a temporary file to %s: %s", r->path,
			 strerror(errno));
		return -1;
	}
	free(r->tmpname);
	r->tmpname = NULL;
	return 0;
}

void report_file_close(struct report_file *r)
{
	if (r->dirfd >= 0 && r->tmpname)
		unlinkat(r->dirfd, r->tmpname, 0);
	if (r->fd >= 0)
		close(r->fd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->tmpname);
	free(r->name);
	free(r->path);
	memset(r, 0, sizeof *r);
	r->fd = r->dirfd = -1;
}
