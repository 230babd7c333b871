// SPDX-License-Identifier: ISC
// --run: isolate's options made a proctord command line, proctord run, its report read.
#include "isorun.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isocaller.h"
#include "isopaths.h"
#include "util.h"

/* A NULL-ended list of strings it owns. */
struct iso_argv {
	char **v;
	size_t n, cap;
};

static void iso_argv_add(struct iso_argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = xreallocarray(a->v, a->cap, sizeof *a->v);
	}
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void __attribute__((format(printf, 3, 4)))
iso_argv_addf(struct iso_argv *a, const char *opt, const char *fmt, ...)
{
	char buf[8400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	iso_argv_add(a, opt);
	iso_argv_add(a, buf);
}

static void iso_argv_free(struct iso_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* Whether path is dir or below it. */
static int iso_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* inner made absolute (against the working directory in the box) and
 * clean: no "..", ".", nor empty parts. */
static int iso_inner_abs(const struct iso_opts *o, const char *inner, char out[4096])
{
	char joined[8300];
	size_t n = 0;
	const char *p;

	if (inner[0] == '/')
		snprintf(joined, sizeof joined, "%s", inner);
	else if (!o->chdir)
		snprintf(joined, sizeof joined, "/box/%s", inner);
	else if (o->chdir[0] == '/')
		snprintf(joined, sizeof joined, "%s/%s", o->chdir, inner);
	else
		snprintf(joined, sizeof joined, "/box/%s/%s", o->chdir, inner);
	for (p = joined; *p;) {
		size_t part = strcspn(p, "/");

		if (part == 2 && p[0] == '.' && p[1] == '.')
			return -1;
		if (part && !(part == 1 && p[0] == '.')) {
			if (n + part + 2 > 4096)
				return -1;
			out[n++] = '/';
			memcpy(out + n, p, part);
			n += part;
		}
		p += part + (p[part] == '/');
	}
	out[n] = '\0';
	return n ? 0 : -1;
}

int iso_map_path(const struct iso_opts *o, const char *boxdir, const char *inner, char *out,
		 size_t len, char *err, size_t errlen)
{
	char abs[4096];
	const char *from = NULL, *to = NULL;

	if (iso_inner_abs(o, inner, abs) < 0)
		return iso_box_fail(err, errlen, "Invalid path in the box: %s", inner);
	if (strcmp(abs, "/dev/null") == 0) {
		snprintf(out, len, "/dev/null");
		return 0;
	}
	if (iso_below(abs, "/box")) {
		from = "/box";
		to = boxdir;
	}
	/* The deepest rule wins, as the deepest mount hides the others. */
	for (size_t i = 0; i < o->ndirs; i++) {
		const struct iso_dir *d = &o->dirs[i];

		if (!(d->flags & (ISO_DIR_TMP | ISO_DIR_REMOVE | ISO_DIR_SKIP | ISO_DIR_FS)) &&
		    iso_below(abs, d->in) &&
		    (!from || strlen(d->in) > strlen(from))) {
			from = d->in;
			to = d->out;
		}
	}
	if (!from)
		return iso_box_fail(
		    err, errlen,
		    "%s is neither in /box nor in a --dir rule: proctor-isolate cannot open it",
		    inner);
	if ((size_t)snprintf(out, len, "%s%s", to, abs + strlen(from)) >= len)
		return iso_box_fail(err, errlen, "Path too long: %s", inner);
	return 0;
}

/* env without NAME; then NAME=VALUE (set) where value is not NULL. */
static void iso_env_apply(struct iso_argv *env, const char *name, size_t nlen, const char *entry)
{
	size_t i = 0;

	while (i < env->n) {
		if (strncmp(env->v[i], name, nlen) == 0 && env->v[i][nlen] == '=') {
			free(env->v[i]);
			memmove(env->v + i, env->v + i + 1, (env->n - i) * sizeof *env->v);
			env->n--;
		} else {
			i++;
		}
	}
	if (entry)
		iso_argv_add(env, entry);
}

/* isolate's environment: empty (or ours with -e), LIBC_FATAL_STDERR_=1,
 * then the -E rules in order. */
static void iso_env_build(const struct iso_opts *o, struct iso_argv *args)
{
	struct iso_argv env = {0};

	for (char **e = environ; o->full_env && e && *e; e++)
		if (strchr(*e, '='))
			iso_argv_add(&env, *e);
	iso_env_apply(&env, "LIBC_FATAL_STDERR_", 18, "LIBC_FATAL_STDERR_=1");
	for (size_t i = 0; i < o->nenv; i++) {
		const char *arg = o->env[i].arg, *eq = strchr(arg, '=');
		size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
		char *inherited = NULL;

		if (o->env[i].op == ISO_ENV_INHERIT && getenv(arg))
			xasprintf(&inherited, "%s=%s", arg, getenv(arg));
		iso_env_apply(&env, arg, nlen, o->env[i].op == ISO_ENV_SET ? arg : inherited);
		free(inherited);
	}
	iso_argv_add(args, "--clear-env");
	for (size_t i = 0; i < env.n; i++)
		iso_argv_addf(args, "--env", "%s", env.v[i]);
	iso_argv_free(&env);
}

/* The limits: isolate's sizes are KiB, its times whole milliseconds; -t
 * kills at max(-t, -x) (-x is absolute), the rest is checked after. */
static void iso_limits(const struct iso_opts *o, struct iso_argv *a)
{
	if (o->time_ms)
		iso_argv_addf(a, "--cpu-time", "%ldms",
			      o->extra_ms > o->time_ms ? o->extra_ms : o->time_ms);
	if (o->wall_ms)
		iso_argv_addf(a, "--wall-time", "%ldms", o->wall_ms);
	if (o->cg_mem > 0)
		iso_argv_addf(a, "--memory-max", "%ldKiB", o->cg_mem);
	if (o->mem > 0)
		iso_argv_addf(a, "--address-space", "%ldKiB", o->mem);
	if (o->stack > 0)
		iso_argv_addf(a, "--stack", "%ldKiB", o->stack);
	else
		iso_argv_addf(a, "--stack", "unlimited");
	if (o->fsize > 0)
		iso_argv_addf(a, "--fsize", "%ldKiB", o->fsize);
	if (o->nofile == 0)
		iso_argv_addf(a, "--nofile", "unlimited");
	else
		iso_argv_addf(a, "--nofile", "%ld", o->nofile == ISO_UNSET ? 1024 : o->nofile);
	if (o->processes)
		iso_argv_addf(a, "--pids", "%ld", o->processes);
}

/* Whether a rule keeps what proctord's box has at path: :tmp or :fs there
 * (the box's own /tmp, /dev/shm and /proc). */
static int iso_keeps(const struct iso_opts *o, const char *path)
{
	for (size_t i = 0; i < o->ndirs; i++)
		if ((o->dirs[i].flags & (ISO_DIR_TMP | ISO_DIR_FS)) && strcmp(o->dirs[i].in, path) == 0)
			return 1;
	return 0;
}

/* -D: nothing of proctord's box but /box (isolate's defaults are /bin,
 * /dev, /lib, /lib64, /proc, /tmp and /usr; proctord's box has /sbin,
 * /lib32, /libx32 and a partial /etc too), but what a :tmp or :fs rule
 * keeps (its /dev stays for a rule at /dev/shm). */
static void iso_no_defaults(const struct iso_opts *o, struct iso_argv *a)
{
	static const char *const box_defaults[] = {"/usr",  "/bin",   "/sbin", "/lib",
						   "/lib64", "/lib32", "/libx32", "/etc",
						   "/dev",  "/proc",  "/tmp",	NULL};

	for (size_t i = 0; o->no_default_dirs && box_defaults[i]; i++) {
		const char *p = box_defaults[i];

		if (!iso_keeps(o, strcmp(p, "/dev") == 0 ? "/dev/shm" : p))
			iso_argv_addf(a, "--box-omit", "%s", p);
	}
}

/* The directory rules as binds, each source its path or the descriptor
 * iso_sources opened; :tmp and :fs are what the box has already, IN=
 * leaves out what the box has at IN (--box-omit). */
static void iso_binds(const struct iso_opts *o, const int *fds, struct iso_argv *a)
{
	iso_no_defaults(o, a);
	for (size_t i = 0; i < o->ndirs; i++) {
		const struct iso_dir *d = &o->dirs[i];
		const char *opt = d->flags & ISO_DIR_RW    ? "--bind"
				  : d->flags & ISO_DIR_DEV ? "--dev-bind"
							   : "--ro-bind";

		if (d->flags & ISO_DIR_REMOVE)
			iso_argv_addf(a, "--box-omit", "%s", d->in);
		if (d->flags & (ISO_DIR_TMP | ISO_DIR_REMOVE | ISO_DIR_SKIP | ISO_DIR_FS))
			continue;
		if (fds[i] >= 0)
			iso_argv_addf(a, opt, "/proc/self/fd/%d:%s", fds[i], d->in);
		else
			iso_argv_addf(a, opt, "%s:%s", d->out, d->in);
	}
}

/* Whether the directory path is in is reached with no symbolic link. */
static int iso_canonical_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char parent[4096], *real;
	int same;

	if (!slash || slash == path)
		return 1;
	snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path);
	real = realpath(parent, NULL);
	same = real && strcmp(real, parent) == 0;
	free(real);
	return same;
}

