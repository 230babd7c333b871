// SPDX-License-Identifier: ISC
// proctord's command line: the options, --help, and the program's environment.
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cpuset.h"
#include "log.h"
#include "optexact.h"
#include "options.h"
#include "util.h"
#include "version.h"

enum {
	OPT_KEY = 1000, /* + index into config_keys */
	OPT_CONFIG = 256,
	OPT_PROFILE,
	OPT_CHECK,
	OPT_DAEMONIZE,
	OPT_TTY_FOREGROUND,
	OPT_END_FD,
	OPT_END_ON_EOF,
	OPT_REPORT_FD,
};

/* The bash completion (contrib/completion) reads the options from this text:
 * an option line is "  --name ARG  text", ARG in capitals when it takes one. */
static void options_usage(FILE *out)
{
	fprintf(out,
		"Usage: proctord [options] [--] program [args...]\n"
		"       proctord --check [options] [--] [program [args...]]\n"
		"\n"
		"Run one program under resource limits and answer waits on two FIFOs,\n"
		"DIR/wait and DIR/status: write 1 (keep running) or 0 (terminate) to wait,\n"
		"then read three lines from status: CPU µs, resident bytes, status.\n"
		"\n"
		"Configuration:\n"
		"  --config FILE        read limits and settings from FILE (proctor.conf(5))\n"
		"  --profile NAME       use profile [NAME] of the file (default: [default]\n"
		"                       if the file has one); options override the file\n"
		"  --check              print the settings, where each came from and what\n"
		"                       enforces it, tried as a start would (nothing is\n"
		"                       left), what a container changes, and what makes\n"
		"                       run times noisy; exit (--check --strict: 0 only if\n"
		"                       all is enforced, the readiness check of a pod)\n"
		"  --strict             a limit that cannot be honoured is an error\n"
		"  --report FILE        write a JSON summary to FILE at the end (a new file\n"
		"                       or a regular file of ours; - is stdout, /dev/fd/N\n"
		"                       an open descriptor)\n"
		"\n"
		"Sandbox:\n"
		"  --dir DIR            sandbox directory (created 0700 and removed at the end\n"
		"                       if missing; default: a fresh one under\n"
		"                       $XDG_RUNTIME_DIR or /tmp, printed on stdout);\n"
		"                       with --box, never inside DIR or a bind\n"
		"  --dir-mode MODE      octal mode of a directory proctord creates (0700)\n"
		"  --daemonize          run in the background; print the directory once the\n"
		"                       FIFOs exist and the program has started; the program's\n"
		"                       stdio then defaults to /dev/null\n"
		"  --grace DURATION     time a terminating wait gives the program to end by\n"
		"                       itself before the tree is killed (50ms)\n"
		"  --tty-foreground     when standard input, output or error is the terminal\n"
		"                       and proctord is in its foreground, give that to the\n"
		"                       program's process group (so it can read what is\n"
		"                       typed, and write with stty tostop); proctord takes\n"
		"                       it back at the end\n"
		"  --end-fd N           once the program has ended and the report is\n"
		"                       written, write one byte to inherited descriptor N,\n"
		"                       close it, and end without a terminating wait\n"
		"  --end-on-eof N       end as a terminating wait would (grace, kill, exit\n"
		"                       4) once no writer is left on inherited pipe or\n"
		"                       socket N: the caller that holds its other end died\n"
		"  --report-fd N        write the report to inherited descriptor N too,\n"
		"                       whatever becomes of --report FILE\n"
		"\n");
	/* A string a section: C99 compilers need take only 4095 characters
	 * in one. */
	fprintf(out,
		"Limits (whole tree unless noted; default unlimited):\n"
		"  --cpu-time DURATION  CPU time (user + system) of the whole tree\n"
		"  --wall-time DURATION wall-clock time since start\n"
		"  --address-space SIZE address space per process (RLIMIT_AS)\n"
		"  --fsize SIZE         size of any file written, per process (RLIMIT_FSIZE)\n"
		"  --nofile N           open descriptors per process (soft = hard)\n"
		"  --stack SIZE         stack size per process (RLIMIT_STACK), and what\n"
		"                       glibc reserves for each thread: it counts in\n"
		"                       --address-space, not in --memory-max\n"
		"  --output-limit SIZE  bytes written to stdout and stderr together: they\n"
		"                       pass through pipes proctord drains; at the limit the\n"
		"                       tree is killed (killed output), the bytes up to it\n"
		"                       delivered. A stream to /dev/null is not counted,\n"
		"                       nor a file the program opens: --fsize holds those\n"
		"  --stdout-limit SIZE  bytes written to stdout alone (likewise)\n"
		"  --stderr-limit SIZE  bytes written to stderr alone (likewise)\n"
		"  --truncate-output    at an output limit keep the bytes up to it, discard\n"
		"                       the rest and let the program go on (the status says\n"
		"                       exited N: stdout truncated at SIZE)\n");
	fprintf(out,
		"  --memory-max SIZE    memory of the tree, no swap (cgroup)\n"
		"  --memory-high SIZE   memory above which the tree is throttled (cgroup v2)\n"
		"  --pids N             processes and threads of the tree (cgroup; not root\n"
		"                       and without one: RLIMIT_NPROC in the program's user\n"
		"                       namespace; a box there: 512 by default)\n"
		"  --cpus CPUS          CPU bandwidth of the tree, 1.5 or 150%% (cgroup)\n"
		"  --cpuset CPUS        run the tree on these CPUs only, a list such as 1,\n"
		"                       0-3 or 0,2 (cpuset cgroup; else the affinity the\n"
		"                       child sets, which the program could widen again)\n"
		"  --cgroup MODE        cgroups to use: auto (v2, then v1 for the rest), v2,\n"
		"                       v1, or none (rlimits and /proc only). Without a\n"
		"                       cgroup, the cgroup limits above are a warning, or an\n"
		"                       error with --strict\n"
		"\n");
	fprintf(out,
		"Program:\n"
		"  --stdin FILE         standard input from FILE (a file or FIFO)\n"
		"  --stdout FILE        standard output to FILE (created or truncated; a\n"
		"                       FIFO waits for its reader)\n"
		"  --stderr FILE        standard error to FILE (likewise)\n"
		"                       /dev/fd/N in these three is descriptor N that\n"
		"                       proctord inherited, used as it is\n"
		"  --stderr-to-stdout   standard error to where standard output goes, counted\n"
		"                       once, as stdout\n"
		"  --chdir DIR          working directory\n"
		"  --env NAME=VALUE     set a variable; --env NAME passes proctord's own\n"
		"  --clear-env          start from an empty environment (default: proctord's;\n"
		"                       in a box PATH, HOME=/box, LANG=C.UTF-8, TMPDIR=/tmp)\n"
		"\n");
	fprintf(out,
		"Isolation (off unless asked for):\n"
		"  --user USER          run the program as USER (name or uid; root only),\n"
		"                       with USER's group and no supplementary groups\n"
		"  --group GROUP        ... and as GROUP (name or gid; root only)\n"
		"  --no-root            refuse to run the program as root\n"
		"  --new-session        a session of its own (setsid): no TIOCSTI into the\n"
		"                       caller's terminal\n"
		"  --unshare-net        a network namespace of its own: only a loopback,\n"
		"                       down, so no connection anywhere (root only)\n"
		"  --unshare-ipc        System V IPC and POSIX queues of its own (root only)\n"
		"  --seccomp            deny keyctl, io_uring, ptrace, mounts, module and\n"
		"                       kexec loading, AF_VSOCK sockets, personality changes\n"
		"                       and more: a denied call ends the tree (killed syscall:\n"
		"                       NAME)\n"
		"  --seccomp-errno      the same list, but a denied call fails with EPERM\n"
		"                       and the program goes on (implies --seccomp)\n"
		"\n");
	fprintf(out,
		"Box (containment; as root, else through a user namespace, as root\n"
		"without CAP_SYS_ADMIN too):\n"
		"  --box DIR            run the program in its own root and mount, PID, IPC,\n"
		"                       UTS and network namespaces: read-only /usr (and\n"
		"                       /bin, /lib...), the loader's and the JVM's files of\n"
		"                       /etc, a minimal /dev, its own /proc, a private /tmp,\n"
		"                       and DIR read-write at /box, its working directory;\n"
		"                       no capability there, even as root; a session of its\n"
		"                       own, no TIOCSTI nor key rings. The program is found\n"
		"                       in the box: a host path outside it is refused.\n"
		"                       As root, DIR is the program's uid's for the run\n"
		"                       (unless mode u-w), handed back as it was at the end\n"
		"  --tmp-size SIZE      size of the box's /tmp and /dev/shm (64MiB)\n"
		"  --ro-bind SRC[:DST]  more of the host in the box, read-only (repeatable);\n"
		"                       both absolute; DST below /box or a bind must exist\n"
		"                       already; it replaces what the box had at DST\n"
		"  --bind SRC[:DST]     ... read-write (repeatable)\n"
		"  --dev-bind SRC[:DST] ... read-only, its device nodes usable (repeatable)\n"
		"  --box-omit PATH      leave out what the box has at PATH and below, as\n"
		"                       /proc or /dev/shm (repeatable; plain names; never\n"
		"                       /box)\n"
		"  --share-net          keep the host's network in the box\n"
		"  --loopback           the box's own network's loopback up (127.0.0.1, ::1:\n"
		"                       the program reaches only itself, as in isolate's box)\n"
		"\n"
		"  -h, --help           this text\n"
		"  -V, --version        the version\n"
		"\n"
		"DURATION: a number with us, ms, s, m or h (seconds when bare), e.g. 1.5s.\n"
		"SIZE: a number with its unit: B, KiB, MiB, GiB, TiB (or K, M, G, T, the\n"
		"same), e.g. 256MiB; only 0 may be bare (isolate counts KiB: 262144KiB).\n"
		"KB..TB are refused (1000^n to some, 1024^n to Docker).\n"
		"Limits accept \"unlimited\"; 0 is refused where it would stop the program\n"
		"at once. An isolate option (-t, -m, --mem...) is refused with proctord's\n"
		"spelling of it.\n"
		"\n"
		"Exit status: 0 once the terminating wait has been answered (--check: all\n"
		"asked for can be honoured); 1 internal error; 2 usage or configuration\n"
		"error; 3 set-up failure (--check: something cannot be honoured); 4 ended\n"
		"by SIGTERM, SIGINT, SIGHUP or SIGQUIT: the first is passed on to the\n"
		"program and starts the grace, the second ends it. The protocol:\n"
		"proctor-protocol(7).\n");
}

