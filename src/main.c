// SPDX-License-Identifier: ISC
// proctord: options, start-up, daemonizing and readiness, then the event loop.
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "fifo.h"
#include "sblimits.h"
#include "log.h"
#include "report.h"
#include "sbdir.h"
#include "spawn.h"
#include "supervise.h"
#include "units.h"
#include "util.h"
#include "version.h"

struct options {
	struct config cfg;
	const char *config_file;
	const char *profile;
	int check;
	int daemonize;
	char **argv;
};

enum {
	OPT_KEY = 1000, /* + index into config_keys */
	OPT_CONFIG = 256,
	OPT_PROFILE,
	OPT_CHECK,
	OPT_DAEMONIZE,
};

static void usage(FILE *out)
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
		"  --check              print the effective settings, where each came from\n"
		"                       and what enforces it, then exit\n"
		"  --strict             a limit that cannot be honoured is an error\n"
		"  --report FILE        write a JSON summary to FILE at the end\n"
		"\n"
		"Sandbox:\n"
		"  --dir DIR            sandbox directory (created 0700 and removed at the end\n"
		"                       if missing; default: a fresh one under\n"
		"                       $XDG_RUNTIME_DIR or /tmp, printed on stdout)\n"
		"  --dir-mode MODE      octal mode of a directory proctord creates (0700)\n"
		"  --daemonize          run in the background; print the directory once the\n"
		"                       FIFOs exist and the program has started; the program's\n"
		"                       stdio then defaults to /dev/null\n"
		"  --grace DURATION     time a terminating wait gives the program to end by\n"
		"                       itself before the tree is killed (50ms)\n"
		"\n"
		"Limits (whole tree unless noted; default unlimited):\n"
		"  --cpu-time DURATION  CPU time (user + system) of the whole tree\n"
		"  --wall-time DURATION wall-clock time since start\n"
		"  --address-space SIZE address space per process (RLIMIT_AS)\n"
		"  --fsize SIZE         size of any file written, per process (RLIMIT_FSIZE)\n"
		"  --nofile N           open descriptors per process (soft = hard)\n"
		"  --stack SIZE         stack size per process (RLIMIT_STACK)\n"
		"  --memory-max SIZE    memory of the tree     } need cgroups, which this\n"
		"  --memory-high SIZE   soft memory limit      } version does not have: a\n"
		"  --pids N             processes of the tree  } warning, or an error with\n"
		"  --cpus CPUS          CPU bandwidth (1.5, 150%%) } --strict\n"
		"\n"
		"Program:\n"
		"  --stdin FILE         standard input from FILE (a file or FIFO)\n"
		"  --stdout FILE        standard output to FILE (created or truncated)\n"
		"  --stderr FILE        standard error to FILE (created or truncated)\n"
		"  --chdir DIR          working directory\n"
		"  --env NAME=VALUE     set a variable; --env NAME passes proctord's own\n"
		"  --clear-env          start from an empty environment\n"
		"\n"
		"  -h, --help           this text\n"
		"  -V, --version        the version\n"
		"\n"
		"DURATION: a number with us, ms, s, m or h (seconds when bare), e.g. 1.5s.\n"
		"SIZE: a number with B, K, M, G, T (binary), KiB..TiB or KB..TB, e.g. 256MiB.\n"
		"Limits accept \"unlimited\".\n"
		"\n"
		"Exit status: 0 once the terminating wait has been answered (--check: all\n"
		"asked for can be honoured); 1 internal error; 2 usage or configuration\n"
		"error; 3 set-up failure (--check: something cannot be honoured); 4 ended\n"
		"by SIGTERM, SIGINT or SIGHUP. The protocol: proctor-protocol(7).\n");
}

struct cmdline_value {
	const struct config_key *key;
	const char *value;
	const char *opt;
};

static void parse_options(int argc, char **argv, struct options *o)
{
	static struct option long_options[CONFIG_MAX_KEYS + 8];
	static char names[CONFIG_MAX_KEYS][32];
	struct cmdline_value *vals = NULL;
	size_t nvals = 0, n = 0;
	int c;

	memset(o, 0, sizeof *o);
	config_init(&o->cfg);
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
	long_options[n++] = (struct option){"help", no_argument, NULL, 'h'};
	long_options[n++] = (struct option){"version", no_argument, NULL, 'V'};
	long_options[n] = (struct option){NULL, 0, NULL, 0};

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
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("proctord %s\n", PROCTOR_VERSION);
			exit(0);
		default:
			fprintf(stderr, "Try 'proctord --help'.\n");
			exit(EXIT_USAGE);
		}
	}
	if (o->profile && !o->config_file)
		log_fatalx(EXIT_USAGE, "--profile %s: no --config file to take it from", o->profile);
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
	free(vals);
	{
		char err[1024];

		if (config_validate(&o->cfg, err, sizeof err) < 0)
			log_fatalx(EXIT_USAGE, "%s", err);
	}
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

