// SPDX-License-Identifier: ISC
// proctord: options, start-up, daemonizing and readiness, then the event loop.
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "config.h"
#include "fifo.h"
#include "isolate.h"
#include "output.h"
#include "prio.h"
#include "sblimits.h"
#include "log.h"
#include "optexact.h"
#include "report.h"
#include "sbdir.h"
#include "spawn.h"
#include "supervise.h"
#include "sysfilter.h"
#include "title.h"
#include "units.h"
#include "util.h"
#include "version.h"

/* The sandbox's cgroups, removed at any exit of this process (a set-up
 * failure ends in exit()); NULL once handed over or gone. */
static struct cgroup *exit_cgroup;

static void remove_cgroup_at_exit(void)
{
	if (exit_cgroup)
		cgroup_destroy(exit_cgroup);
	exit_cgroup = NULL;
}

/* The --report file, opened before the program starts: its temporary file
 * is removed at any exit of this process; NULL once handed over. */
static struct report_file report, *exit_report;

static void remove_report_at_exit(void)
{
	if (exit_report)
		report_file_close(exit_report);
	exit_report = NULL;
}

struct options {
	struct config cfg;
	const char *config_file;
	const char *profile;
	int check;
	int daemonize;
	int tty_foreground;
	const char *end_fd;
	char **argv;
};

enum {
	OPT_KEY = 1000, /* + index into config_keys */
	OPT_CONFIG = 256,
	OPT_PROFILE,
	OPT_CHECK,
	OPT_DAEMONIZE,
	OPT_TTY_FOREGROUND,
	OPT_END_FD,
};

/* The bash completion (contrib/completion) reads the options from this text:
 * an option line is "  --name ARG  text", ARG in capitals when it takes one. */
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
		"                       and what enforces it, then exit; changes nothing\n"
		"  --strict             a limit that cannot be honoured is an error\n"
		"  --report FILE        write a JSON summary to FILE at the end (a new file\n"
		"                       or a regular file of ours; - is stdout, /dev/fd/N\n"
		"                       an open descriptor)\n"
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
		"  --tty-foreground     when standard input is the terminal and proctord is\n"
		"                       in its foreground, give the terminal's foreground\n"
		"                       to the program's process group (so it can read what\n"
		"                       is typed); proctord takes it back at the end\n"
		"  --end-fd N           once the program has ended and the report is\n"
		"                       written, write one byte to inherited descriptor N,\n"
		"                       close it, and end without a terminating wait\n"
		"\n"
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
		"                       delivered\n"
		"  --memory-max SIZE    memory of the tree, no swap (cgroup)\n"
		"  --memory-high SIZE   memory above which the tree is throttled (cgroup v2)\n"
		"  --pids N             processes and threads of the tree (cgroup)\n"
		"  --cpus CPUS          CPU bandwidth of the tree, 1.5 or 150%% (cgroup)\n"
		"  --cgroup MODE        cgroups to use: auto (v2, then v1 for the rest), v2,\n"
		"                       v1, or none (rlimits and /proc only). Without a\n"
		"                       cgroup, the cgroup limits above are a warning, or an\n"
		"                       error with --strict\n"
		"\n");
	/* Two strings: C99 compilers need take only 4095 characters in one. */
	fprintf(out,
		"Program:\n"
		"  --stdin FILE         standard input from FILE (a file or FIFO)\n"
		"  --stdout FILE        standard output to FILE (created or truncated; a\n"
		"                       FIFO waits for its reader)\n"
		"  --stderr FILE        standard error to FILE (likewise)\n"
		"                       /dev/fd/N in these three is descriptor N that\n"
		"                       proctord inherited, used as it is\n"
		"  --chdir DIR          working directory\n"
		"  --env NAME=VALUE     set a variable; --env NAME passes proctord's own\n"
		"  --clear-env          start from an empty environment\n"
		"\n"
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
		"\n"
		"  -h, --help           this text\n"
		"  -V, --version        the version\n"
		"\n"
		"DURATION: a number with us, ms, s, m or h (seconds when bare), e.g. 1.5s.\n"
		"SIZE: a number with B, K, M, G, T (binary), KiB..TiB or KB..TB, e.g. 256MiB.\n"
		"Limits accept \"unlimited\"; 0 is refused where it would stop the program\n"
		"at once. A bare size is bytes (isolate counts KiB): a memory, stack or\n"
		"file size below 1MiB is a warning.\n"
		"\n"
		"Exit status: 0 once the terminating wait has been answered (--check: all\n"
		"asked for can be honoured); 1 internal error; 2 usage or configuration\n"
		"error; 3 set-up failure (--check: something cannot be honoured); 4 ended\n"
		"by SIGTERM, SIGINT, SIGHUP or SIGQUIT. The protocol: proctor-protocol(7).\n");
}