struct cmdline_value {
	const struct config_key *key;
	const char *value;
	const char *opt;
};

/* getopt's table: the configuration keys, then proctord's own options. */
static const struct option *options_table(void)
{
	static struct option long_options[CONFIG_MAX_KEYS + 12];
	static char names[CONFIG_MAX_KEYS][32];
	size_t n = 0;

	/* Every configuration key is an option: memory_max is --memory-max. */
	for (const struct config_key *k = config_keys; k->name; k++, n++) {
		for (size_t i = 0; i < sizeof names[n] - 1 && k->name[i]; i++) {
			names[n][i] = k->name[i];
			if (names[n][i] == '_')
				names[n][i] = '-';
		}
		long_options[n] = (struct option){names[n],
						  k->type == CONFIG_BOOL ? no_argument
									 : required_argument,
						  NULL, OPT_KEY + (int)n};
	}
	long_options[n++] = (struct option){"config", required_argument, NULL, OPT_CONFIG};
	long_options[n++] = (struct option){"profile", required_argument, NULL, OPT_PROFILE};
	long_options[n++] = (struct option){"check", no_argument, NULL, OPT_CHECK};
	long_options[n++] = (struct option){"daemonize", no_argument, NULL, OPT_DAEMONIZE};
	long_options[n++] =
		(struct option){"tty-foreground", no_argument, NULL, OPT_TTY_FOREGROUND};
	long_options[n++] = (struct option){"end-fd", required_argument, NULL, OPT_END_FD};
	long_options[n++] = (struct option){"end-on-eof", required_argument, NULL, OPT_END_ON_EOF};
	long_options[n++] = (struct option){"report-fd", required_argument, NULL, OPT_REPORT_FD};
	long_options[n++] = (struct option){"help", no_argument, NULL, 'h'};
	long_options[n++] = (struct option){"version", no_argument, NULL, 'V'};
	long_options[n] = (struct option){NULL, 0, NULL, 0};
	return long_options;
}

