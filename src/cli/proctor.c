// SPDX-License-Identifier: ISC
// proctor: the command-line client: wait, stop, watch a sandbox, or run one program to its verdict.
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "optexact.h"
#include "proctor.h"
#include "proto.h"
#include "runcg.h"
#include "runjson.h"
#include "util.h"
#include "version.h"

/* Exit codes of proctor run, after the shells' and timeout(1)'s. */
enum {
	RUN_INTERNAL = 125,  /* proctor or proctord could not do the run */
	RUN_FAILED = 127,    /* failed STAGE: the program never ran */
	RUN_WALL_TIME = 124, /* as timeout(1) */
	RUN_SIGNAL_BASE = 128,
};

/* usleep is gone from POSIX; a signal may cut the sleep short, which is fine. */
static void sleep_us(uint64_t us)
{
	struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

/* The bash completion (contrib/completion) reads the commands and their
 * options from this text: "proctor CMD [--name ARG] ..." lines. */
/* Each command's usage, shown by "proctor CMD --help" and in the whole
 * usage of "proctor --help". */
static const struct command_help {
	const char *name, *synopsis, *text;
} command_help[] = {
	{"wait", "proctor wait [--json] [--timeout SECONDS] DIR",
	 "one wait call (\"1\"): print CPU µs, resident bytes and the status\n"
	 "(with --json, one JSON document: proctor-report(5))\n"},
	{"stop", "proctor stop [--json] [--timeout SECONDS] DIR",
	 "the terminating wait (\"0\"): print the final figures; proctord exits\n"},
	{"watch", "proctor watch [--interval SECONDS] DIR",
	 "a live view of CPU, CPU % of one core, memory and status, until the\n"
	 "program ends (the sandbox is left running)\n"},
	{"run", "proctor run [--json FILE] [--json-fd N] [proctord options] -- program [args...]",
	 "run one program to its end under proctord, with stdio passed through;\n"
	 "print the verdict on stderr (one line), or with --json FILE or\n"
	 "--json-fd N a JSON document there instead (proctor-report(5); stderr\n"
	 "stays the program's), also when there is no verdict (an error document)\n"
	 "and exit with: the program's exit code; 128+N for signal N; 124\n"
	 "wall-time; 152 cpu-time; 153 file-size or output; 159 syscall; 137\n"
	 "other kills; 127 failed start; 125 when proctor or proctord could not\n"
	 "run it (a usage error included). --json and --json-fd may stand\n"
	 "anywhere before --, and always take a value (--json-fd 2: stderr).\n"
	 "At a terminal, the program gets the terminal's foreground while it runs.\n"
	 "SIGINT, SIGTERM, SIGHUP: the first reaches the program and starts the\n"
	 "grace period, the second ends it and kills the tree; a killed program\n"
	 "then exits 128+N for that signal, the terminal's ^C (130) included.\n"},
};

static const char usage_common[] =
	"Clients serialise on DIR/lock and never wait longer than --timeout (5 s;\n"
	"a terminating wait adds 5 s for the grace period). Errors exit 1, usage 2.\n"
	"run starts $PROCTORD if set, else the proctord beside this proctor, else\n"
	"proctord on the PATH; its private directory is under $TMPDIR, else\n"
	"$XDG_RUNTIME_DIR, else /tmp.\n";

static void usage(FILE *out)
{
	fprintf(out, "Usage:");
	for (size_t i = 0; i < sizeof command_help / sizeof command_help[0]; i++)
		fprintf(out, "%s%s\n", i ? "       " : " ", command_help[i].synopsis);
	fprintf(out, "\n");
	for (size_t i = 0; i < sizeof command_help / sizeof command_help[0]; i++) {
		const char *t = command_help[i].text;

		/* The text indented under the command's name. */
		fprintf(out, "%-7s", command_help[i].name);
		for (const char *nl; (nl = strchr(t, '\n')); t = nl + 1)
			fprintf(out, "%s%.*s\n", t == command_help[i].text ? "" : "       ",
				(int)(nl - t), t);
	}
	fprintf(out, "\n%s", usage_common);
}

static void command_usage(const char *cmd, FILE *out)
{
	for (size_t i = 0; i < sizeof command_help / sizeof command_help[0]; i++)
		if (strcmp(command_help[i].name, cmd) == 0)
			fprintf(out, "Usage: %s\n\n%s\n%s", command_help[i].synopsis,
				command_help[i].text, usage_common);
}

/* A usage error of a command: one line naming what is wrong, and where the
 * command's usage is. Returns the exit status. */
static int __attribute__((format(printf, 3, 4)))
usage_error(const char *cmd, int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "proctor: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see 'proctor %s --help'\n", cmd);
	return code;
}