/* Sudo: the source's path for proctord, which walks it refusing a
 * symbolic link of another user on the way or at its end; but a link of
 * root's at its end is followed here, as isolate's mount(2) would (/lib
 * is one to usr/lib on merged-/usr hosts). A missing :maybe source is
 * marked ISO_DIR_SKIP. Returns 0, or -1 with err set. */
static int iso_source_path(struct iso_dir *d, char *err, size_t errlen)
{
	struct stat st;
	char *real;

	if (lstat(d->out, &st) < 0) {
		if (d->flags & ISO_DIR_MAYBE)
			d->flags |= ISO_DIR_SKIP;
		return 0;
	}
	if (!S_ISLNK(st.st_mode) || st.st_uid != 0 || !iso_canonical_parent(d->out))
		return 0;
	real = realpath(d->out, NULL);
	if (!real && (d->flags & ISO_DIR_MAYBE)) {
		d->flags |= ISO_DIR_SKIP;
		return 0;
	}
	if (!real || strlen(real) >= sizeof d->out) {
		free(real);
		return iso_box_fail(err, errlen, "Cannot bind %s on %s: %s", d->out, d->in,
				    real ? "path too long" : strerror(errno));
	}
	memcpy(d->out, real, strlen(real) + 1);
	free(real);
	return 0;
}

