// SPDX-License-Identifier: ISC
// proctor run's verdict document: --json FILE or --json-fd N, never the
// program's stderr; proctord's report made a verdict, or an error document.
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "runjson.h"
#include "util.h"

int runjson_words(int argc, char **argv, int i)
{
	const char *a = argv[i];

	if (strcmp(a, "--json") == 0 || strcmp(a, "--json-fd") == 0)
		return i + 1 < argc ? 2 : 1;
	return strncmp(a, "--json=", 7) == 0 || strncmp(a, "--json-fd=", 10) == 0;
}

/* Descriptor N, open for writing. */
static int runjson_open_fd(struct runjson *j, const char *opt, const char *arg, int n, char *err,
			   size_t errlen)
{
	int fl = n >= 0 ? fcntl(n, F_GETFL) : -1;

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		snprintf(err, errlen, "%s %s: descriptor %d is not open for writing", opt, arg, n);
		return -1;
	}
	/* Not for proctord, nor for the program: 0, 1 and 2 are theirs
	 * already, as the caller chose. */
	if (n > 2 && fcntl(n, F_SETFD, FD_CLOEXEC) < 0) {
		snprintf(err, errlen, "%s %s: %s", opt, arg, strerror(errno));
		return -1;
	}
	j->fd = n;
	return 0;
}

/* FILE, made empty now: no old verdict survives a run that gives none. */
static int runjson_open_file(struct runjson *j, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		      0644);

	if (fd < 0) {
		snprintf(err, errlen, "--json %s: %s%s", path, strerror(errno),
			 errno == ELOOP ? " (a symbolic link is not followed: --json-fd N "
					  "writes to an open descriptor)"
					: "");
		return -1;
	}
	if (fstat(fd, &st) < 0 ||
	    (S_ISREG(st.st_mode) && st.st_uid == geteuid() && ftruncate(fd, 0) < 0))
		snprintf(err, errlen, "--json %s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(err, errlen,
			 "--json %s: not a regular file (--json-fd N writes to an open descriptor)",
			 path);
	else if (st.st_uid != geteuid())
		snprintf(err, errlen, "--json %s: belongs to uid %u, not to ours (%u)", path,
			 (unsigned)st.st_uid, (unsigned)geteuid());
	else
		goto opened;
	close(fd);
	return -1;
opened:
	j->path = path;
	j->fd = fd;
	j->own = 1;
	j->dev = st.st_dev;
	j->ino = st.st_ino;
	return 0;
}

int runjson_open(struct runjson *j, char **argv, int dd, char *err, size_t errlen)
{
	const char *opt = NULL, *arg = NULL;

	memset(j, 0, sizeof *j);
	j->fd = -1;
	for (int i = 1; i < dd; i++) {
		int words = runjson_words(dd, argv, i);
		const char *eq = strchr(argv[i], '=');

		if (!words)
			continue;
		if (opt) {
			snprintf(err, errlen, "%.*s: one --json FILE or --json-fd N only",
				 eq ? (int)(eq - argv[i]) : (int)strlen(argv[i]), argv[i]);
			return -1;
		}
		opt = strncmp(argv[i], "--json-fd", 9) == 0 ? "--json-fd" : "--json";
		arg = eq ? eq + 1 : words == 2 ? argv[++i] : NULL;
		/* "--json --cpu-time 1s" is no file named --cpu-time, and the
		 * bare --json of old (the verdict on stderr) is gone. */
		if (!arg || !*arg || (!eq && arg[0] == '-')) {
			snprintf(err, errlen,
				 "%s needs a %s: the verdict goes where nothing else writes "
				 "(--json-fd 2 for standard error, shared with the program)",
				 opt, strcmp(opt, "--json") == 0 ? "FILE" : "descriptor number N");
			return -1;
		}
	}
	if (!opt)
		return 0;
	if (strcmp(opt, "--json-fd") == 0) {
		char *end;
		long n;

		errno = 0;
		n = strtol(arg, &end, 10);
		if (arg[0] < '0' || arg[0] > '9' || *end || errno || n > 1 << 20) {
			snprintf(err, errlen, "--json-fd %s: not a descriptor number", arg);
			return -1;
		}
		return runjson_open_fd(j, opt, arg, (int)n, err, errlen);
	}
	if (fd_path_number(arg) >= 0)
		return runjson_open_fd(j, opt, arg, fd_path_number(arg), err, errlen);
	return runjson_open_file(j, arg, err, errlen);
}