/* getopt_long's refusal of argv[optind - 1], in our words (opterr is 0). */
static int getopt_error(const char *cmd, int c, char **argv)
{
	const char *a = argv[optind - 1];

	if (c == ':')
		return usage_error(cmd, 2, "%s needs a value", a);
	if (optopt && strncmp(a, "--", 2) != 0)
		return usage_error(cmd, 2, "unknown option '-%c'", optopt);
	return usage_error(cmd, 2, "%s: unknown option or a value it does not take", a);
}

static json_t *json_str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

/* An answer's status line as proto/report.schema.json's status object, as
 * proctord's report has it (its "signal" of a kill aside, which an answer
 * does not carry). */
static json_t *status_json(const struct proctor_result *r)
{
	int reason = r->kind == PROCTOR_KILLED ? proto_kill_reason_parse(r->reason) : -1;
	/* A line that is not UTF-8 (a program's path), as the report has it. */
	char *line = utf8_escape(r->status), *head = utf8_escape(r->head),
	     *text = utf8_escape(r->text);
	json_t *st = json_pack("{s:s, s:s, s:s}", "line", line, "head", head, "kind",
			       proctor_kind_name(r->kind));

	json_object_set_new(st, "text", json_str_or_null(text));
	free(line);
	free(head);
	free(text);
	json_object_set_new(st, "exit_code",
			    r->kind == PROCTOR_EXITED ? json_integer(r->exit_code) : json_null());
	json_object_set_new(st, "signal",
			    r->kind == PROCTOR_SIGNALED ? json_string(r->signal) : json_null());
	json_object_set_new(st, "reason",
			    r->kind == PROCTOR_KILLED ? json_string(r->reason) : json_null());
	json_object_set_new(st, "limit",
			    reason >= 0 && proto_kill_reason_is_limit((enum kill_reason)reason)
				    ? json_string(r->reason)
				    : json_null());
	json_object_set_new(st, "stage",
			    r->kind == PROCTOR_FAILED ? json_string(r->reason) : json_null());
	json_object_set_new(st, "syscall", json_str_or_null(r->syscall));
	return st;
}

/* Returns 0, or -1 (said why) when its JSON could not be made. */
static int print_result(const struct proctor_result *r, int json)
{
	json_t *o;
	char *s;

	if (!json) {
		printf("%llu\n%llu\n%s\n", (unsigned long long)r->cpu_us,
		       (unsigned long long)r->memory_bytes, r->status);
		return 0;
	}
	/* jansson's integers are signed: a figure above INT64_MAX (292 000
	 * years of CPU, 8 EiB resident) would be printed as INT64_MAX. */
	o = json_pack("{s:i, s:s, s:I, s:I, s:o}", "version", PROTO_JSON_VERSION, "type", "answer",
		      "cpu_us", (json_int_t)(r->cpu_us > INT64_MAX ? INT64_MAX : r->cpu_us),
		      "memory_bytes",
		      (json_int_t)(r->memory_bytes > INT64_MAX ? INT64_MAX : r->memory_bytes),
		      "status", status_json(r));
	s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	if (!s) {
		fprintf(stderr, "proctor: cannot make the JSON of the answer: out of memory\n");
		return -1;
	}
	puts(s);
	free(s);
	return 0;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	/* "nan" compares false both ways: the range is checked positively,
	 * before the conversion to milliseconds in an int. */
	return errno || end == s || *end || !(*out >= 0 && *out <= 86400) ? -1 : 0;
}

/* The options of a command: exact names, "--help", our own messages.
 * Returns -1 to go on, else the exit status. */
static int command_options(const char *cmd, int argc, char **argv, const char *shortopts,
			   const struct option *opts)
{
	char help[32];

	snprintf(help, sizeof help, "proctor %s --help", cmd);
	opterr = 0;
	return optexact_check(argc, argv, shortopts + 2, opts, "proctor", help, stderr) < 0 ? 2 : -1;
}