/* isolate's options, for those who come from it: the hint after the usual
 * error says what proctord says instead. The value, where the user gave
 * one, goes between says and after, with the unit isolate meant. */
enum hint_value {
	HINT_NONE,    /* no value, or none put in */
	HINT_SECONDS, /* isolate's seconds: a bare number gets "s" */
	HINT_KIB,     /* isolate's KiB: a bare number gets "KiB" */
	HINT_SAME,    /* as it is */
};

static const struct isolate_hint {
	char short_name;       /* 0: none */
	const char *long_name; /* isolate's */
	enum hint_value value;
	/* After "proctord says" (unless it is "proctord has none"), then the
	 * value or placeholder, then after. */
	const char *says;
	const char *placeholder;
	const char *after;
} isolate_hints[] = {
	{'t', "time", HINT_SECONDS, "--cpu-time ", "DURATION", NULL},
	{'w', "wall-time", HINT_SECONDS, "--wall-time ", "DURATION", NULL},
	{'x', "extra-time", HINT_NONE, "proctord has none: a limit ends the program when it is reached",
	 NULL, NULL},
	{'m', "mem", HINT_KIB, "--address-space ", "SIZE",
	 " (isolate counts KiB; a size here needs its unit)"},
	{'k', "stack", HINT_KIB, "--stack ", "SIZE", NULL},
	{'f', "fsize", HINT_KIB, "--fsize ", "SIZE", NULL},
	{'p', "processes", HINT_SAME, "--pids ", "N", NULL},
	{'n', "open-files", HINT_SAME, "--nofile ", "N", NULL},
	{'e', "full-env", HINT_NONE,
	 "proctord has none: outside a box the program gets proctord's environment; in a "
	 "box, --env NAME passes one variable on",
	 NULL, NULL},
	{'E', "env", HINT_SAME, "--env ", "NAME[=VALUE]", NULL},
	{'d', "dir", HINT_NONE,
	 "--ro-bind OUT:IN, or --bind OUT:IN for :rw (proctord's own --dir is its control "
	 "directory)",
	 NULL, NULL},
	{'c', "chdir", HINT_SAME, "--chdir ", "DIR", NULL},
	{'b', "box-id", HINT_NONE, "--box DIR: any directory of yours, at /box inside", NULL, NULL},
	{0, "cg", HINT_NONE, "proctord has none: it uses cgroups by default (--cgroup auto)",
	 NULL, NULL},
	{0, "cg-mem", HINT_KIB, "--memory-max ", "SIZE", NULL},
	{'i', "stdin", HINT_SAME, "--stdin ", "FILE", " (a path of the host)"},
	{'o', "stdout", HINT_SAME, "--stdout ", "FILE", " (a path of the host)"},
	{'r', "stderr", HINT_SAME, "--stderr ", "FILE", " (a path of the host)"},
	{'M', "meta", HINT_SAME, "--report ", "FILE", " (JSON)"},
	{0, "run", HINT_NONE, "proctord [options] -- PROGRAM [ARGS...]", NULL, NULL},
	{0, "init", HINT_NONE, "proctord has none: --box DIR takes a directory you made", NULL,
	 NULL},
	{0, "cleanup", HINT_NONE,
	 "proctord has none: nothing of a box outlives its program; DIR stays yours", NULL,
	 NULL},
	{0, NULL, HINT_NONE, NULL, NULL, NULL},
};