/* The whole text, where FILE still is the file opened at the start: a
 * program that replaced it (FILE within its reach) gets no verdict
 * written into a file nobody reads, and the caller an error. */
static int runjson_write(struct runjson *j, const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text), done = 0;
	struct stat st;

	if (j->path && (fstatat(AT_FDCWD, j->path, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			st.st_dev != j->dev || st.st_ino != j->ino)) {
		snprintf(err, errlen, "--json %s: replaced while the program ran; no verdict there",
			 j->path);
		runjson_close(j); /* nor an error document */
		return -1;
	}
	while (done < len) {
		ssize_t n = write(j->fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* A non-blocking pipe that is full for now (descriptor
			 * N): its reader has 10 s to make room, no more. */
			struct pollfd pfd = {.fd = j->fd, .events = POLLOUT};

			int r = poll(&pfd, 1, 10000);

			if (r == 1 || (r < 0 && errno == EINTR))
				continue;
			errno = EAGAIN;
			n = -1;
		}
		if (n <= 0) {
			snprintf(err, errlen, "cannot write the verdict to %s: %s",
				 j->path ? j->path : "--json-fd",
				 n < 0 ? strerror(errno) : "nothing written");
			runjson_close(j);
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

static json_t *runjson_run(int code, const char *signal)
{
	return json_pack("{s:i, s:o}", "exit", code, "signal",
			 signal ? json_string(signal) : json_null());
}

int runjson_verdict(struct runjson *j, const char *report, int code, const char *signal,
		    char *err, size_t errlen)
{
	/* proctord's report is indented by two spaces a level, and no JSON
	 * string holds a raw newline: this is its top-level "type". Its
	 * figures go through as they are, above INT64_MAX too, which jansson
	 * cannot read back. */
	static const char type[] = "\n  \"type\": \"report\",";
	const char *t = strstr(report, type);
	json_t *run = runjson_run(code, signal);
	char *run_text = run ? json_dumps(run, JSON_SORT_KEYS) : NULL;
	char *text = NULL;
	int rc = -1;

	json_decref(run);
	if (report[0] != '{' || !t || !run_text) {
		snprintf(err, errlen, "proctord's report is not one of version %d",
			 PROTO_JSON_VERSION);
		goto out;
	}
	xasprintf(&text, "{\n  \"run\": %s,%.*s\"type\": \"verdict\",%s", run_text,
		  (int)(t + 3 - (report + 1)), report + 1, t + strlen(type));
	rc = runjson_write(j, text, err, errlen);
out:
	free(run_text);
	free(text);
	return rc;
}

void runjson_error(struct runjson *j, const char *stage, const char *message, int code,
		   const char *signal)
{
	json_t *o;
	char *text = NULL, err[4200];

	if (j->fd < 0)
		return;
	o = json_pack("{s:i, s:s, s:{s:s, s:s}, s:o}", "version", PROTO_JSON_VERSION, "type",
		      "error", "error", "stage", stage, "message", message, "run",
		      runjson_run(code, signal));
	/* A message that is not UTF-8 (a path from the command line). */
	if (!o)
		o = json_pack("{s:i, s:s, s:{s:s, s:s}, s:o}", "version", PROTO_JSON_VERSION,
			      "type", "error", "error", "stage", stage, "message",
			      "(not UTF-8: see standard error)", "run", runjson_run(code, signal));
	text = o ? json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	if (text) {
		char *line;

		xasprintf(&line, "%s\n", text);
		if (runjson_write(j, line, err, sizeof err) < 0)
			fprintf(stderr, "proctor: run: %s\n", err);
		free(line);
	}
	free(text);
}

void runjson_close(struct runjson *j)
{
	if (j->own && j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	j->own = 0;
}