static int cmd_wait(int argc, char **argv, int terminate)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *cmd = terminate ? "stop" : "wait";
	struct proctor_result r;
	double timeout = 5;
	int json = 0, c, rc;

	if ((rc = command_options(cmd, argc, argv, "+:hjt:", opts)) >= 0)
		return rc;
	while ((c = getopt_long(argc, argv, "+:hjt:", opts, NULL)) != -1) {
		if (c == 'h') {
			command_usage(cmd, stdout);
			return 0;
		} else if (c == 'j') {
			json = 1;
		} else if (c == 't') {
			if (parse_seconds(optarg, &timeout) < 0)
				return usage_error(cmd, 2,
						   "--timeout %s: not a number of seconds from 0 to 86400",
						   optarg);
		} else {
			return getopt_error(cmd, c, argv);
		}
	}
	if (optind != argc - 1)
		return usage_error(cmd, 2, optind == argc ? "no DIR given" : "one DIR only, not '%s'",
				   argv[argc - 1]);
	if (terminate)
		timeout += 5; /* the grace period and the kill */
	rc = proctor_wait(argv[optind], terminate, (int)(timeout * 1000), &r);
	if (rc == PROCTOR_ENOEXIT)
		print_result(&r, json); /* the final answer came all the same */
	if (rc != PROCTOR_OK) {
		fprintf(stderr, "proctor: %s: %s\n", argv[optind], proctor_strerror(rc));
		return 1;
	}
	return print_result(&r, json) < 0 ? 1 : 0;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int cmd_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{"interval", required_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct proctor_result r;
	uint64_t last_cpu = 0, last_t = 0;
	double interval = 0.25;
	int c, rc, tty = isatty(1);

	if ((rc = command_options("watch", argc, argv, "+:hi:", opts)) >= 0)
		return rc;
	while ((c = getopt_long(argc, argv, "+:hi:", opts, NULL)) != -1) {
		if (c == 'h') {
			command_usage("watch", stdout);
			return 0;
		}
		if (c != 'i')
			return getopt_error("watch", c, argv);
		if (parse_seconds(optarg, &interval) < 0 || interval < 0.01)
			return usage_error("watch", 2,
					   "--interval %s: not a number of seconds from 0.01 to 86400",
					   optarg);
	}
	if (optind != argc - 1)
		return usage_error("watch", 2,
				   optind == argc ? "no DIR given" : "one DIR only, not '%s'",
				   argv[argc - 1]);
	for (;;) {
		uint64_t t;
		int ended;

		rc = proctor_wait(argv[optind], 0, 5000, &r);
		t = mono_us();
		if (rc != PROCTOR_OK) {
			fprintf(stderr, "proctor: %s: %s\n", argv[optind], proctor_strerror(rc));
			return 1;
		}
		ended = r.kind != PROCTOR_RUNNING && r.kind != PROCTOR_INVALID;
		if (tty)
			fputs("\033[H\033[2J", stdout); /* home, clear */
		printf("%s\n  cpu     %10.3f s", argv[optind], (double)r.cpu_us / 1e6);
		/* A rate needs two views of a running program: none once it
		 * has ended, when the tree's CPU time stops growing. */
		if (!ended)
			printf("   %6.1f %% of one core",
			       last_t && t > last_t
				       ? 100.0 * (double)(r.cpu_us - last_cpu) / (double)(t - last_t)
				       : 0.0);
		printf("\n  memory  %10.1f MiB\n  status  %s\n",
		       (double)r.memory_bytes / (1024.0 * 1024.0), r.status);
		fflush(stdout);
		if (ended)
			return 0;
		last_cpu = r.cpu_us;
		last_t = t;
		sleep_us((uint64_t)(interval * 1e6));
	}
}

/* A signal's number from the name in a status line: SIGSEGV, SIGRTMIN+2,
 * SIGRTMAX-1, SIG33. 0 if unknown. */
static int run_signal_number(const char *name)
{
	char *end;
	long n = 0;

	if (strncmp(name, "SIG", 3) != 0)
		return 0;
	name += 3;
	for (int sig = 1; sig < NSIG; sig++) {
		const char *abbrev = sigabbrev_np(sig);

		if (abbrev && strcmp(name, abbrev) == 0)
			return sig;
	}
	if (strncmp(name, "RTMIN", 5) == 0 || strncmp(name, "RTMAX", 5) == 0) {
		int base = name[4] == 'N' ? SIGRTMIN : SIGRTMAX;

		if (name[5] == '\0')
			return base;
		if (name[5] != (base == SIGRTMIN ? '+' : '-') || name[6] < '0' || name[6] > '9')
			return 0;
		n = strtol(name + 6, &end, 10);
		n = base == SIGRTMIN ? base + n : base - n;
		return *end || n < SIGRTMIN || n > SIGRTMAX ? 0 : (int)n;
	}
	if (name[0] >= '1' && name[0] <= '9')
		n = strtol(name, &end, 10);
	return n > 0 && n < NSIG && !*end ? (int)n : 0;
}