/* The rules' sources, in o (a copy of the caller's). Set-user-ID, each is
 * opened here with the caller's rights, as isolate mounts it as the
 * caller (following its links; a directory root could reach but the
 * caller cannot is refused), into fds, and its out made the path it has
 * (the redirects are mapped through it); sudo, iso_source_path. A missing
 * :maybe source is marked ISO_DIR_SKIP. Returns 0, or -1 with err set. */
static int iso_sources(struct iso_opts *o, const struct iso_caller *c, int *fds, char *err,
		       size_t errlen)
{
	struct stat st;

	for (size_t i = 0; i < o->ndirs; i++) {
		struct iso_dir *d = &o->dirs[i];
		char link[64];
		ssize_t n;

		fds[i] = -1;
		if (d->flags & (ISO_DIR_TMP | ISO_DIR_REMOVE | ISO_DIR_FS))
			continue;
		if (!c->setuid) {
			if (iso_source_path(d, err, errlen) < 0)
				return -1;
			continue;
		}
		fds[i] = iso_caller_open(c, d->out, O_PATH | O_CLOEXEC, 0);
		if (fds[i] < 0 && (d->flags & ISO_DIR_MAYBE) && (errno == ENOENT || errno == ENOTDIR)) {
			d->flags |= ISO_DIR_SKIP;
			continue;
		}
		if (fds[i] < 0)
			return iso_box_fail(err, errlen, "Cannot bind %s on %s: %s", d->out, d->in,
					    strerror(errno));
		if (fstat(fds[i], &st) < 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			return iso_box_fail(err, errlen,
					    "Cannot bind %s on %s: not a directory nor a file", d->out,
					    d->in);
		snprintf(link, sizeof link, "/proc/self/fd/%d", fds[i]);
		n = readlink(link, d->out, sizeof d->out - 1);
		if (n <= 0 || d->out[0] != '/')
			return iso_box_fail(err, errlen, "Cannot bind %s: cannot tell where it is",
					    d->in);
		d->out[n] = '\0';
	}
	return 0;
}

/* The redirects as host paths. Set-user-ID, never one that proctord takes
 * for a descriptor of its own above 2 (/dev/fd/N, /proc/self/fd/N: a
 * --dir rule of /proc or /dev leads there): its report's, its end pipe's,
 * the binds' sources'. */
static int iso_stdio(const struct iso_opts *o, const struct iso_box *b,
		     const struct iso_caller *c, struct iso_argv *a, char *err, size_t errlen)
{
	static const char *const opts[] = {"--stdin", "--stdout", "--stderr"};
	const char *paths[] = {o->in, o->out, o->err};
	char host[8300];

	for (int i = 0; i < 3; i++) {
		if (!paths[i])
			continue;
		if (iso_map_path(o, b->box, paths[i], host, sizeof host, err, errlen) < 0)
			return -1;
		if (c->setuid && fd_path_number(host) > 2)
			return iso_box_fail(err, errlen,
					    "%s is %s, one of proctord's own descriptors",
					    paths[i], host);
		iso_argv_addf(a, opts[i], "%s", host);
	}
	if (o->stderr_to_stdout)
		iso_argv_add(a, "--stderr-to-stdout");
	if (o->chdir)
		iso_argv_addf(a, "--chdir", "%s%s", o->chdir[0] == '/' ? "" : "/box/", o->chdir);
	return 0;
}

/* Set-user-ID: the proctord of the installation (iso_proctord_path),
 * root's alone. Else $PROCTORD, else the proctord beside us, else the one
 * on the PATH. Returns 0, or -1 with err set. */
static int iso_proctord(const struct iso_caller *c, struct iso_argv *a, char *err, size_t errlen)
{
	const char *env = getenv("PROCTORD");
	char buf[4096];
	ssize_t n;

	if (c->setuid) {
		if (iso_caller_trusted(iso_proctord_path, NULL, err, errlen) < 0)
			return -1;
		iso_argv_add(a, iso_proctord_path);
		return 0;
	}
	if (env && *env) {
		iso_argv_add(a, env);
		return 0;
	}
	n = readlink("/proc/self/exe", buf, sizeof buf - sizeof "/proctord");
	if (n > 0) {
		char *slash;

		buf[n] = '\0';
		slash = strrchr(buf, '/');
		if (slash) {
			memcpy(slash, "/proctord", sizeof "/proctord");
			if (access(buf, X_OK) == 0) {
				iso_argv_add(a, buf);
				return 0;
			}
		}
	}
	iso_argv_add(a, "proctord");
	return 0;
}

/* What a run hands proctord: its command line, the descriptors it
 * inherits (the report, the end pipe, the binds' sources), who asked. */
struct iso_launch {
	struct iso_argv argv;
	const struct iso_caller *caller;
	int report_fd, end[2];
	int fds[ISO_MAX_DIRS]; /* iso_sources' (-1: none) */
};

/* proctord's whole command line. */
static int iso_command(const struct iso_opts *o, const struct iso_box *b, struct iso_launch *l,
		       char *err, size_t errlen)
{
	struct iso_argv *a = &l->argv;

	if (iso_proctord(l->caller, a, err, errlen) < 0)
		return -1;
	iso_argv_addf(a, "--dir", "%s.run", b->lock);
	iso_argv_addf(a, "--report-fd", "%d", l->report_fd);
	iso_argv_addf(a, "--end-fd", "%d", l->end[1]);
	iso_argv_addf(a, "--box", "%s", b->box);
	iso_argv_addf(a, "--user", "%u", (unsigned)b->uid);
	iso_argv_addf(a, "--group", "%u", (unsigned)b->gid);
	/* isolate's box has its own network with the loopback up. */
	iso_argv_add(a, o->share_net ? "--share-net" : "--loopback");
	iso_limits(o, a);
	iso_binds(o, l->fds, a);
	iso_env_build(o, a);
	if (iso_stdio(o, b, l->caller, a, err, errlen) < 0)
		return -1;
	iso_argv_add(a, "--");
	for (int i = 0; i < o->argc; i++)
		iso_argv_add(a, o->argv[i]);
	return 0;
}

/* isolate's interrupt: SIGINT, SIGTERM, SIGHUP or SIGQUIT to us ends the
 * run (proctord passes SIGTERM on to the program, gives it the grace, then
 * kills the tree) and is written as SG "Interrupted", not as our death. */
static volatile sig_atomic_t iso_interrupt;
static volatile pid_t iso_child;

static void iso_on_signal(int sig)
{
	if (!iso_interrupt)
		iso_interrupt = sig;
	if (iso_child > 0)
		kill(iso_child, SIGTERM);
}

static void iso_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = iso_on_signal;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
}

