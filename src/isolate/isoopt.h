// SPDX-License-Identifier: ISC
// isolate's command line (2.x as CMS passes it, 1.8 as judge0 does), parsed.
#ifndef PROCTOR_ISOOPT_H
#define PROCTOR_ISOOPT_H

#include <stddef.h>

enum iso_cmd { ISO_NONE, ISO_INIT, ISO_RUN, ISO_CLEANUP, ISO_VERSION };

/* A --dir rule's options. */
enum {
	ISO_DIR_RW = 1 << 0,
	ISO_DIR_NOEXEC = 1 << 1,
	ISO_DIR_MAYBE = 1 << 2,
	ISO_DIR_TMP = 1 << 3,
	ISO_DIR_NOREC = 1 << 4,	 /* what proctord's binds always are */
	ISO_DIR_REMOVE = 1 << 5, /* IN=: no rule, and proctord's box nothing at IN */
	ISO_DIR_DEV = 1 << 6,	 /* devices usable (proctord's --dev-bind, read-only) */
	ISO_DIR_SKIP = 1 << 7,	 /* iso_run's: a :maybe source that is not there */
	ISO_DIR_FS = 1 << 8,	 /* IN=TYPE:fs, the box's own (proc at /proc, tmpfs) */
};

struct iso_dir {
	char in[4096];	/* inside the box, absolute, no trailing slash */
	char out[4096]; /* on the host, absolute */
	unsigned flags;
};

/* -E rules, in order: NAME (inherit), NAME=VALUE (set), NAME= (remove). */
enum iso_env_op { ISO_ENV_INHERIT, ISO_ENV_SET, ISO_ENV_REMOVE };
struct iso_env {
	const char *arg; /* as given: NAME or NAME=VALUE */
	enum iso_env_op op;
};

#define ISO_MAX_DIRS 64
#define ISO_MAX_ENV 256
#define ISO_UNSET (-1L)

struct iso_opts {
	enum iso_cmd cmd;
	long box_id;
	int cg, silent, full_env, share_net, stderr_to_stdout, wait;
	int no_default_dirs; /* -D */
	int v1; /* isolate 1.x's dialect (--cg-timing given) */
	const char *meta, *in, *out, *err, *chdir;
	long time_ms, wall_ms, extra_ms;	/* 0: no limit (isolate's) */
	long cg_mem, mem, stack, fsize, nofile; /* KiB or a count; ISO_UNSET */
	long processes;				/* 1 unless -p; 0 = no limit */
	struct iso_dir dirs[ISO_MAX_DIRS];
	size_t ndirs;
	struct iso_env env[ISO_MAX_ENV];
	size_t nenv;
	char **argv; /* the program and its arguments (--run), NULL-ended */
	int argc;
	char error[512]; /* a usage error */
};

/* Parse argv as isolate's getopt_long does (GNU permutation, "--" ends the
 * options, -p's argument only glued). Returns 0, or -1 with o->error set.
 * Keeps pointers into argv. */
int iso_parse(int argc, char **argv, struct iso_opts *o);

#endif