static int run_exit_code(const struct proctor_result *r)
{
	switch (r->kind) {
	case PROCTOR_EXITED:
		return r->exit_code;
	case PROCTOR_SIGNALED:
		return RUN_SIGNAL_BASE + run_signal_number(r->signal);
	case PROCTOR_KILLED:
		switch (proto_kill_reason_parse(r->reason)) {
		case KILL_WALL_TIME:
			return RUN_WALL_TIME;
		case KILL_CPU_TIME:
			return RUN_SIGNAL_BASE + SIGXCPU;
		/* Wrote too much, to a file or through the output limit: what
		 * the kernel's own file size limit would have said. */
		case KILL_FILE_SIZE:
		case KILL_OUTPUT:
			return RUN_SIGNAL_BASE + SIGXFSZ;
		/* What seccomp's own kill would have said. */
		case KILL_SYSCALL:
			return RUN_SIGNAL_BASE + SIGSYS;
		default:
			return RUN_SIGNAL_BASE + SIGKILL;
		}
	case PROCTOR_FAILED:
		return RUN_FAILED;
	default:
		return RUN_INTERNAL;
	}
}

/* proctor run: proctord in the foreground as our child (so the program's
 * stdio is ours), in a private directory PRIV under $TMPDIR: proctord's
 * sandbox PRIV/box; its report goes to a memfd of ours (--report-fd N), so
 * no file is written, synced and renamed for it (--report PRIV/report.json
 * where there is no memfd), and a --report FILE of the caller's that cannot
 * be written does not lose the verdict. proctor makes no wait
 * call: proctord gets the write end of a pipe as --end-fd, writes one byte
 * there once the program has ended and the report is written, and ends by
 * itself; proctor blocks in read() until that byte or the end of the pipe
 * (proctord gone). The verdict comes from the report (wall time, peak
 * memory, user and system time), which proctord writes even when a signal
 * ended the run. */
struct run {
	char priv[4096], box[4096 + 8], report[4096 + 16];
	const char *user_report; /* --report FILE given: read that one */
	int report_fd;		  /* the memfd proctord writes the report into; -1 */
	struct runjson json;	  /* --json FILE, --json-fd N */
	int tty;		  /* descriptor 0, 1 or 2 is our terminal and we hold its
				   * foreground: that descriptor + 1; 0 */
	pid_t pid;		  /* proctord */
	int status;		  /* proctord's wait status, once reaped */
	int end_fd;		  /* the read end of proctord's --end-fd; -1 */
};

static volatile sig_atomic_t run_child, run_signal;

/* SIGINT, SIGTERM, SIGHUP: passed on to proctord, every one: proctord
 * passes the first on to the program and starts the grace, the second ends
 * the grace, the third kills what is left at once. A signal the terminal
 * sent to our process group (SI_KERNEL) has reached proctord already when
 * it shares our group (run_tty: it hands the terminal to the program);
 * otherwise proctord leads a group of its own, so that a signal sent to
 * ours (a shell's kill %1, timeout(1)) reaches it once, through us. */
static volatile sig_atomic_t run_tty;

static void run_on_signal(int sig, siginfo_t *si, void *ctx)
{
	int saved = errno;
	pid_t group;

	(void)ctx;
	if (!run_signal)
		run_signal = sig;
	if (run_child <= 0 || (run_tty && si->si_code == SI_KERNEL)) {
		errno = saved;
		return;
	}
	/* A SIGINT sent to us (kill -INT, not the terminal's ^C) where proctord
	 * shares the program's group: to that group, as ^C would, so that the
	 * program gets it too (proctord passes no SIGINT on there). */
	group = sig == SIGINT && run_tty ? getpgid(run_child) : -1;
	if (group > 0 && group != getpgrp())
		kill(-group, sig);
	else
		kill(run_child, sig);
	errno = saved;
}

static void run_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = run_on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* proctord dumps core on the terminal's ^\ if it wants to. */
	signal(SIGQUIT, SIG_IGN);
}

/* $PROCTORD; else the proctord beside this executable (the build tree's
 * src/, an installation's bin/); else proctord on the PATH. */
static const char *run_proctord_path(char *buf, size_t len)
{
	const char *env = getenv("PROCTORD");
	char *slash;
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", buf, len);
	if (n > 0 && (size_t)n < len) {
		buf[n] = '\0';
		slash = strrchr(buf, '/');
		if (slash && (size_t)(slash - buf) + sizeof "/proctord" <= len) {
			memcpy(slash, "/proctord", sizeof "/proctord");
			if (access(buf, X_OK) == 0)
				return buf;
		}
	}
	return "proctord";
}

/* A usage error of run's, or a run that could not start: on stderr, and
 * as an error document where --json asked for the verdict. Returns the
 * exit status. */