/* The child: proctord, with what it inherits. Set-user-ID, wholly root
 * first, with an environment of ours (not the caller's: proctord is not
 * set-user-ID itself, so nothing would clean it). */
static void iso_exec(const struct iso_launch *l, pid_t parent)
{
	static char *const clean_env[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
					  NULL};

	if (iso_caller_become_root(l->caller) < 0) {
		fprintf(stderr, "Cannot become root for proctord: %s\n", strerror(errno));
		_exit(127);
	}
	/* After the ids' change, which clears it. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	fcntl(l->end[1], F_SETFD, 0);
	fcntl(l->report_fd, F_SETFD, 0);
	for (size_t i = 0; i < ISO_MAX_DIRS; i++)
		if (l->fds[i] >= 0)
			fcntl(l->fds[i], F_SETFD, 0);
	if (l->caller->setuid)
		execve(l->argv.v[0], l->argv.v, clean_env);
	else
		execvp(l->argv.v[0], l->argv.v);
	fprintf(stderr, "Cannot run %s: %s\n", l->argv.v[0], strerror(errno));
	_exit(127);
}

/* Start proctord and wait for its end. Returns its wait status, or -1. */
static int iso_spawn(struct iso_launch *l, char *err, size_t errlen)
{
	pid_t parent = getpid(), pid;
	siginfo_t info;
	int status;

	iso_signals();
	pid = fork();
	if (pid < 0) {
		close(l->end[1]);
		return iso_box_fail(err, errlen, "fork: %s", strerror(errno));
	}
	if (pid == 0)
		iso_exec(l, parent);
	close(l->end[1]);
	iso_child = pid;
	if (iso_interrupt)
		kill(pid, SIGTERM);
	/* Ended, but not reaped yet: its pid cannot be another process's
	 * until iso_on_signal has forgotten it. Reaped first, a signal of the
	 * caller's (which may also stop us there until the pid is reused)
	 * would have us, root, kill whatever has it then. */
	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0) {
		if (errno != EINTR) {
			iso_child = 0;
			return iso_box_fail(err, errlen, "waitid: %s", strerror(errno));
		}
	}
	iso_child = 0;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return iso_box_fail(err, errlen, "waitpid: %s", strerror(errno));
	}
	return status;
}

