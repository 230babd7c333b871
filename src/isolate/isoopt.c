// SPDX-License-Identifier: ISC
// isolate's command line, both dialects (2.x, and 1.8's --cg-timing), into struct iso_opts.
#include "isoopt.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_CG = 256,
	OPT_CG_MEM,
	OPT_CG_TIMING,
	OPT_NO_CG_TIMING,
	OPT_CLEANUP,
	OPT_INIT,
	OPT_RUN,
	OPT_VERSION,
	OPT_SHARE_NET,
	OPT_STDERR_TO_STDOUT,
	OPT_WAIT,
	OPT_SPECIAL_FILES,
	OPT_UNSUPPORTED,
};

/* isolate's own short options; its long ones, and 1.x's --cg-timing. */
static const char iso_short[] = "b:c:d:DeE:f:i:k:m:M:n:o:p::q:r:st:vw:x:";

static const struct option iso_long[] = {
    {"as-uid", 1, NULL, OPT_UNSUPPORTED},
    {"as-gid", 1, NULL, OPT_UNSUPPORTED},
    {"box-id", 1, NULL, 'b'},
    {"chdir", 1, NULL, 'c'},
    {"cg", 0, NULL, OPT_CG},
    {"cg-mem", 1, NULL, OPT_CG_MEM},
    {"cg-timing", 0, NULL, OPT_CG_TIMING},
    {"no-cg-timing", 0, NULL, OPT_NO_CG_TIMING},
    {"check-config", 0, NULL, OPT_UNSUPPORTED},
    {"cleanup", 0, NULL, OPT_CLEANUP},
    {"core", 1, NULL, OPT_UNSUPPORTED},
    {"dir", 1, NULL, 'd'},
    {"no-default-dirs", 0, NULL, 'D'},
    {"fsize", 1, NULL, 'f'},
    {"env", 1, NULL, 'E'},
    {"extra-time", 1, NULL, 'x'},
    {"full-env", 0, NULL, 'e'},
    {"inherit-fds", 0, NULL, OPT_UNSUPPORTED},
    {"init", 0, NULL, OPT_INIT},
    {"mem", 1, NULL, 'm'},
    {"meta", 1, NULL, 'M'},
    {"processes", 2, NULL, 'p'},
    {"quota", 1, NULL, 'q'},
    {"run", 0, NULL, OPT_RUN},
    {"share-net", 0, NULL, OPT_SHARE_NET},
    {"silent", 0, NULL, 's'},
    {"stack", 1, NULL, 'k'},
    {"open-files", 1, NULL, 'n'},
    {"print-cg-root", 0, NULL, OPT_UNSUPPORTED},
    {"special-files", 0, NULL, OPT_SPECIAL_FILES},
    {"stderr", 1, NULL, 'r'},
    {"stderr-to-stdout", 0, NULL, OPT_STDERR_TO_STDOUT},
    {"stdin", 1, NULL, 'i'},
    {"stdout", 1, NULL, 'o'},
    {"syscalls", 1, NULL, OPT_UNSUPPORTED},
    {"time", 1, NULL, 't'},
    {"tty-hack", 0, NULL, OPT_UNSUPPORTED},
    {"verbose", 0, NULL, 'v'},
    {"version", 0, NULL, OPT_VERSION},
    {"wait", 0, NULL, OPT_WAIT},
    {"wall-time", 1, NULL, 'w'},
    {NULL, 0, NULL, 0},
};

static int __attribute__((format(printf, 2, 3))) iso_fail(struct iso_opts *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->error, sizeof o->error, fmt, ap);
	va_end(ap);
	return -1;
}

/* isolate's opt_uint: a decimal that fits in an int. */
static int iso_uint(struct iso_opts *o, const char *s, long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return iso_fail(o, "Invalid numeric parameter: %s", s);
	if (v > INT_MAX)
		return iso_fail(o, "Numeric parameter out of range: %s", s);
	*out = (long)v;
	return 0;
}