struct cmdline_value {
	const struct config_key *key;
	const char *value;
	const char *opt;
};

static void parse_options(int argc, char **argv, struct options *o)
{
	static struct option long_options[CONFIG_MAX_KEYS + 9];
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
	long_options[n++] =
		(struct option){"tty-foreground", no_argument, NULL, OPT_TTY_FOREGROUND};
	long_options[n++] = (struct option){"end-fd", required_argument, NULL, OPT_END_FD};
	long_options[n++] = (struct option){"help", no_argument, NULL, 'h'};
	long_options[n++] = (struct option){"version", no_argument, NULL, 'V'};
	long_options[n] = (struct option){NULL, 0, NULL, 0};

	/* Exact names only: --daemon is not --daemonize. */
	if (optexact_check(argc, argv, "hV", long_options, "proctord", "proctord --help", stderr) <
	    0)
		exit(EXIT_USAGE);
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

/* path is /dev/fd/N (or /proc/self/fd/N) and N an open descriptor that
 * proctord inherited: a copy of it, kept out of 0-2, or -1. Opening the path
 * instead would reopen a file at offset 0, and the child closes N before it
 * opens anything. */
static int inherited_fd(const char *path)
{
	int n, fd;

	if (!path || (n = fd_path_number(path)) < 0 || fcntl(n, F_GETFD) < 0)
		return -1; /* not open: the child's open() says why */
	fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		log_fatal(EXIT_SETUP, "%s", path);
	return fd;
}

/* Whether path is /dev/fd/N (or /proc/self/fd/N) for the file that is also
 * standard output. */
static int fd_path_is_stdout(const char *path)
{
	int n = fd_path_number(path);
	struct stat a, b;

	if (n < 0 || fstat(n, &a) < 0 || fstat(1, &b) < 0)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* What --check says of the identity and the filter. Returns how many
 * things cannot be honoured. */
static size_t check_isolation(const struct config *c, FILE *out, const char *prefix)
{
	struct isolate iso;
	struct sysfilter f;
	char err[512];
	size_t n = 0;

	if (c->seccomp || c->seccomp_errno) {
		fprintf(out, "\n%-14s %s, %s", "seccomp denies", sysfilter_denied[0],
			sysfilter_denied[1]);
		for (size_t i = 2; sysfilter_denied[i]; i++)
			fprintf(out, ", %s", sysfilter_denied[i]);
		for (size_t i = 0; sysfilter_denied_args[i]; i++)
			fprintf(out, ", %s", sysfilter_denied_args[i]);
		fprintf(out, "\n%-14s %s\n", "seccomp action",
			c->seccomp_errno ? "the call fails with EPERM"
					 : "proctord is notified and kills the tree (killed syscall: NAME)");
		if (sysfilter_build(&f, c->seccomp_errno, err, sizeof err) < 0) {
			fprintf(out, "%s%s\n", prefix, err);
			n++;
		}
		sysfilter_free(&f);
	}
	if (isolate_prepare(&iso, c, err, sizeof err) < 0) {
		fprintf(out, "%s%s\n", prefix, err);
		n++;
	}
	return n;
}

static void end_signals_block(int how)
{
	sigset_t set;

	sigemptyset(&set);
	supervise_end_sigset(&set);
	sigprocmask(how, &set, NULL);
}

/* The loop is over and the clean-up begins: a signal now (a second SIGTERM,
 * one that came as the loop ended) must not cut it short. Ignoring discards
 * the pending ones too, before libev unblocks them as it stops its
 * watchers. */
static void end_signals_ignore(void)
{
	for (int i = 0; i < SUPERVISE_N_END_SIGNALS; i++)
		signal(supervise_end_signals[i], SIG_IGN);
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

/* The caller's side of --daemonize passes SIGTERM and the others on to the
 * daemon. */
static volatile sig_atomic_t forward_pid, forwarded;

static void daemonize_forward(int sig)
{
	int saved = errno;

	kill((pid_t)forward_pid, sig);
	forwarded = 1;
	errno = saved;
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
		char buf[4096] = {0};
		size_t got = 0;
		ssize_t n;
		int st;

		close(p[1]);
		/* The daemon owns the cgroups and the report now. */
		exit_cgroup = NULL;
		exit_report = NULL;
		/* A signal to this side during the set-up (pending ones
		 * included: the daemon did not inherit them) is meant for
		 * proctord: the daemon gets it, ends the sandbox, and its exit
		 * status is ours. */
		{
			struct sigaction sa = {.sa_handler = daemonize_forward};

			sigemptyset(&sa.sa_mask);
			forward_pid = pid;
			for (int i = 0; i < SUPERVISE_N_END_SIGNALS; i++)
				sigaction(supervise_end_signals[i], &sa, NULL);
			end_signals_block(SIG_UNBLOCK);
		}
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
		/* From here a signal is no longer passed on: either the daemon
		 * got one and the sandbox is ending, or the caller gets a
		 * directory that stays served. */
		end_signals_block(SIG_BLOCK);
		if (forwarded) {
			/* The sandbox is ending: no directory to print. */
			pid_t w;

			do
				w = waitpid(pid, &st, 0);
			while (w < 0 && errno == EINTR);
			exit(w == pid && WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_INTERNAL);
		}
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

/* Started by systemd (Type=notify): tell it the FIFOs are there. The
 * protocol is one datagram on the socket $NOTIFY_SOCKET names; "@" starts an
 * abstract name. */
static void notify_systemd(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof sa.sun_path)
		return;
	len = strlen(path);
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		log_warn("sd_notify %s", path);
	close(fd);
}

/* --tty-foreground: whether to hand the terminal on descriptor 0 to the
 * program, which its child does (spawn.c). Only a foreground proctord may:
 * one started in the background must not take the terminal from the job
 * that has it. */
static int tty_handover(const struct options *o, const struct isolate *iso)
{
	/* In a session of its own the program has no controlling terminal:
	 * it reads the terminal without job control, in any group. */
	return o->tty_foreground && !o->daemonize && !iso->new_session && isatty(0) &&
	       tcgetpgrp(0) == getpgrp();
}

/* The terminal back to proctord's group once the program's is gone (from
 * the background, hence SIGTTOU blocked). */
static void tty_take_back(void)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	if (tcsetpgrp(0, getpgrp()) < 0)
		log_warn("cannot take the terminal back (tcsetpgrp)");
	sigprocmask(SIG_SETMASK, &old, NULL);
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

/* What the cgroups add to the report: limits not enforced, pids figures. */
static void report_cgroup(struct cgroup *cg, const struct limits *l, struct report_final *rf)
{
	static const char *const keys[] = {"memory_max", "memory_high", "pids", "cpus"};
	const uint64_t vals[] = {l->memory_max, l->memory_high, l->pids, l->cpus_milli};

	for (size_t i = 0; i < 4; i++) {
		if (vals[i] == UNITS_UNLIMITED)
			continue;
		if (!cgroup_enforced(cg, keys[i]))
			rf->not_enforced[rf->n_not_enforced++] = keys[i];
	}
	if (cgroup_pids(cg, &rf->pids_peak, &rf->pids_max_hits) == 0)
		rf->have_pids = 1;
}

static void check_mechanism(void *ctx, const struct config_key *k, char *buf, size_t len)
{
	cgroup_key_mechanism(ctx, k->name, buf, len);
}

/* Where each figure comes from on this machine. */
static void print_sources(const struct cgroup *cg, FILE *out)
{
	char b[600];

	fprintf(out, "\n%-14s %s\n", "figure", "source");
	fprintf(out, "%-14s %s\n", "cpu",
		cgroup_role_source(cg, CG_ROLE_CPU, b, sizeof b)
			? b
			: "CPU clocks of the live processes (/proc) + rusage of the reaped ones");
	fprintf(out, "%-14s %s\n", "memory", "sum of /proc/PID/statm resident over the live tree");
	fprintf(out, "%-14s %s\n", "peak_memory",
		cgroup_role_source(cg, CG_ROLE_MEMORY, b, sizeof b)
			? b
			: "largest of the /proc samples and of the reaped processes' ru_maxrss");
	fprintf(out, "%-14s %s\n", "oom_kills",
		cgroup_has(cg, CG_ROLE_MEMORY) ? "memory.events / memory.oom_control oom_kill"
					       : "not available without a memory cgroup");
	fprintf(out, "%-14s %s\n", "pids_peak",
		cgroup_has(cg, CG_ROLE_PIDS) ? "pids.peak, pids.events max"
					     : "not available without a pids cgroup");
	if (cgroup_role_source(cg, CG_ROLE_KILL, b, sizeof b) ||
	    cgroup_role_source(cg, CG_ROLE_FREEZE, b, sizeof b))
		fprintf(out, "%-14s %s%s\n", "tree kill", b,
			cgroup_has(cg, CG_ROLE_KILL) ? "" : ", kill every listed process, thaw");
	else if (cgroup_active(cg))
		fprintf(out, "%-14s %s\n", "tree kill", "SIGKILL to every process in cgroup.procs");
	else
		fprintf(out, "%-14s %s\n", "tree kill",
			"SIGKILL to every descendant found through /proc (proctord is a subreaper)");
	fprintf(out, "%-14s %s\n", "cpu deadline",
		prio_rt_permitted()
			? "proctord SCHED_FIFO 1 (not inherited): wakes ahead of any number of "
			  "threads; over 50 ms of its own CPU in 100 ms, nice -10 until the window ends"
			: "proctord at nice -10 only (no CAP_SYS_NICE, RLIMIT_RTPRIO 0): may wake late "
			  "when the tree has many more runnable threads than CPUs");
	fprintf(out, "%-14s %s\n", "end of tree",
		cgroup_role_source(cg, CG_ROLE_EVENTS, b, sizeof b)
			? b
			: (cgroup_active(cg) ? "cgroup.procs empty" : "no descendant left in /proc"));
}

/* Whether the program can run in a PID namespace of its own. Returns 1 if
 * not and --strict makes that an error. */
static size_t check_pidns(const struct config *c, FILE *out)
{
	enum spawn_pidns ns = spawn_pidns_wanted();
	int err = spawn_pidns_probe(ns);

	if (!err) {
		fprintf(out, "%-14s %s: the program is PID 2, its parent PID 1 is proctord's init, "
			     "which dies with proctord and takes the namespace with it\n",
			"pid namespace",
			ns == SPAWN_PIDNS ? "new" : "new, in a user namespace mapping only uid "
						    "and gid to themselves");
		return 0;
	}
	fprintf(out, "%-14s NOT available (%s): the program is proctord's child and may "
		     "outlive a SIGKILLed proctord\n",
		"pid namespace", strerror(err));
	if (!c->strict)
		return 0;
	fprintf(out, "\ncannot be honoured: a PID namespace (--strict)\n");
	return 1;
}

/* What the --report file is written from, once the sandbox has ended. */
struct finish_ctx {
	const struct config *cfg;
	struct supervisor *sv;
	struct cgroup *cg;
	struct output *out;
	const struct isolate *iso;
	int failed;	  /* the report could not be written */
	int init_counted; /* the PID namespace's init is one of the cgroup's processes */
};

/* pids.max without the room for an init (spawn's pidns_fallback). */
static struct {
	struct cgroup *cg;
	uint64_t pids;
} pids_fix;

static int pids_without_init(void *ctx)
{
	char err[512];

	(void)ctx;
	if (pids_fix.pids < UNITS_UNLIMITED - 1 &&
	    cgroup_set_pids_max(pids_fix.cg, pids_fix.pids, err, sizeof err) < 0) {
		log_warnx("%s", err);
		errno = EIO;
		return -1;
	}
	return 0;
}

/* Write the --report file: called by the supervisor before it composes the
 * final answer (so that a client reading it finds the report), or after the
 * loop when a signal ended it. */
static void write_report(void *ctx)
{
	struct finish_ctx *f = ctx;
	char err[3 * PATH_MAX];
	struct report_final rf = {
		.outcome = &f->sv->outcome,
		.limits = &f->cfg->limits,
		.cpu_us = f->sv->final_cpu_us,
		.user_us = f->sv->measure.reaped_user_ns / 1000u,
		.sys_us = f->sv->measure.reaped_sys_ns / 1000u,
		.wall_us = f->sv->end_us - f->sv->start_us,
		.peak_memory = f->sv->measure.peak_bytes,
		.output_bytes = f->out ? output_total(f->out) : UNITS_UNLIMITED,
		.interrupted = f->sv->interrupted,
		.user = f->cfg->user,
		.group = f->cfg->group,
		.uid = f->iso->set_uid ? (long)f->iso->uid : -1,
		.gid = f->iso->set_gid ? (long)f->iso->gid : -1,
		.new_session = f->iso->new_session,
		.unshare_net = f->iso->unshare_net,
		.unshare_ipc = f->iso->unshare_ipc,
		.seccomp = !f->cfg->seccomp ? NULL : f->cfg->seccomp_errno ? "errno" : "kill",
	};
	char src_cpu[600], src_mem[600], src_kill[600];
	uint64_t cpu_usage, peak;
	char *text;

	report_cgroup(f->cg, &f->cfg->limits, &rf);
	/* The program's processes, not the init's. */
	if (f->init_counted && rf.have_pids && rf.pids_peak > 0)
		rf.pids_peak--;
	if (cgroup_cpu(f->cg, &cpu_usage, &rf.user_us, &rf.sys_us) == 0)
		rf.src_cpu = cgroup_role_source(f->cg, CG_ROLE_CPU, src_cpu, sizeof src_cpu);
	if (cgroup_peak(f->cg, &peak) == 0) {
		rf.peak_memory = peak;
		rf.src_peak = cgroup_role_source(f->cg, CG_ROLE_MEMORY, src_mem, sizeof src_mem);
	}
	if (cgroup_has(f->cg, CG_ROLE_MEMORY)) {
		rf.have_oom = 1;
		rf.oom_kills = f->sv->oom_kills;
		cgroup_oom_kills(f->cg, &rf.oom_kills);
		rf.src_oom = rf.src_peak ? rf.src_peak : "memory cgroup";
	}
	rf.src_kill = cgroup_role_source(f->cg, CG_ROLE_KILL, src_kill, sizeof src_kill);
	if (!rf.src_kill)
		rf.src_kill = cgroup_role_source(f->cg, CG_ROLE_FREEZE, src_kill, sizeof src_kill);

	text = report_json_text(&rf);
	if (!text)
		snprintf(err, sizeof err, "cannot build the JSON report");
	if (!text || report_file_write(&report, text, err, sizeof err) < 0) {
		/* After daemonizing, stderr is /dev/null: the exit code
		 * is what says the report is missing. */
		log_warnx("report: %s", err);
		f->failed = 1;
	}
	free(text);
	report_file_close(&report);
	exit_report = NULL;
}

int main(int argc, char **argv)
{
	struct options o;
	struct sbdir dir;
	struct fifo fifo;
	struct supervisor sv;
	struct finish_ctx fin;
	struct spawn_config sc;
	struct spawn_child child;
	/* Static: the exit handler may use it after main has returned. */
	static struct cgroup cg;
	int join_fds[CG_MAX_HIER];
	const char *join_paths[CG_MAX_HIER];
	struct isolate iso;
	struct prio prio;
	struct sysfilter filter;
	struct output output, *out = NULL;
	int filter_sv[2] = {-1, -1};
	int in_fd, out_fd, err_fd;
	struct ev_loop *loop;
	/* Room for a message that quotes paths up to PATH_MAX long. */
	char err[3 * PATH_MAX];
	char **env;
	int ready_fd = -1, end_fd = -1, code, nice_value;
	uint64_t start_us;

	/* Before anything keeps a pointer into argv or the environment. */
	title_init(argc, argv);
	log_init("proctord");
	ensure_stdio();
	parse_options(argc, argv, &o);
	/* Accepted, but most likely a mistake: said once, before anything runs
	 * (on stderr, so that --check's table stays as it is). */
	for (const struct config_key *k = config_keys; k->name; k++)
		if (config_warning(&o.cfg, k, err, sizeof err))
			log_warnx("warning: %s", err);
	memset(&filter, 0, sizeof filter);
	in_fd = out_fd = err_fd = -1;
	if (!o.check) {
		if (o.cfg.seccomp_errno)
			o.cfg.seccomp = 1;
		/* A refusal (--no-root, an unknown user) comes before any
		 * cgroup is touched. */
		if (isolate_prepare(&iso, &o.cfg, err, sizeof err) < 0)
			log_fatalx(EXIT_SETUP, "%s", err);
		if (o.cfg.seccomp &&
		    sysfilter_build(&filter, o.cfg.seccomp_errno, err, sizeof err) < 0)
			log_fatalx(EXIT_SETUP, "%s", err);
		/* Before anything else opens a descriptor (the cgroups do):
		 * /dev/fd/N is the caller's. */
		in_fd = inherited_fd(o.cfg.stdin_path);
		out_fd = inherited_fd(o.cfg.stdout_path);
		err_fd = inherited_fd(o.cfg.stderr_path);
		if (o.end_fd && (end_fd = supervise_end_fd_take(o.end_fd, err, sizeof err)) < 0)
			log_fatalx(EXIT_USAGE, "%s", err);
		/* After those: /dev/fd/N is the caller's. A report that cannot
		 * be written is found now, not once the program has run. */
		if (o.cfg.report) {
			/* The daemon would hold the caller's standard output,
			 * and $(proctord --daemonize ...) would wait for it. */
			if (o.daemonize &&
			    (strcmp(o.cfg.report, "-") == 0 || fd_path_is_stdout(o.cfg.report)))
				log_fatalx(EXIT_USAGE,
					   "--report %s: with --daemonize, standard output "
					   "carries the directory only; give a file",
					   o.cfg.report);
			if (report_file_open(&report, o.cfg.report, err, sizeof err) < 0)
				log_fatalx(EXIT_USAGE, "--report %s", err);
			exit_report = &report;
			atexit(remove_report_at_exit);
		}
	}
	if (o.check) {
		size_t n;

		/* Read-only: --check changes nothing on the machine. */
		cgroup_probe(&cg, (enum cg_mode)o.cfg.cgroup_mode, &o.cfg.limits);

		printf("proctord %s: configuration check", PROCTOR_VERSION);
		if (o.config_file)
			printf(" of %s%s%s%s", o.config_file, o.profile ? " [" : "",
			       o.profile ? o.profile : "", o.profile ? "]" : "");
		printf("\n\n");
		config_print_check(&o.cfg, stdout, check_mechanism, &cg);
		print_sources(&cg, stdout);
		if (cgroup_has_plan(&cg)) {
			printf("\nset-up (nothing was changed by --check)\n");
			cgroup_print_plan(&cg, stdout, "");
		}
		n = check_pidns(&o.cfg, stdout);
		n += cgroup_unhonoured(&cg, &o.cfg.limits, NULL, NULL);
		if (n) {
			printf("\n");
			cgroup_unhonoured(&cg, &o.cfg.limits, stdout, "");
		}
		n += check_isolation(&o.cfg, stdout, "\ncannot be honoured: ");
		cgroup_destroy(&cg);
		config_free(&o.cfg);
		return n ? EXIT_SETUP : 0;
	}
	/* From the first thing left behind (the cgroups) to the end of the
	 * clean-up, SIGTERM and the others must not kill proctord: held
	 * until the loop's signalfd takes them over, pending ones included;
	 * ignored once the loop is over (end_signals_ignore). */
	end_signals_block(SIG_BLOCK);
	if (cgroup_setup(&cg, (enum cg_mode)o.cfg.cgroup_mode, &o.cfg.limits, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	exit_cgroup = &cg;
	atexit(remove_cgroup_at_exit);
	/* --pids counts the program's processes: the PID namespace's init is
	 * proctord's, so pids.max has room for it (and loses it again if the
	 * program has to start without one). */
	pids_fix.cg = &cg;
	pids_fix.pids = o.cfg.limits.pids;
	if (o.cfg.limits.pids < UNITS_UNLIMITED - 1 &&
	    cgroup_set_pids_max(&cg, o.cfg.limits.pids + 1, err, sizeof err) < 0)
		log_fatalx(EXIT_SETUP, "%s", err);
	/* A limit that is asked for and not enforced must never pass silently. */
	if (cgroup_unhonoured(&cg, &o.cfg.limits, NULL, NULL) > 0) {
		cgroup_unhonoured(&cg, &o.cfg.limits, stderr,
				  o.cfg.strict ? "proctord: error: " : "proctord: warning: ");
		if (o.cfg.strict)
			return EXIT_SETUP;
	}
	env = build_env(&o.cfg);

	if (o.daemonize)
		ready_fd = daemonize(&o, env);
	/* A client gone mid-answer is EPIPE, not death. */
	signal(SIGPIPE, SIG_IGN);
	/* Orphans of the program come back to proctord, not to init, so the
	 * whole tree can be measured and killed. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		log_fatal(EXIT_SETUP, "PR_SET_CHILD_SUBREAPER");
	/* The program gets the caller's nice value back (prio_raise changes
	 * proctord's own). */
	errno = 0;
	nice_value = getpriority(PRIO_PROCESS, 0);
	if (errno != 0)
		nice_value = 0;

	loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_SIGNALFD | EVFLAG_NOENV);
	if (!loop)
		log_fatalx(EXIT_SETUP, "cannot create the event loop");
	/* A CPU-time deadline is only as punctual as proctord's wake-up. */
	prio_raise(&prio, loop, nice_value);
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

	spawn_config_init(&sc);
	sc.argv = o.argv;
	sc.envp = env;
	sc.stdin_path = o.cfg.stdin_path;
	sc.stdout_path = o.cfg.stdout_path;
	sc.stderr_path = o.cfg.stderr_path;
	sc.stdin_fd = in_fd;
	sc.stdout_fd = out_fd;
	sc.stderr_fd = err_fd;
	sc.null_stdio = o.daemonize;
	sc.chdir = o.cfg.chdir;
	sc.limits = &o.cfg.limits;
	sc.nice = nice_value;
	sc.cgroup_fd = cgroup_clone_fd(&cg);
	sc.cgroup_procs_fd = cgroup_v2_procs_fd(&cg, &sc.cgroup_path);
	sc.n_join = cgroup_join_fds(&cg, join_fds, join_paths, CG_MAX_HIER, 1);
	sc.join_fds = join_fds;
	sc.join_paths = join_paths;
	sc.isolate = &iso;
	sc.tty_foreground = tty_handover(&o, &iso);
	if (o.cfg.limits.output_limit != UNITS_UNLIMITED) {
		/* stdout and stderr go through proctord, to where they would
		 * have gone: the file or descriptor given, else proctord's own
		 * (daemonized: /dev/null). */
		struct output_dest d[2];
		int own[2] = {1, 2}, given[2] = {out_fd, err_fd};
		const char *paths[2] = {o.cfg.stdout_path, o.cfg.stderr_path};

		for (int i = 0; i < 2; i++) {
			d[i].fd = given[i] >= 0 ? given[i] : own[i];
			d[i].path = given[i] >= 0 ? NULL
				    : paths[i]	  ? paths[i]
				    : o.daemonize ? "/dev/null"
						  : NULL;
		}
		if (output_open(&output, loop, o.cfg.limits.output_limit, &d[0], &d[1]) < 0) {
			fifo_close(&fifo);
			sbdir_close(&dir);
			log_fatal(EXIT_SETUP, "output pipes");
		}
		out = &output;
		sc.stdout_fd = output_child_fd(out, 0);
		sc.stderr_fd = output_child_fd(out, 1);
		sc.stdout_err = output_open_error(out, 0, &sc.stdout_path);
		sc.stderr_err = output_open_error(out, 1, &sc.stderr_path);
	}
	if (o.cfg.seccomp) {
		sc.filter = &filter;
		/* The child hands the filter's listener over this. */
		if (filter.notify &&
		    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, filter_sv) < 0) {
			fifo_close(&fifo);
			sbdir_close(&dir);
			log_fatal(EXIT_SETUP, "socketpair");
		}
		sc.filter_sock = filter_sv[1];
	}
	sc.pidns = spawn_pidns_wanted();
	sc.pidns_required = o.cfg.strict;
	sc.pidns_fallback = pids_without_init;
	start_us = now_us();
	if (spawn_start(&sc, &child) < 0) {
		int saved = errno;

		fifo_close(&fifo);
		sbdir_close(&dir);
		errno = saved;
		if (child.pidns_err)
			log_fatalx(EXIT_SETUP,
				   "error: cannot make a PID namespace for the program (%s): it "
				   "could outlive proctord",
				   strerror(child.pidns_err));
		log_fatal(EXIT_SETUP, "cannot start %s", o.argv[0]);
	}
	if (child.pidns_err)
		log_warnx("warning: cannot make a PID namespace for the program (%s): it may "
			  "outlive proctord if it clears its parent-death signal",
			  strerror(child.pidns_err));
	title_running(dir.path, o.argv[0]);
	/* The program has its copies. */
	for (int i = 0; i < 3; i++) {
		int fds[3] = {in_fd, out_fd, err_fd};

		if (fds[i] >= 0)
			close(fds[i]);
	}
	if (filter_sv[1] >= 0)
		close(filter_sv[1]);
	if (supervise_init(&sv, loop, &o.cfg.limits, &child, &fifo, &cg, start_us, out,
			   filter_sv[0]) < 0) {
		/* Without its timers or listener the limits would not hold: end
		 * it now. */
		log_warn("cannot set up the supervisor (timers, the seccomp listener)");
		kill(child.pid, SIGKILL);
		waitpid(child.pid, NULL, 0);
		if (sc.tty_foreground)
			tty_take_back();
		fifo_close(&fifo);
		sbdir_close(&dir);
		return EXIT_SETUP;
	}
	sv.prio = &prio;
	sv.end_fd = end_fd;
	fin = (struct finish_ctx){&o.cfg, &sv, &cg, out, &iso, 0, child.pidns != SPAWN_PIDNS_NONE};
	if (o.cfg.report) {
		sv.finished = write_report;
		sv.finished_ctx = &fin;
	}
	fifo_start(&fifo);
	if (ready_fd >= 0)
		daemon_ready(ready_fd, dir.path);
	notify_systemd("READY=1");

	ev_run(loop, 0);

	end_signals_ignore();
	if (sc.tty_foreground)
		tty_take_back();
	supervise_call_finished(&sv);
	code = sv.exit_code;
	if (fin.failed && code == EXIT_PROTOCOL_DONE)
		code = EXIT_INTERNAL;
	supervise_finish(&sv);
	prio_finish(&prio);
	cgroup_destroy(&cg);
	exit_cgroup = NULL;
	if (out)
		output_close(out);
	sysfilter_free(&filter);
	fifo_close(&fifo);
	sbdir_close(&dir);
	ev_loop_destroy(loop);
	free_env(env);
	config_free(&o.cfg);
	return code;
}