static void free_env(char **env)
{
	for (char **e = env; *e; e++)
		free(*e);
	free(env);
}

static char **build_env(const struct config *c)
{
	char **env = xcalloc(1, sizeof(char *));
	size_t n = 0;

	if (!c->clear_env)
		for (char **e = environ; *e; e++)
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

/* Descriptors 0-2 must be open before anything else is: a FIFO that landed
 * on descriptor 1 would receive the program's output. */
static void ensure_stdio(void)
{
	int fd;

	do
		fd = open("/dev/null", O_RDWR);
	while (fd >= 0 && fd <= 2);
	if (fd < 0)
		log_fatal(EXIT_SETUP, "/dev/null");
	close(fd);
}

/* --daemonize: the caller waits on a pipe until the daemon is ready, prints
 * the directory it sends, and exits; a set-up failure is the daemon's exit
 * code, its message already on the shared stderr. Returns the write end of
 * the readiness pipe in the daemon. */
static int daemonize(struct options *o, char **env)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		log_fatal(EXIT_SETUP, "pipe");
	pid = fork();
	if (pid < 0)
		log_fatal(EXIT_SETUP, "fork");
	if (pid > 0) {
		char buf[4096];
		size_t got = 0;
		ssize_t n;
		int st;

		close(p[1]);
		/* Up to the newline, not to EOF: a program still in its set-up
		 * (say, opening a FIFO nobody writes) holds a copy of the write
		 * end until its execve. */
		while (got < sizeof buf - 1 && (got == 0 || buf[got - 1] != '\n') &&
		       ((n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0 ||
			(n < 0 && errno == EINTR)))
			if (n > 0)
				got += (size_t)n;
		buf[got] = '\0';
		/* The daemon has its own copy of all that; this side is done. */
		free_env(env);
		config_free(&o->cfg);
		if (got > 0 && buf[got - 1] == '\n') {
			fputs(buf, stdout);
			exit(fflush(stdout) == 0 ? 0 : EXIT_SETUP);
		}
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) != 0)
			exit(WEXITSTATUS(st));
		exit(EXIT_SETUP);
	}
	close(p[0]);
	if (setsid() < 0)
		log_fatal(EXIT_SETUP, "setsid");
	/* The directory goes to the caller through the pipe: the daemon has
	 * nothing for the caller's stdout, which $(...) waits on. Its stderr
	 * stays until ready, for set-up errors. */
	{
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 1);
			close(null);
		}
	}
	return p[1];
}

static void daemon_ready(int fd, const char *dir)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	dprintf(fd, "%s\n", dir);
	close(fd);
	/* Let go of the caller's terminal and pipes: $(proctord --daemonize)
	 * returns only once nobody holds its stdout. */
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
	log_set_quiet(1);
}