/* Seconds as isolate reads them (atof, then whole milliseconds), but
 * strictly: "0.5", "10", "1e+06", "2.000000"; not "1s" nor "-1". */
static int iso_seconds(struct iso_opts *o, const char *s, long *ms)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d < 0)
		return iso_fail(o, "Invalid time in seconds: %s", s);
	if (d * 1000 > INT_MAX)
		return iso_fail(o, "Time out of range: %s", s);
	*ms = (long)(d * 1000);
	return 0;
}

/* A path inside the box as isolate keeps it: relative to the root, without
 * "..", "." or empty parts; written here as "/a/b". */
static int iso_inner_path(struct iso_opts *o, const char *s, size_t len, char out[4096])
{
	size_t n = 0;
	const char *p = s, *end = s + len;

	while (p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t part = (size_t)((slash ? slash : end) - p);

		if (part == 2 && p[0] == '.' && p[1] == '.')
			return iso_fail(o, "Invalid directory rule '%s': Invalid path", s);
		if (part && !(part == 1 && p[0] == '.')) {
			if (n + part + 2 > 4096)
				return iso_fail(o, "Invalid directory rule '%s': too long", s);
			out[n++] = '/';
			memcpy(out + n, p, part);
			n += part;
		}
		p += part + 1;
	}
	if (!n)
		return iso_fail(o, "Invalid directory rule '%s': Invalid path", s);
	out[n] = '\0';
	return 0;
}

/* isolate's dir flags; those proctor's box cannot carry are refused. */
static int iso_dir_flag(struct iso_opts *o, const char *arg, const char *opt, size_t len,
			unsigned *flags)
{
	static const struct {
		const char *name;
		unsigned flag;
	} known[] = {{"rw", ISO_DIR_RW},
		     {"noexec", ISO_DIR_NOEXEC},
		     {"maybe", ISO_DIR_MAYBE},
		     {"tmp", ISO_DIR_TMP},
		     {"dev", ISO_DIR_DEV},
		     {"fs", ISO_DIR_FS},
		     {"norec", ISO_DIR_NOREC}};

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (strlen(known[i].name) != len || strncmp(known[i].name, opt, len) != 0)
			continue;
		if (!known[i].flag)
			return iso_fail(
			    o,
			    "Directory rule '%s': option '%s' is not supported by proctor-isolate",
			    arg, known[i].name);
		*flags |= known[i].flag;
		return 0;
	}
	return iso_fail(o, "Invalid directory rule '%s': Unknown option '%.*s'", arg, (int)len,
			opt);
}

/* IN=TYPE:fs, a file system of its own at IN: proctor-isolate has what
 * proctord's box has, proc at /proc and tmpfs at /tmp and /dev/shm (each
 * the box's own), and refuses the rest: sysfs and devpts would show the
 * box the host's devices, cgroups and terminals, which it keeps out. */
static int iso_dir_fs(struct iso_opts *o, const char *arg, struct iso_dir *d, const char *eq,
		      const char *end)
{
	size_t len = eq ? (size_t)(end - eq - 1) : 0;
	const char *type = eq ? eq + 1 : "";

	if ((len == 4 && strncmp(type, "proc", 4) == 0 && strcmp(d->in, "/proc") == 0) ||
	    (len == 5 && strncmp(type, "tmpfs", 5) == 0 &&
	     (strcmp(d->in, "/tmp") == 0 || strcmp(d->in, "/dev/shm") == 0))) {
		memcpy(d->out, type, len);
		d->out[len] = '\0';
		d->flags = ISO_DIR_FS;
		return 0;
	}
	return iso_fail(o,
			"Directory rule '%s': proctor-isolate's 'fs' is proc at /proc and tmpfs at "
			"/tmp or /dev/shm only (the box's own; sysfs and devpts are kept out of it)",
			arg);
}

/* -d in=out[:opts], -d dir[:opts] (out = /dir), -d in= (removes the rule
 * for in, a default one too); a rule for the same inside path replaces the
 * earlier one, as in isolate. */