/* The report in the memfd. */
static int iso_report(int fd, int status, struct iso_outcome *r, char *err, size_t errlen)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int rc;

	if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < (1 << 20)) {
		buf = xmalloc((size_t)st.st_size + 1);
		n = pread(fd, buf, (size_t)st.st_size, 0);
		rc = n > 0 ? iso_outcome_read(buf, (size_t)n, r) : -1;
		free(buf);
		if (rc == 0)
			return 0;
	}
	if (WIFSIGNALED(status))
		return iso_box_fail(err, errlen, "proctord was killed by signal %d",
				    WTERMSIG(status));
	return iso_box_fail(err, errlen, "proctord exited %d before its report",
			    WEXITSTATUS(status));
}

/* What proctord inherits: the sources first, so that a caller's
 * --dir=/x=/proc/self/fd/N cannot name the report's memfd (which the box
 * could then write), then the report and the end pipe. 0, or -1. */
static int iso_launch_open(struct iso_launch *l, struct iso_opts *o, char *err, size_t errlen)
{
	if (iso_sources(o, l->caller, l->fds, err, errlen) < 0)
		return -1;
	l->report_fd = memfd_create("proctor-isolate-report", MFD_CLOEXEC);
	if (l->report_fd < 0)
		return iso_box_fail(err, errlen, "memfd_create: %s", strerror(errno));
	if (pipe2(l->end, O_CLOEXEC) < 0)
		return iso_box_fail(err, errlen, "pipe: %s", strerror(errno));
	return 0;
}

int iso_run(const struct iso_opts *o, const struct iso_box *b, const struct iso_caller *c,
	    struct iso_outcome *r, char *err, size_t errlen)
{
	struct iso_launch l = {.caller = c, .report_fd = -1, .end = {-1, -1}};
	struct iso_opts *mine = xmalloc(sizeof *mine);
	int status, rc = -1;

	*mine = *o;
	for (size_t i = 0; i < ISO_MAX_DIRS; i++)
		l.fds[i] = -1;
	if (iso_launch_open(&l, mine, err, errlen) == 0 && iso_command(mine, b, &l, err, errlen) == 0) {
		status = iso_spawn(&l, err, errlen);
		l.end[1] = -1; /* iso_spawn's to close */
		if (status >= 0)
			rc = iso_report(l.report_fd, status, r, err, errlen);
		r->interrupt = iso_interrupt;
	}
	for (size_t i = 0; i < ISO_MAX_DIRS; i++)
		if (l.fds[i] >= 0)
			close(l.fds[i]);
	for (int i = 0; i < 2; i++)
		if (l.end[i] >= 0)
			close(l.end[i]);
	if (l.report_fd >= 0)
		close(l.report_fd);
	iso_argv_free(&l.argv);
	free(mine);
	return rc;
}