static int __attribute__((format(printf, 3, 4)))
run_error(struct run *run, const char *stage, const char *fmt, ...)
{
	char msg[4200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (strcmp(stage, "usage") == 0)
		usage_error("run", RUN_INTERNAL, "%s", msg);
	else
		fprintf(stderr, "proctor: run: %s\n", msg);
	runjson_error(&run->json, stage, msg, RUN_INTERNAL,
		      run_signal ? sigabbrev_np(run_signal) : NULL);
	return RUN_INTERNAL;
}

/* The options before "--": --json FILE, --json-fd N and --help are run's,
 * --dir and --daemonize refused (run owns the directory and the
 * foreground), the rest proctord's. Returns -1 to go on, else the exit
 * status; *first is the index of "--" (or of the program when no option
 * is given). */
static int run_options(int argc, char **argv, struct run *run, int *first)
{
	char err[4200];
	int dd = 1;

	while (dd < argc && strcmp(argv[dd], "--") != 0)
		dd++;
	if (argc > 1 && argv[1][0] != '-') {
		*first = 1; /* no options: the program */
		return -1;
	}
	for (int i = 1; i < dd; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			command_usage("run", stdout);
			return 0;
		}
	}
	/* First where the verdict goes, so that it says what else is wrong. */
	if (runjson_open(&run->json, argv, dd, err, sizeof err) < 0)
		return usage_error("run", RUN_INTERNAL, "%s", err);
	if (argc == 1 || dd >= argc - 1)
		return run_error(run, "usage",
				 dd == argc && argc > 1 ? "no '--' before the program"
							: "no program given");
	for (int i = 1; i < dd; i++) {
		const char *a = argv[i];
		size_t len = strcspn(a, "=");
		int words = runjson_words(dd, argv, i);

		if (words) {
			i += words - 1;
		} else if ((len == 5 && strncmp(a, "--dir", 5) == 0) ||
			   (len == 11 && strncmp(a, "--daemonize", 11) == 0) ||
			   (len == 8 && strncmp(a, "--end-fd", 8) == 0) ||
			   (len == 11 && strncmp(a, "--report-fd", 11) == 0)) {
			return run_error(run, "usage", "%.*s cannot be used with run", (int)len, a);
		} else if (len == 8 && strncmp(a, "--report", 8) == 0) {
			run->user_report = a[8] == '=' ? a + 9 : i + 1 < dd ? argv[++i] : NULL;
		}
	}
	*first = dd;
	return -1;
}

/* The private directory PRIV, and where the report goes. $TMPDIR if set;
 * else the session's runtime directory, where FIFOs belong (a tmpfs:
 * creating a directory, two FIFOs and a lock file on ext4 took 38 us on a
 * quiet disk and 1.1 ms on a busy one, on tmpfs 15 us); else /tmp. Returns
 * 0 or -1 (said why). */
static int run_priv_make(struct run *run)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	if (!tmp || !*tmp) {
		tmp = getenv("XDG_RUNTIME_DIR");
		if (!tmp || tmp[0] != '/' || stat(tmp, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid() || access(tmp, W_OK) < 0)
			tmp = "/tmp";
	}
	if ((size_t)snprintf(run->priv, sizeof run->priv, "%s/proctor-run.XXXXXX", tmp) >=
	    sizeof run->priv - 32) {
		return run_error(run, "start", "TMPDIR is too long"), -1;
	}
	if (!mkdtemp(run->priv)) {
		return run_error(run, "start", "cannot make %s: %s", run->priv, strerror(errno)), -1;
	}
	snprintf(run->box, sizeof run->box, "%s/box", run->priv);
	/* Ours even beside a --report FILE, which the program may spoil (a
	 * directory in its place in DIR): the verdict comes from here. */
	run->report_fd = memfd_create("proctor-report", MFD_CLOEXEC);
	if (run->report_fd >= 0)
		snprintf(run->report, sizeof run->report, "%d", run->report_fd);
	else
		snprintf(run->report, sizeof run->report, "%s/report.json", run->priv);
	return 0;
}

/* proctord's command line into args (room for argc + 10). */
static void run_args(const struct run *run, char **args, int argc, char **argv, int first,
		     char *exe, size_t exe_len, const char *end_arg)
{
	size_t n = 0;

	args[n++] = (char *)run_proctord_path(exe, exe_len);
	args[n++] = "--dir";
	args[n++] = (char *)run->box;
	if (run->report_fd >= 0) {
		args[n++] = "--report-fd";
		args[n++] = (char *)run->report;
	} else if (!run->user_report) {
		args[n++] = "--report";
		args[n++] = (char *)run->report;
	}
	if (run->tty)
		args[n++] = "--tty-foreground";
	args[n++] = "--end-fd";
	args[n++] = (char *)end_arg;
	for (int i = 1; i < argc; i++) {
		int words = i < first ? runjson_words(first, argv, i) : 0;

		if (words)
			i += words - 1;
		else
			args[n++] = argv[i];
	}
	args[n] = NULL;
}