static int iso_dir(struct iso_opts *o, const char *arg)
{
	const char *colon = strchr(arg, ':'), *eq;
	size_t head = colon ? (size_t)(colon - arg) : strlen(arg);
	struct iso_dir d = {.flags = 0};
	size_t i;

	for (const char *p = colon; p;) {
		const char *next = strchr(p + 1, ':');
		size_t len = next ? (size_t)(next - p - 1) : strlen(p + 1);

		if (iso_dir_flag(o, arg, p + 1, len, &d.flags) < 0)
			return -1;
		p = next;
	}
	eq = memchr(arg, '=', head);
	if (iso_inner_path(o, arg, eq ? (size_t)(eq - arg) : head, d.in) < 0)
		return -1;
	if (eq && eq + 1 == arg + head) {
		if (strcmp(d.in, "/box") == 0)
			return iso_fail(o, "Directory rule '%s': proctor-isolate always has /box",
					arg);
		d.flags = ISO_DIR_REMOVE;
	} else if ((d.flags & ISO_DIR_DEV) && (d.flags & (ISO_DIR_RW | ISO_DIR_TMP))) {
		return iso_fail(o,
				"Directory rule '%s': 'dev' is supported read-only only by "
				"proctor-isolate",
				arg);
	} else if (d.flags & ISO_DIR_FS) {
		if (iso_dir_fs(o, arg, &d, eq, arg + head) < 0)
			return -1;
	} else if (d.flags & ISO_DIR_TMP) {
		if (eq)
			return iso_fail(o,
					"Invalid directory rule '%s': Temporary directory mounts "
					"do not have a right-hand side",
					arg);
		if (strcmp(d.in, "/tmp") != 0 && strcmp(d.in, "/dev/shm") != 0)
			return iso_fail(
			    o, "Directory rule '%s': 'tmp' is supported only for /tmp and /dev/shm",
			    arg);
	} else if (eq) {
		if (eq[1] != '/')
			return iso_fail(
			    o, "Invalid directory rule '%s': Right-hand side must start with '/'",
			    arg);
		if ((size_t)(arg + head - eq - 1) >= sizeof d.out)
			return iso_fail(o, "Invalid directory rule '%s': too long", arg);
		memcpy(d.out, eq + 1, (size_t)(arg + head - eq - 1));
	} else {
		memcpy(d.out, d.in, strlen(d.in) + 1);
	}
	for (i = 0; i < o->ndirs && strcmp(o->dirs[i].in, d.in) != 0; i++)
		;
	if (i == ISO_MAX_DIRS)
		return iso_fail(o, "Too many directory rules (at most %d)", ISO_MAX_DIRS);
	o->dirs[i] = d;
	if (i == o->ndirs)
		o->ndirs++;
	return 0;
}

static int iso_env(struct iso_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (eq == arg || !*arg)
		return iso_fail(o, "Invalid environment specified: %s", arg);
	if (o->nenv == ISO_MAX_ENV)
		return iso_fail(o, "Too many environment rules (at most %d)", ISO_MAX_ENV);
	o->env[o->nenv].arg = arg;
	o->env[o->nenv++].op = !eq ? ISO_ENV_INHERIT : eq[1] ? ISO_ENV_SET : ISO_ENV_REMOVE;
	return 0;
}

static int iso_command(struct iso_opts *o, enum iso_cmd cmd)
{
	if (o->cmd && o->cmd != cmd)
		return iso_fail(o, "Only one command is allowed.");
	o->cmd = cmd;
	return 0;
}