static void isolate_hint_print(const struct isolate_hint *h, const char *opt, size_t len,
			       const char *value)
{
	char buf[64];
	const char *v = h->placeholder;
	char *end = NULL;

	if (value && *value && *value != '-' && h->value != HINT_NONE) {
		v = value;
		/* A bare number: isolate's unit made explicit. */
		if (h->value != HINT_SAME && (strtod(value, &end), end && !*end) &&
		    strlen(value) < sizeof buf - 4) {
			snprintf(buf, sizeof buf, "%s%s", value,
				 h->value == HINT_SECONDS ? "s" : "KiB");
			v = buf;
		}
	}
	fprintf(stderr, "proctord: %.*s is isolate's ", (int)len, opt);
	if (opt[1] == '-')
		fprintf(stderr, "option");
	else
		fprintf(stderr, "--%s", h->long_name);
	fprintf(stderr, "; %s", strncmp(h->says, "proctord has", 12) ? "proctord says " : "");
	fprintf(stderr, "%s%s%s\n", h->says, v ? v : "", h->after ? h->after : "");
}

/* After the usual error for an unknown option: if it is isolate's, a line
 * with proctord's spelling. Reads argv as getopt_long does, up to the first
 * option it does not know. */
static void options_isolate_hint(int argc, char **argv, const struct option *long_options)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--") == 0 || a[0] != '-' || a[1] == '\0')
			return;
		if (a[1] == '-') {
			const char *eq = strchr(a, '=');
			size_t len = eq ? (size_t)(eq - a) : strlen(a);
			const struct option *o;

			for (o = long_options; o->name; o++)
				if (strlen(o->name) == len - 2 &&
				    strncmp(o->name, a + 2, len - 2) == 0)
					break;
			if (o->name) {
				i += o->has_arg == required_argument && !eq;
				continue;
			}
			for (const struct isolate_hint *h = isolate_hints; h->long_name; h++)
				if (strlen(h->long_name) == len - 2 &&
				    strncmp(h->long_name, a + 2, len - 2) == 0) {
					/* isolate's --processes takes only "=N". */
					isolate_hint_print(h, a, len,
							   eq			  ? eq + 1
							   : h->short_name == 'p' ? NULL
										  : next);
					return;
				}
			return;
		}
		for (const char *c = a + 1; *c; c++) {
			if (*c == 'h' || *c == 'V')
				continue;
			for (const struct isolate_hint *h = isolate_hints; h->long_name; h++)
				if (h->short_name == *c) {
					char opt[3] = {'-', *c, '\0'};

					isolate_hint_print(h, opt, 2,
							   c[1]			  ? c + 1
							   : h->short_name == 'p' ? NULL
										  : next);
					return;
				}
			return;
		}
	}
}