/* Make the private directory and start proctord in it. Returns 0 or -1
 * (said why; nothing left behind). */
static int run_start(struct run *run, int argc, char **argv, int first)
{
	char exe[4096], end_arg[16];
	pid_t parent = getpid();
	struct runcg cg;
	char **args;
	int end[2];

	if (run_priv_make(run) < 0)
		return -1;
	args = calloc((size_t)argc + 10, sizeof *args);
	if (!args || pipe2(end, O_CLOEXEC) < 0) {
		run_error(run, "start", "%s", strerror(errno));
		free(args);
		rmdir(run->priv);
		return -1;
	}
	snprintf(end_arg, sizeof end_arg, "%d", end[1]);
	run_args(run, args, argc, argv, first, exe, sizeof exe, end_arg);
	run_tty = run->tty;
	run_signals();
	/* Alone in a v2 cgroup (a container's first process): we step into a
	 * leaf, proctord goes back, alone, and may hand out controllers. */
	runcg_leave(&cg);
	run->pid = fork();
	if (run->pid < 0) {
		run_error(run, "start", "fork: %s", strerror(errno));
		runcg_close(&cg);
		free(args);
		close(end[0]);
		close(end[1]);
		rmdir(run->priv);
		return -1;
	}
	if (run->pid == 0) {
		/* proctord ends (cleanly: grace, kill, clean-up) with us. Our
		 * pid, not 1: as a container's first process we are 1. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(RUN_INTERNAL);
		if (!run->tty && setpgid(0, 0) < 0)
			_exit(RUN_INTERNAL);
		/* Where it cannot go back, proctord says which limits that
		 * costs (not_enforced). */
		(void)runcg_child_return(&cg);
		signal(SIGQUIT, SIG_DFL);
		/* proctord's end of the pipe is the only one left open, and
		 * the memfd for its report. */
		fcntl(end[1], F_SETFD, 0);
		if (run->report_fd >= 0)
			fcntl(run->report_fd, F_SETFD, 0);
		execvp(args[0], args);
		fprintf(stderr, "proctor: cannot run %s: %s\n", args[0], strerror(errno));
		_exit(RUN_INTERNAL);
	}
	runcg_close(&cg);
	free(args);
	close(end[1]);
	run->end_fd = end[0];
	run_child = run->pid;
	return 0;
}

/* Block until proctord says the sandbox has ended (1), or ends without
 * saying it (0: a set-up error, a signal, a crash). A signal we forward
 * restarts the read. */
static int run_await_end(struct run *run)
{
	char byte;
	ssize_t n;

	do
		n = read(run->end_fd, &byte, 1);
	while (n < 0 && errno == EINTR);
	close(run->end_fd);
	run->end_fd = -1;
	return n == 1;
}

/* proctord reaped (it has closed --end-fd: it ends by itself), and the
 * terminal back. */
static void run_reap(struct run *run)
{
	if (run->pid > 0) {
		while (waitpid(run->pid, &run->status, 0) < 0 && errno == EINTR)
			;
		run->pid = -1;
		run_child = 0;
	}
	if (run->tty && tcgetpgrp(run->tty - 1) != getpgrp()) {
		/* From the background: SIGTTOU would stop us. */
		sigset_t ttou, old;

		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		sigprocmask(SIG_BLOCK, &ttou, &old);
		if (tcsetpgrp(run->tty - 1, getpgrp()) < 0)
			fprintf(stderr, "proctor: run: cannot take the terminal back: %s\n",
				strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
}

/* Nothing left on disk: the box is proctord's to remove, but a proctord
 * killed outright cannot. */
static void run_remove(struct run *run)
{
	static const char *const names[] = {"lock", "wait", "status"};
	char path[4200];

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", run->box, names[i]);
		unlink(path);
	}
	rmdir(run->box);
	if (run->report_fd >= 0)
		close(run->report_fd);
	else if (!run->user_report)
		unlink(run->report);
	run->report_fd = -1;
	if (rmdir(run->priv) < 0)
		fprintf(stderr, "proctor: run: cannot remove %s: %s\n", run->priv, strerror(errno));
}

/* The verdict: the final answer's status, with the report's figures. */
struct run_verdict {
	struct proctor_result r;
	json_int_t user_us, sys_us, wall_us, peak; /* -1: no report */
	int interrupted;
	int interrupt_signo; /* the report's interrupt_signal (0: none) */
	char *report; /* the report's text (malloc'd) */
};

/* A figure of the report, read as a double (JSON_DECODE_INT_AS_REAL: a
 * limit above INT64_MAX is no error); -1 if missing. */
static json_int_t run_report_int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	double d = json_is_number(v) ? json_number_value(v) : -1;

	return d < 0 ? -1 : d >= 9.2e18 ? INT64_MAX : (json_int_t)d;
}