int main(int argc, char **argv)
{
	struct options o;
	struct sbdir dir;
	struct fifo fifo;
	struct supervisor sv;
	struct spawn_config sc;
	struct spawn_child child;
	struct ev_loop *loop;
	char err[512];
	char **env;
	int ready_fd = -1, code, nice_value;
	uint64_t start_us;

	log_init("proctord");
	ensure_stdio();
	parse_options(argc, argv, &o);
	if (o.check) {
		size_t n;

		printf("proctord %s: configuration check", PROCTOR_VERSION);
		if (o.config_file)
			printf(" of %s%s%s%s", o.config_file, o.profile ? " [" : "",
			       o.profile ? o.profile : "", o.profile ? "]" : "");
		printf("\n\n");
		config_print_check(&o.cfg, stdout);
		n = config_unhonoured(&o.cfg, stdout, "\ncannot be honoured: ");
		config_free(&o.cfg);
		return n ? EXIT_SETUP : 0;
	}
	/* A limit that is asked for and not enforced must never pass silently. */
	if (config_unhonoured(&o.cfg, NULL, NULL) > 0) {
		config_unhonoured(&o.cfg, stderr, o.cfg.strict ? "proctord: error: " : "proctord: warning: ");
		if (o.cfg.strict)
			return EXIT_SETUP;
	}
	env = build_env(&o.cfg);

	if (o.daemonize)
		ready_fd = daemonize(&o, env);
	/* Until the loop watches them, SIGTERM and friends would kill
	 * proctord with its directory and FIFOs left behind: hold them; the
	 * loop's signalfd takes them over, pending ones included. */
	{
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGHUP);
		sigprocmask(SIG_BLOCK, &set, NULL);
	}
	/* A client gone mid-answer is EPIPE, not death. */
	signal(SIGPIPE, SIG_IGN);
	/* Orphans of the program come back to proctord, not to init, so the
	 * whole tree can be measured and killed. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		log_fatal(EXIT_SETUP, "PR_SET_CHILD_SUBREAPER");
	/* A deadline is only as punctual as proctord's wake-up: with the
	 * program's threads on every CPU, a process of equal priority may wait
	 * a scheduler tick or more. Where allowed, run ahead of the program
	 * (which gets the caller's nice value back); proctord itself uses
	 * next to no CPU. */
	errno = 0;
	nice_value = getpriority(PRIO_PROCESS, 0);
	if (errno != 0)
		nice_value = 0;
	if (setpriority(PRIO_PROCESS, 0, nice_value - 10 < -20 ? -20 : nice_value - 10) < 0 &&
	    errno != EACCES && errno != EPERM)
		log_warn("setpriority");

	loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_SIGNALFD | EVFLAG_NOENV);
	if (!loop)
		log_fatalx(EXIT_SETUP, "cannot create the event loop");
	if (sbdir_open(&dir, o.cfg.dir, o.cfg.dir_mode, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	if (fifo_open(&fifo, loop, dir.fd, dir.path, &supervise_fifo_ops, &sv, err, sizeof err) <
	    0) {
		sbdir_close(&dir);
		log_fatalx(EXIT_SETUP, "%s: %s", o.cfg.dir ? o.cfg.dir : "sandbox directory", err);
	}
	if (!o.daemonize && !o.cfg.dir) {
		printf("%s\n", dir.path);
		fflush(stdout);
	}

	memset(&sc, 0, sizeof sc);
	sc.argv = o.argv;
	sc.envp = env;
	sc.stdin_path = o.cfg.stdin_path;
	sc.stdout_path = o.cfg.stdout_path;
	sc.stderr_path = o.cfg.stderr_path;
	sc.null_stdio = o.daemonize;
	sc.chdir = o.cfg.chdir;
	sc.limits = &o.cfg.limits;
	sc.nice = nice_value;
	start_us = now_us();
	if (spawn_start(&sc, &child) < 0) {
		int saved = errno;

		fifo_close(&fifo);
		sbdir_close(&dir);
		errno = saved;
		log_fatal(EXIT_SETUP, "cannot start %s", o.argv[0]);
	}
	if (supervise_init(&sv, loop, &o.cfg.limits, &child, &fifo, start_us) < 0) {
		/* Without its timers the limits would not hold: end it now. */
		log_warn("cannot create timers");
		kill(child.pid, SIGKILL);
		waitpid(child.pid, NULL, 0);
		fifo_close(&fifo);
		sbdir_close(&dir);
		return EXIT_SETUP;
	}
	fifo_start(&fifo);
	if (ready_fd >= 0)
		daemon_ready(ready_fd, dir.path);

	ev_run(loop, 0);

	code = sv.exit_code;
	if (o.cfg.report) {
		struct report_final rf = {
			.outcome = &sv.outcome,
			.limits = &o.cfg.limits,
			.cpu_us = sv.final_cpu_us,
			.user_us = sv.measure.reaped_user_ns / 1000u,
			.sys_us = sv.measure.reaped_sys_ns / 1000u,
			.wall_us = sv.end_us - sv.start_us,
			.peak_memory = sv.measure.peak_bytes,
			.interrupted = sv.interrupted,
		};

		if (report_write_json(o.cfg.report, &rf, err, sizeof err) < 0) {
			/* After daemonizing, stderr is /dev/null: the exit code
			 * is what says the report is missing. */
			log_warnx("report: %s", err);
			if (code == EXIT_PROTOCOL_DONE)
				code = EXIT_INTERNAL;
		}
	}
	supervise_finish(&sv);
	fifo_close(&fifo);
	sbdir_close(&dir);
	ev_loop_destroy(loop);
	free_env(env);
	config_free(&o.cfg);
	return code;
}
