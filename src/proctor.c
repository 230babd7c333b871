// SPDX-License-Identifier: ISC
// proctor: the command-line client: wait, stop, watch a sandbox, or run one program to its verdict.
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proctor.h"
#include "version.h"

/* Exit codes of proctor run, after the shells' and timeout(1)'s. */
enum {
	RUN_INTERNAL = 125,  /* proctor or proctord could not do the run */
	RUN_FAILED = 127,    /* failed STAGE: the program never ran */
	RUN_WALL_TIME = 124, /* as timeout(1) */
	RUN_SIGNAL_BASE = 128,
};

static const char *proctord_path = NULL;

/* usleep is gone from POSIX; a signal may cut the sleep short, which is fine. */
static void sleep_us(uint64_t us)
{
	struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: proctor wait [--json] [--timeout SECONDS] DIR\n"
		"       proctor stop [--json] [--timeout SECONDS] DIR\n"
		"       proctor watch [--interval SECONDS] DIR\n"
		"       proctor run [--json] [proctord options] -- program [args...]\n"
		"\n"
		"wait   one wait call (\"1\"): print CPU µs, resident bytes and the status\n"
		"stop   the terminating wait (\"0\"): print the final figures; proctord exits\n"
		"watch  a live view of CPU, CPU %% of one core, memory and status, until the\n"
		"       program ends (the sandbox is left running)\n"
		"run    run one program to its end under proctord, with stdio passed\n"
		"       through; print a one-line verdict on stderr and exit with: the\n"
		"       program's exit code; 128+N for signal N; 124 wall-time; 152\n"
		"       cpu-time; 153 file-size or output; 159 syscall; 137 other kills;\n"
		"       127 failed start; 125 when proctor or proctord could not run it\n"
		"\n"
		"Clients serialise on DIR/lock and never wait longer than --timeout (5 s;\n"
		"a terminating wait adds 5 s for the grace period). Errors exit 1, usage 2.\n"
		"PROCTORD names the proctord to run (default: proctord on the PATH).\n");
}