/* The report's text, in one read (jansson's json_loadfd reads a byte at a
 * time): our memfd (fd >= 0), else the file at path. NULL if none. */
static char *run_load_report(int fd, const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n = -1;
	int own = fd < 0;

	if (own)
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    st.st_size <= (1 << 20) && (buf = malloc((size_t)st.st_size + 1)))
		n = pread(fd, buf, (size_t)st.st_size, 0);
	if (own && fd >= 0)
		close(fd);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* Read the report proctord wrote at the end: our memfd (fd >= 0), else the
 * file at path; v->report keeps its text. Returns 0 or -1. */
static int run_read_report(int fd, const char *path, struct run_verdict *v)
{
	size_t len = 0;
	char *text = run_load_report(fd, path, &len);
	json_t *root = text ? json_loadb(text, len, JSON_DECODE_INT_AS_REAL, NULL) : NULL;
	json_t *line = json_object_get(json_object_get(root, "status"), "line");
	char answer[1100];
	int n, rc = -1;

	memset(v, 0, sizeof *v);
	v->user_us = v->sys_us = v->wall_us = v->peak = -1;
	if (json_is_string(line)) {
		n = snprintf(answer, sizeof answer, "%lld\n0\n%s\n",
			     (long long)run_report_int(root, "cpu_us"), json_string_value(line));
		if (n > 0 && (size_t)n < sizeof answer &&
		    proctor_parse(answer, (size_t)n, &v->r) == PROCTOR_OK &&
		    v->r.kind != PROCTOR_RUNNING && v->r.kind != PROCTOR_INVALID) {
			v->user_us = run_report_int(root, "user_us");
			v->sys_us = run_report_int(root, "sys_us");
			v->wall_us = run_report_int(root, "wall_us");
			v->peak = run_report_int(root, "peak_memory_bytes");
			v->interrupted = json_is_true(json_object_get(root, "interrupted"));
			line = json_object_get(root, "interrupt_signal");
			if (json_is_string(line))
				v->interrupt_signo = run_signal_number(json_string_value(line));
			v->report = text;
			text = NULL;
			rc = 0;
		}
	}
	json_decref(root);
	free(text);
	return rc;
}

/* The verdict of a reaped proctord. Returns 0, or -1 (said why) when there
 * is none. */
static int run_verdict(struct run *run, struct run_verdict *v)
{
	const char *report = run->user_report ? run->user_report : run->report;
	int st = run->status;

	/* Our memfd holds only what this proctord wrote, whatever its exit
	 * (1 when a --report FILE could not be written). A report file from
	 * a proctord that failed may be an old one. */
	if (run->report_fd >= 0 && run_read_report(run->report_fd, NULL, v) == 0)
		return 0;
	if (run->report_fd < 0 && WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 4) &&
	    run_read_report(-1, report, v) == 0)
		return 0;
	if (WIFSIGNALED(st))
		run_error(run, "proctord", "proctord was killed by SIG%s before the verdict",
			  sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?");
	else
		run_error(run, "proctord", "proctord exited %d before the verdict",
			  WEXITSTATUS(st));
	return -1;
}

/* The signal that interrupted the run: ours, else the one proctord took
 * (at a terminal the ^C reaches proctord and the program, not us). 0: none. */
static int run_interrupt(const struct run_verdict *v)
{
	return run_signal ? run_signal : v->interrupt_signo;
}

/* The verdict: a line on stderr, or with --json the report made a
 * verdict document. Returns the exit status. */
static int run_print(struct run *run, const struct run_verdict *v, int code)
{
	const struct proctor_result *r = &v->r;
	int sig = run_interrupt(v);
	char err[4200];

	if (run->json.fd >= 0) {
		if (runjson_verdict(&run->json, v->report, code, sig ? sigabbrev_np(sig) : NULL, err,
				    sizeof err) == 0)
			return code;
		return run_error(run, "proctord", "%s", err);
	}
	fprintf(stderr, "proctor: %s; cpu %.3f s", r->status, (double)r->cpu_us / 1e6);
	if (v->wall_us >= 0)
		fprintf(stderr, ", wall %.3f s", (double)v->wall_us / 1e6);
	if (v->peak >= 0)
		fprintf(stderr, ", peak %.1f MiB", (double)v->peak / (1024.0 * 1024.0));
	if (sig)
		fprintf(stderr, "; interrupted by SIG%s", sigabbrev_np(sig));
	else if (v->interrupted)
		fprintf(stderr, "; interrupted");
	fprintf(stderr, "\n");
	return code;
}