/* The configuration: the file's profile, then the options over it in the
 * order given (vals), validated. Exits on an error. */
static void options_configure(struct options *o, const struct cmdline_value *vals, size_t nvals)
{
	if (o->profile && !o->config_file)
		log_fatalx(EXIT_USAGE, "--profile %s: no --config file to take it from",
			   o->profile);
	if (o->config_file) {
		char err[2048];

		if (config_load(&o->cfg, o->config_file, o->profile, err, sizeof err) < 0)
			log_fatalx(EXIT_USAGE, "%s", err);
	}
	/* Options override the file, in the order given. */
	for (size_t i = 0; i < nvals; i++) {
		struct config_source src = {.origin = CONFIG_CMDLINE};
		const char *err = config_set(&o->cfg, vals[i].key, vals[i].value, &src);

		if (err)
			log_fatalx(EXIT_USAGE, "--%s %s: %s", vals[i].opt, vals[i].value, err);
	}
	{
		char err[1024];

		if (config_validate(&o->cfg, err, sizeof err) < 0)
			log_fatalx(EXIT_USAGE, "%s", err);
	}
}

void options_parse(int argc, char **argv, struct options *o)
{
	const struct option *long_options = options_table();
	struct cmdline_value *vals = NULL;
	size_t nvals = 0;
	int c;

	memset(o, 0, sizeof *o);
	config_init(&o->cfg);
	/* Exact names only: --daemon is not --daemonize. */
	if (optexact_check(argc, argv, "hV", long_options, "proctord", "proctord --help", stderr) <
	    0) {
		options_isolate_hint(argc, argv, long_options);
		exit(EXIT_USAGE);
	}
	/* "+": stop at the program, so its own options are left alone. */
	while ((c = getopt_long(argc, argv, "+hV", long_options, NULL)) != -1) {
		if (c >= OPT_KEY) {
			vals = xreallocarray(vals, nvals + 1, sizeof *vals);
			vals[nvals].key = &config_keys[c - OPT_KEY];
			vals[nvals].value = optarg ? optarg : "true";
			vals[nvals].opt = long_options[c - OPT_KEY].name;
			nvals++;
			continue;
		}
		switch (c) {
		case OPT_CONFIG:
			o->config_file = optarg;
			break;
		case OPT_PROFILE:
			o->profile = optarg;
			break;
		case OPT_CHECK:
			o->check = 1;
			break;
		case OPT_DAEMONIZE:
			o->daemonize = 1;
			break;
		case OPT_TTY_FOREGROUND:
			o->tty_foreground = 1;
			break;
		case OPT_END_FD:
			o->end_fd = optarg;
			break;
		case OPT_END_ON_EOF:
			o->end_on_eof = optarg;
			break;
		case OPT_REPORT_FD:
			o->report_fd = optarg;
			break;
		case 'h':
			free(vals);
			options_usage(stdout);
			exit(0);
		case 'V':
			free(vals);
			printf("proctord %s\n", PROCTOR_VERSION);
			exit(0);
		default:
			/* The options before it are parsed (LeakSanitizer: vals). */
			free(vals);
			options_isolate_hint(argc, argv, long_options);
			fprintf(stderr, "Try 'proctord --help'.\n");
			exit(EXIT_USAGE);
		}
	}
	options_configure(o, vals, nvals);
	free(vals);
	if (optind >= argc && !o->check)
		log_fatalx(EXIT_USAGE, "no program given; try 'proctord --help'");
	o->argv = argv + optind;
}

