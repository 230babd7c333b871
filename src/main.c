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
#include "limits.h"
#include "log.h"
#include "sbdir.h"
#include "spawn.h"
#include "supervise.h"
#include "units.h"
#include "util.h"

extern char **environ;

struct options {
	struct limits limits;
	const char *dir;
	mode_t dir_mode;
	int daemonize;
	const char *stdin_path, *stdout_path, *stderr_path;
	const char *chdir;
	int clear_env;
	char **env_args; /* --env arguments, in order */
	size_t n_env;
	char **argv;
};

enum {
	OPT_DIR = 256,
	OPT_DIR_MODE,
	OPT_DAEMONIZE,
	OPT_GRACE,
	OPT_CPU_TIME,
	OPT_WALL_TIME,
	OPT_ADDRESS_SPACE,
	OPT_FSIZE,
	OPT_NOFILE,
	OPT_STACK,
	OPT_STDIN,
	OPT_STDOUT,
	OPT_STDERR,
	OPT_CHDIR,
	OPT_ENV,
	OPT_CLEAR_ENV,
};

static const struct option long_options[] = {
	{"dir", required_argument, NULL, OPT_DIR},
	{"dir-mode", required_argument, NULL, OPT_DIR_MODE},
	{"daemonize", no_argument, NULL, OPT_DAEMONIZE},
	{"grace", required_argument, NULL, OPT_GRACE},
	{"cpu-time", required_argument, NULL, OPT_CPU_TIME},
	{"wall-time", required_argument, NULL, OPT_WALL_TIME},
	{"address-space", required_argument, NULL, OPT_ADDRESS_SPACE},
	{"fsize", required_argument, NULL, OPT_FSIZE},
	{"nofile", required_argument, NULL, OPT_NOFILE},
	{"stack", required_argument, NULL, OPT_STACK},
	{"stdin", required_argument, NULL, OPT_STDIN},
	{"stdout", required_argument, NULL, OPT_STDOUT},
	{"stderr", required_argument, NULL, OPT_STDERR},
	{"chdir", required_argument, NULL, OPT_CHDIR},
	{"env", required_argument, NULL, OPT_ENV},
	{"clear-env", no_argument, NULL, OPT_CLEAR_ENV},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: proctord [options] [--] program [args...]\n"
		"\n"
		"Run one program under resource limits and answer waits on two FIFOs,\n"
		"DIR/wait and DIR/status: write 1 (keep running) or 0 (terminate) to wait,\n"
		"then read three lines from status: CPU µs, resident bytes, status.\n"
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
		"Exit status: 0 once the terminating wait has been answered; 1 internal\n"
		"error; 2 usage error; 3 set-up failure; 4 ended by SIGTERM, SIGINT or SIGHUP.\n"
		"The protocol: proto/PROTOCOL.md.\n");
}