/* One option; optarg as getopt left it. */
static int iso_option(struct iso_opts *o, int c, const char *arg, const char *word)
{
	switch (c) {
	case 'b':
		return iso_uint(o, arg, &o->box_id);
	case 'c':
		o->chdir = arg;
		return 0;
	case 'd':
		return iso_dir(o, arg);
	case 'e':
		o->full_env = 1;
		return 0;
	case 'E':
		return iso_env(o, arg);
	case 'f':
		return iso_uint(o, arg, &o->fsize);
	case 'i':
		o->in = arg;
		return 0;
	case 'k':
		return iso_uint(o, arg, &o->stack);
	case 'm':
		return iso_uint(o, arg, &o->mem);
	case 'M':
		o->meta = arg;
		return 0;
	case 'n':
		return iso_uint(o, arg, &o->nofile);
	case 'o':
		o->out = arg;
		return 0;
	case 'p':
		if (!arg)
			return o->processes = 0, 0;
		return iso_uint(o, arg, &o->processes);
	case 'r':
		o->err = arg;
		o->stderr_to_stdout = 0;
		return 0;
	case 's':
		o->silent = 1;
		return 0;
	case 't':
		return iso_seconds(o, arg, &o->time_ms);
	case 'v':
		return 0; /* isolate's debugging chatter: none here */
	case 'w':
		return iso_seconds(o, arg, &o->wall_ms);
	case 'x':
		return iso_seconds(o, arg, &o->extra_ms);
	case OPT_CG:
		o->cg = 1;
		return 0;
	case OPT_CG_MEM:
		return iso_uint(o, arg, &o->cg_mem);
	/* proctor always times the whole tree; but only isolate 1.x takes
	 * --cg-timing (2.x refuses it): the caller speaks 1.x (judge0). */
	case OPT_CG_TIMING:
		o->v1 = 1;
		return 0;
	case OPT_SPECIAL_FILES: /* proctor leaves them in the box anyway */
		return 0;
	case OPT_SHARE_NET:
		o->share_net = 1;
		return 0;
	case OPT_STDERR_TO_STDOUT:
		o->err = NULL;
		o->stderr_to_stdout = 1;
		return 0;
	case OPT_WAIT:
		o->wait = 1;
		return 0;
	case OPT_INIT:
		return iso_command(o, ISO_INIT);
	case OPT_RUN:
		return iso_command(o, ISO_RUN);
	case OPT_CLEANUP:
		return iso_command(o, ISO_CLEANUP);
	case OPT_VERSION:
		return iso_command(o, ISO_VERSION);
	/* 1.x's, from judge0 with its per-process time limit: isolate then
	 * timed the main process alone (under judge0's `bash run.sh`, bash);
	 * proctor times the whole tree, stricter and what the limit means. */
	case OPT_NO_CG_TIMING:
		o->v1 = 1;
		return 0;
	case 'D':
		o->no_default_dirs = 1;
		return 0;
	case 'q':
	case OPT_UNSUPPORTED:
		return iso_fail(o, "%s is not supported by proctor-isolate", word);
	default:
		return iso_fail(o, "Unknown option or missing argument: %s", word);
	}
}

static void iso_defaults(struct iso_opts *o)
{
	memset(o, 0, sizeof *o);
	o->processes = 1;
	o->cg_mem = o->mem = o->stack = o->fsize = o->nofile = ISO_UNSET;
}

int iso_parse(int argc, char **argv, struct iso_opts *o)
{
	int c;

	iso_defaults(o);
	optind = 0; /* getopt's full reset: a unit test parses many lines */
	opterr = 0;
	for (;;) {
		int at = optind ? optind : 1;

		c = getopt_long(argc, argv, iso_short, iso_long, NULL);
		if (c < 0)
			break;
		if (iso_option(o, c, optarg, at < argc ? argv[at] : "?") < 0)
			return -1;
	}
	if (!o->cmd)
		return iso_fail(o, "Please specify an isolate command (e.g. --init, --run).");
	if (o->cg_mem != ISO_UNSET && !o->cg)
		return iso_fail(o, "Options related to control groups require --cg to be set.");
	if (o->cmd == ISO_RUN && optind >= argc)
		return iso_fail(o, "--run mode requires a command to run");
	if (o->cmd != ISO_RUN && optind < argc)
		return iso_fail(o, "This mode takes no parameters: %s", argv[optind]);
	o->argv = argv + optind;
	o->argc = argc - optind;
	return 0;
}