/* Set NAME=VALUE in env (replacing NAME); env is NULL-terminated, *n entries,
 * and owns its strings: entry is taken over. */
static char **env_set(char **env, size_t *n, char *entry)
{
	size_t klen = strcspn(entry, "=");

	for (size_t i = 0; i < *n; i++) {
		if (strncmp(env[i], entry, klen) == 0 && env[i][klen] == '=') {
			free(env[i]);
			env[i] = entry;
			return env;
		}
	}
	env = xreallocarray(env, *n + 2, sizeof(char *));
	env[(*n)++] = entry;
	env[*n] = NULL;
	return env;
}

void options_env_free(char **env)
{
	for (char **e = env; *e; e++)
		free(*e);
	free(env);
}

const char *const options_box_env[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/box", "LANG=C.UTF-8", "TMPDIR=/tmp", NULL,
};

char **options_env(const struct config *c)
{
	char **env = xcalloc(1, sizeof(char *));
	size_t n = 0;

	/* A box starts from a small environment of its own: the caller's
	 * (HOME, tokens, SSH_AUTH_SOCK, the judge's paths) is not the
	 * program's business; --env NAME passes one on. */
	if (c->box && !c->clear_env)
		for (size_t i = 0; options_box_env[i]; i++)
			env = env_set(env, &n, xstrdup(options_box_env[i]));
	if (!c->clear_env && !c->box)
		for (char **e = environ; *e; e++)
			/* systemd's notification socket is proctord's, not the
			 * program's: it could claim readiness or a main pid. */
			if (strncmp(*e, "NOTIFY_SOCKET=", 14) != 0)
				env = env_set(env, &n, xstrdup(*e));
	for (size_t i = 0; i < c->n_env; i++) {
		char *a = c->env[i];

		if (strchr(a, '=')) {
			env = env_set(env, &n, xstrdup(a));
		} else {
			const char *v = getenv(a);
			char *entry;

			if (!v)
				continue;
			xasprintf(&entry, "%s=%s", a, v);
			env = env_set(env, &n, entry);
		}
	}
	return env;
}

void options_warnings(const struct options *o)
{
	char err[3 * PATH_MAX];

	if (cpuset_check_config(&o->cfg, err, sizeof err) < 0)
		log_fatalx(EXIT_USAGE, "%s", err);
}