static void parse_limit(const char *opt, const char *arg, int kind, uint64_t *out)
{
	const char *err;

	if (kind == 'd')
		err = units_parse_duration(arg, 1, out);
	else if (kind == 's')
		err = units_parse_size(arg, 1, out);
	else
		err = units_parse_count(arg, 1, out);
	if (err)
		log_fatalx(EXIT_USAGE, "--%s %s: %s", opt, arg, err);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	int c;

	memset(o, 0, sizeof *o);
	limits_init(&o->limits);
	o->dir_mode = 0700;
	/* "+": stop at the program, so its own options are left alone. */
	while ((c = getopt_long(argc, argv, "+hV", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_DIR:
			o->dir = optarg;
			break;
		case OPT_DIR_MODE: {
			char *end;
			long m;

			errno = 0;
			m = strtol(optarg, &end, 8);
			if (errno || end == optarg || *end || m < 0 || m > 07777)
				log_fatalx(EXIT_USAGE, "--dir-mode %s: expected an octal mode",
					   optarg);
			o->dir_mode = (mode_t)m;
			break;
		}
		case OPT_DAEMONIZE:
			o->daemonize = 1;
			break;
		case OPT_GRACE:
			parse_limit("grace", optarg, 'd', &o->limits.grace_us);
			if (o->limits.grace_us == UNITS_UNLIMITED)
				log_fatalx(EXIT_USAGE, "--grace: \"unlimited\" is not accepted");
			break;
		case OPT_CPU_TIME:
			parse_limit("cpu-time", optarg, 'd', &o->limits.cpu_time_us);
			break;
		case OPT_WALL_TIME:
			parse_limit("wall-time", optarg, 'd', &o->limits.wall_time_us);
			break;
		case OPT_ADDRESS_SPACE:
			parse_limit("address-space", optarg, 's', &o->limits.address_space);
			break;
		case OPT_FSIZE:
			parse_limit("fsize", optarg, 's', &o->limits.fsize);
			break;
		case OPT_NOFILE:
			parse_limit("nofile", optarg, 'n', &o->limits.nofile);
			break;
		case OPT_STACK:
			parse_limit("stack", optarg, 's', &o->limits.stack);
			break;
		case OPT_STDIN:
			o->stdin_path = optarg;
			break;
		case OPT_STDOUT:
			o->stdout_path = optarg;
			break;
		case OPT_STDERR:
			o->stderr_path = optarg;
			break;
		case OPT_CHDIR:
			o->chdir = optarg;
			break;
		case OPT_ENV:
			if (optarg[0] == '=' || optarg[0] == '\0')
				log_fatalx(EXIT_USAGE, "--env %s: expected NAME=VALUE or NAME",
					   optarg);
			o->env_args = xreallocarray(o->env_args, o->n_env + 1, sizeof(char *));
			o->env_args[o->n_env++] = optarg;
			break;
		case OPT_CLEAR_ENV:
			o->clear_env = 1;
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
	if (optind >= argc)
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

static char **build_env(const struct options *o)
{
	char **env = xcalloc(1, sizeof(char *));
	size_t n = 0;

	if (!o->clear_env)
		for (char **e = environ; *e; e++)
			env = env_set(env, &n, xstrdup(*e));
	for (size_t i = 0; i < o->n_env; i++) {
		char *a = o->env_args[i];

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
static int daemonize(void)
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
	env = build_env(&o);

	if (o.daemonize)
		ready_fd = daemonize();
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
	if (sbdir_open(&dir, o.dir, o.dir_mode, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	if (fifo_open(&fifo, loop, dir.fd, dir.path, &supervise_fifo_ops, &sv, err, sizeof err) <
	    0) {
		sbdir_close(&dir);
		log_fatalx(EXIT_SETUP, "%s: %s", o.dir ? o.dir : "sandbox directory", err);
	}
	if (!o.daemonize && !o.dir) {
		printf("%s\n", dir.path);
		fflush(stdout);
	}

	memset(&sc, 0, sizeof sc);
	sc.argv = o.argv;
	sc.envp = env;
	sc.stdin_path = o.stdin_path;
	sc.stdout_path = o.stdout_path;
	sc.stderr_path = o.stderr_path;
	sc.null_stdio = o.daemonize;
	sc.chdir = o.chdir;
	sc.limits = &o.limits;
	sc.nice = nice_value;
	start_us = now_us();
	if (spawn_start(&sc, &child) < 0) {
		int saved = errno;

		fifo_close(&fifo);
		sbdir_close(&dir);
		errno = saved;
		log_fatal(EXIT_SETUP, "cannot start %s", o.argv[0]);
	}
	if (supervise_init(&sv, loop, &o.limits, &child, &fifo, start_us) < 0) {
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
	supervise_finish(&sv);
	fifo_close(&fifo);
	sbdir_close(&dir);
	ev_loop_destroy(loop);
	free_env(env);
	free(o.env_args);
	return code;
}