static int run_code(const struct run_verdict *v)
{
	int code = run_exit_code(&v->r), sig = run_interrupt(v);

	/* Ended by proctord for a signal (ours, or the terminal's ^C): as a
	 * shell reports a job that signal ended. */
	if (sig && v->r.kind == PROCTOR_KILLED &&
	    proto_kill_reason_parse(v->r.reason) == KILL_TERMINATE)
		code = RUN_SIGNAL_BASE + sig;
	return code;
}

/* The caller's terminal as it was: a program that holds it (descriptors
 * 0-2) may leave it without echo, raw, 1x1 or non-blocking, in a box too
 * (a session of its own still reconfigures a terminal it holds). */
struct run_tty {
	int fd; /* -1: not a terminal */
	struct termios tio;
	struct winsize ws;
	int have_ws;
	int fl;
};

static void run_tty_save(struct run_tty t[3])
{
	for (int fd = 0; fd < 3; fd++) {
		t[fd].fd = -1;
		if (!isatty(fd) || tcgetattr(fd, &t[fd].tio) < 0 ||
		    (t[fd].fl = fcntl(fd, F_GETFL)) < 0)
			continue;
		t[fd].have_ws = ioctl(fd, TIOCGWINSZ, &t[fd].ws) == 0;
		t[fd].fd = fd;
	}
}

static void run_tty_restore(const struct run_tty t[3])
{
	sigset_t ttou, old;

	/* From the background too (a program that took the foreground). */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	for (int i = 0; i < 3; i++) {
		if (t[i].fd < 0)
			continue;
		tcsetattr(t[i].fd, TCSANOW, &t[i].tio);
		if (t[i].have_ws)
			ioctl(t[i].fd, TIOCSWINSZ, &t[i].ws);
		fcntl(t[i].fd, F_SETFL, t[i].fl);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The terminal we are the foreground job of, on descriptor 0, 1 or 2 (the
 * first); -1 if none. With only standard input redirected (proctor run ...
 * < file at a shell), proctord and the program must not go to a background
 * group of their own either: their first write would stop them (SIGTTOU,
 * stty tostop), or a change of the terminal's modes, for ever. */
static int run_tty_fd(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (isatty(fd) && tcgetpgrp(fd) == getpgrp())
			return fd;
	return -1;
}

static int cmd_run(int argc, char **argv)
{
	struct run_tty tty[3];
	struct run run;
	struct run_verdict v;
	int first = 1, rc, code = RUN_INTERNAL, early;

	memset(&run, 0, sizeof run);
	memset(&v, 0, sizeof v);
	run.pid = -1;
	run.end_fd = -1;
	run.report_fd = -1;
	run.json.fd = -1;
	if ((rc = run_options(argc, argv, &run, &first)) >= 0) {
		runjson_close(&run.json);
		return rc;
	}
	/* At a terminal, and in its foreground: the program gets it. */
	run.tty = run_tty_fd() + 1;
	run_tty_save(tty);
	if (run_start(&run, argc, argv, first) < 0) {
		runjson_close(&run.json);
		return RUN_INTERNAL;
	}
	/* Our own report, written before proctord said the end: the verdict
	 * at once, before proctord's clean-up (cgroups, FIFOs). Not at a
	 * terminal, which proctord gives back only after its loop; not from
	 * a file, which may be an old one if proctord failed. */
	early = run_await_end(&run) && !run.tty && run.report_fd >= 0 &&
		run_read_report(run.report_fd, NULL, &v) == 0;
	/* The tree has ended: nothing holds the terminal any more. */
	run_tty_restore(tty);
	if (early)
		code = run_print(&run, &v, run_code(&v));
	run_reap(&run);
	run_tty_restore(tty);
	if (!early && run_verdict(&run, &v) == 0)
		code = run_print(&run, &v, run_code(&v));
	run_remove(&run);
	runjson_close(&run.json);
	free(v.report);
	return code;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("proctor %s\n", PROCTOR_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "wait") == 0)
		return cmd_wait(argc - 1, argv + 1, 0);
	if (strcmp(argv[1], "stop") == 0)
		return cmd_wait(argc - 1, argv + 1, 1);
	if (strcmp(argv[1], "watch") == 0)
		return cmd_watch(argc - 1, argv + 1);
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	fprintf(stderr, "proctor: unknown command '%s'; see 'proctor --help'\n", argv[1]);
	return 2;
}