static void print_result(const struct proctor_result *r, int json)
{
	if (!json) {
		printf("%llu\n%llu\n%s\n", (unsigned long long)r->cpu_us,
		       (unsigned long long)r->memory_bytes, r->status);
		return;
	}
	{
		json_t *o = json_pack("{s:I, s:I, s:s, s:s, s:s, s:s}", "cpu_us",
				      (json_int_t)r->cpu_us, "memory_bytes",
				      (json_int_t)r->memory_bytes, "kind",
				      proctor_kind_name(r->kind), "head", r->head, "text", r->text,
				      "status", r->status);
		char *s;

		json_object_set_new(o, "exit_code",
				    r->kind == PROCTOR_EXITED ? json_integer(r->exit_code)
							      : json_null());
		json_object_set_new(o, "signal",
				    r->kind == PROCTOR_SIGNALED ? json_string(r->signal) : json_null());
		json_object_set_new(o, "reason",
				    r->kind == PROCTOR_KILLED || r->kind == PROCTOR_FAILED
					    ? json_string(r->reason)
					    : json_null());
		json_object_set_new(o, "syscall",
				    r->syscall[0] ? json_string(r->syscall) : json_null());
		s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
		puts(s);
		free(s);
		json_decref(o);
	}
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

static int cmd_wait(int argc, char **argv, int terminate)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"timeout", required_argument, NULL, 't'},
		{NULL, 0, NULL, 0},
	};
	struct proctor_result r;
	double timeout = 5;
	int json = 0, c, rc;

	while ((c = getopt_long(argc, argv, "+jt:", opts, NULL)) != -1) {
		if (c == 'j') {
			json = 1;
		} else if (c == 't' && parse_seconds(optarg, &timeout) == 0) {
			continue;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (terminate)
		timeout += 5; /* the grace period and the kill */
	rc = proctor_wait(argv[optind], terminate, (int)(timeout * 1000), &r);
	if (rc != PROCTOR_OK) {
		fprintf(stderr, "proctor: %s: %s\n", argv[optind], proctor_strerror(rc));
		return 1;
	}
	print_result(&r, json);
	return 0;
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
		{NULL, 0, NULL, 0},
	};
	struct proctor_result r;
	uint64_t last_cpu = 0, last_t = 0;
	double interval = 0.25;
	int c, tty = isatty(1);

	while ((c = getopt_long(argc, argv, "+i:", opts, NULL)) != -1) {
		if (c != 'i' || parse_seconds(optarg, &interval) < 0 || interval < 0.01) {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	for (;;) {
		int rc = proctor_wait(argv[optind], 0, 5000, &r);
		uint64_t t = mono_us();
		double pct = 0;

		if (rc != PROCTOR_OK) {
			fprintf(stderr, "proctor: %s: %s\n", argv[optind], proctor_strerror(rc));
			return 1;
		}
		if (last_t && t > last_t)
			pct = 100.0 * (double)(r.cpu_us - last_cpu) / (double)(t - last_t);
		if (tty)
			fputs("\033[H\033[2J", stdout); /* home, clear */
		printf("%s\n  cpu     %10.3f s   %6.1f %% of one core\n  memory  %10.1f MiB\n"
		       "  status  %s\n",
		       argv[optind], (double)r.cpu_us / 1e6, pct,
		       (double)r.memory_bytes / (1024.0 * 1024.0), r.status);
		fflush(stdout);
		if (r.kind != PROCTOR_RUNNING && r.kind != PROCTOR_INVALID)
			return 0;
		last_cpu = r.cpu_us;
		last_t = t;
		sleep_us((uint64_t)(interval * 1e6));
	}
}

static int run_exit_code(const struct proctor_result *r)
{
	int sig;

	switch (r->kind) {
	case PROCTOR_EXITED:
		return r->exit_code;
	case PROCTOR_SIGNALED:
		for (sig = 1; sig < NSIG; sig++) {
			const char *abbrev = sigabbrev_np(sig);

			if (abbrev && strcmp(r->signal + 3, abbrev) == 0)
				return RUN_SIGNAL_BASE + sig;
		}
		return RUN_SIGNAL_BASE;
	case PROCTOR_KILLED:
		if (strcmp(r->reason, "wall-time") == 0)
			return RUN_WALL_TIME;
		if (strcmp(r->reason, "cpu-time") == 0)
			return RUN_SIGNAL_BASE + SIGXCPU;
		/* Wrote too much, to a file or through the output limit: what
		 * the kernel's own file size limit would have said. */
		if (strcmp(r->reason, "file-size") == 0 || strcmp(r->reason, "output") == 0)
			return RUN_SIGNAL_BASE + SIGXFSZ;
		/* What seccomp's own kill would have said. */
		if (strcmp(r->reason, "syscall") == 0)
			return RUN_SIGNAL_BASE + SIGSYS;
		return RUN_SIGNAL_BASE + SIGKILL;
	case PROCTOR_FAILED:
		return RUN_FAILED;
	default:
		return RUN_INTERNAL;
	}
}

/* proctor run: proctord in the foreground as our child (so the program's
 * stdio is ours), a private directory, polling waits until the program
 * ends, then the terminating wait for the exact final figures. */
static volatile sig_atomic_t run_child;

/* SIGTERM or SIGHUP to proctor ends the run through proctord, which then
 * ends the program and cleans up; proctor reports and removes its
 * directory. */
static void run_forward(int sig)
{
	if (run_child > 0)
		kill(run_child, sig);
}

static int cmd_run(int argc, char **argv)
{
	char tmpl[] = "/tmp/proctor-run.XXXXXX", wait_path[64];
	struct proctor_result r;
	char **args;
	int json = 0, first = 1, st, rc, code;
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "--json") == 0) {
		json = 1;
		first = 2;
	}
	/* run owns the sandbox directory and the foreground. */
	for (int i = first; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strncmp(argv[i], "--dir", 5) == 0 || strcmp(argv[i], "--daemonize") == 0) {
			fprintf(stderr, "proctor: run: %s cannot be used with run\n", argv[i]);
			return RUN_INTERNAL;
		}
	}
	if (!mkdtemp(tmpl)) {
		perror("proctor: mkdtemp");
		return RUN_INTERNAL;
	}
	/* A terminal's ^C reaches proctord, in our process group, by itself;
	 * proctor stays to report, as system(3) does. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, run_forward);
	signal(SIGHUP, run_forward);
	args = calloc((size_t)argc + 4, sizeof *args);
	if (!args) {
		rmdir(tmpl);
		return RUN_INTERNAL;
	}
	args[0] = (char *)proctord_path;
	args[1] = "--dir";
	args[2] = tmpl;
	for (int i = first; i < argc; i++)
		args[i - first + 3] = argv[i];
	pid = fork();
	if (pid < 0) {
		perror("proctor: fork");
		free(args);
		rmdir(tmpl);
		return RUN_INTERNAL;
	}
	if (pid == 0) {
		/* proctord ends (cleanly: grace, kill, clean-up) with us. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(RUN_INTERNAL);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(args[0], args);
		fprintf(stderr, "proctor: cannot run %s: %s\n", args[0], strerror(errno));
		_exit(RUN_INTERNAL);
	}
	free(args);
	run_child = pid;
	snprintf(wait_path, sizeof wait_path, "%s/wait", tmpl);
	/* Ready once the wait FIFO has its reader: proctord creates it a
	 * moment before it opens it, and a wait in between would read ENXIO
	 * as "proctord is gone". */
	for (int waited_ms = 0;; waited_ms++) {
		int fd;

		if (waited_ms > 10000) {
			fprintf(stderr, "proctor: run: proctord did not serve %s within 10 s\n", tmpl);
			kill(pid, SIGTERM);
			waitpid(pid, &st, 0);
			rmdir(tmpl);
			return RUN_INTERNAL;
		}
		if (waitpid(pid, &st, WNOHANG) == pid) {
			/* proctord ended before serving: a usage or set-up error,
			 * already on stderr. */
			rmdir(tmpl);
			return RUN_INTERNAL;
		}
		fd = open(wait_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			break;
		}
		sleep_us(1000);
	}
	/* Poll: 1 ms apart at first, doubling to 10 ms, so that a short program
	 * is seen ending soon after it does, and a long one costs proctord a
	 * wait (about 50 µs of CPU) every 10 ms. */
	for (uint64_t pause = 1000;; pause = pause * 2 > 10000 ? 10000 : pause * 2) {
		rc = proctor_wait(tmpl, 0, 5000, &r);
		if (rc != PROCTOR_OK || r.kind != PROCTOR_RUNNING)
			break;
		sleep_us(pause);
	}
	if (rc == PROCTOR_OK)
		rc = proctor_wait(tmpl, 1, 15000, &r);
	/* Without its terminating wait proctord would serve for ever: end
	 * it (grace, kill, clean-up) before waiting for it. */
	if (rc != PROCTOR_OK)
		kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	if (rmdir(tmpl) < 0)
		fprintf(stderr, "proctor: run: cannot remove %s: %s\n", tmpl, strerror(errno));
	if (rc != PROCTOR_OK) {
		fprintf(stderr, "proctor: run: %s\n", proctor_strerror(rc));
		return RUN_INTERNAL;
	}
	code = run_exit_code(&r);
	fprintf(stderr, "proctor: %s; cpu %.3f s\n", r.status, (double)r.cpu_us / 1e6);
	if (json)
		print_result(&r, 1);
	return code;
}

int main(int argc, char **argv)
{
	const char *env = getenv("PROCTORD");

	proctord_path = env ? env : "proctord";
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
	fprintf(stderr, "proctor: unknown command \"%s\"\n", argv[1]);
	usage(stderr);
	return 2;
}
