// SPDX-License-Identifier: ISC
// Benchmark for proctord: wait latency, CPU-limit overshoot, idle cost, memory, with references.

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CPU_LIMIT_US 200000	 // --cpu-time 200ms
#define TARGET_RATIO 2.0	 // wait p50 within 2x of the bare FIFO
#define TARGET_OVERSHOOT_US 5000 // CPU-limit overshoot under 5 ms
#define TARGET_IDLE_NS 2000000	 // idle CPU under 2 ms per idle window
#define POLL_MS 20		 // how often the overshoot run polls with a wait

struct bench_opts {
	char proctord[PATH_MAX];
	char spin[PATH_MAX];
	char echo[PATH_MAX];
	char sleep_prog[PATH_MAX];
	long iterations;
	long warmup;
	long runs;
	long idle_s;
};

// A sandbox directory and the server that answers on it: proctord or fifo-echo.
struct box {
	char dir[PATH_MAX];
	char wait_path[PATH_MAX];
	char status_path[PATH_MAX];
	char log[PATH_MAX];
	pid_t pid;
	bool is_echo;
};

struct proc_snap {
	uint64_t cpu_ns;
	uint64_t wakeups;
};

struct row {
	char figure[48];
	char value[16];
	char ref[32];
	char ratio[10];
	char target[20];
	char result[8];
};

struct verdict {
	char what[72];
	char detail[40];
	int state; // 1 PASS, 0 MISS, -1 could not be measured
};

static char bench_tmp[PATH_MAX];
static char bench_err[1024];
static volatile sig_atomic_t bench_alarm;
static bool bench_failed;
static const char *bench_cpu_source = "schedstat";
static struct row bench_rows[40];
static size_t bench_nrows;
static struct verdict bench_verdicts[12];
static size_t bench_nverdicts;
static unsigned bench_seq;

static void bench_alarm_cb(int sig)
{
	(void)sig;
	bench_alarm = 1;
}

// Records why a step failed; every caller returns -1 right after.
__attribute__((format(printf, 1, 2))) static int bench_fail(const char *fmt, ...)
{
	char msg[sizeof(bench_err)];
	va_list ap;

	// Through a copy: callers pass bench_err itself to add context.
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(bench_err, msg, sizeof(msg));
	return -1;
}

__attribute__((format(printf, 3, 4))) static void fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

#define FMT(field, ...) fmt(field, sizeof(field), __VA_ARGS__)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
			      .tv_nsec = (long)(ns % 1000000000u)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

// Arms a deadline for a blocking step: SIGALRM has no SA_RESTART, so a
// blocking open or read returns EINTR instead of hanging the benchmark on a
// server that never answers.
static void deadline_arm(unsigned seconds)
{
	bench_alarm = 0;
	alarm(seconds);
}

static void deadline_disarm(void)
{
	alarm(0);
	bench_alarm = 0;
}

static const char *box_why(void)
{
	return bench_alarm ? "timed out" : strerror(errno);
}

// One wait exactly as a client does it: open wait, write, close; open status,
// read to EOF, close. The answer is NUL-terminated in ans.
static ssize_t box_round_trip(const struct box *b, const char *req, char *ans, size_t size)
{
	size_t len = strlen(req), got = 0;
	ssize_t n;
	int fd;

	fd = open(b->wait_path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return bench_fail("open %s: %s", b->wait_path, box_why());
	n = write(fd, req, len);
	if (n != (ssize_t)len) {
		int e = errno;

		close(fd);
		errno = e;
		return bench_fail("write %s: %s", b->wait_path, n < 0 ? box_why() : "short write");
	}
	close(fd);
	fd = open(b->status_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bench_fail("open %s: %s", b->status_path, box_why());
	while ((n = read(fd, ans + got, size - 1 - got)) > 0) {
		got += (size_t)n;
		if (got == size - 1)
			break;
	}
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return bench_fail("read %s: %s", b->status_path, box_why());
	}
	close(fd);
	ans[got] = '\0';
	return (ssize_t)got;
}

// Splits an answer into its three lines; anything else is a protocol error.
static int answer_parse(char *ans, uint64_t *cpu_us, uint64_t *rss, const char **status)
{
	char *l1 = ans, *l2, *l3, *end, *e;

	l2 = strchr(l1, '\n');
	l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
	end = l3 ? strchr(l3 + 1, '\n') : NULL;
	if (!end || end[1] != '\0')
		return bench_fail("answer is not three lines: \"%s\"", ans);
	*l2++ = '\0';
	*l3++ = '\0';
	*end = '\0';
	errno = 0;
	*cpu_us = strtoull(l1, &e, 10);
	if (errno || e == l1 || *e)
		return bench_fail("line 1 is not a number: \"%s\"", l1);
	*rss = strtoull(l2, &e, 10);
	if (errno || e == l2 || *e)
		return bench_fail("line 2 is not a number: \"%s\"", l2);
	*status = l3;
	return 0;
}

static int box_wait(const struct box *b, const char *req, uint64_t *cpu_us, const char **status)
{
	static char ans[4096];
	uint64_t rss;

	if (box_round_trip(b, req, ans, sizeof(ans)) < 0)
		return -1;
	return answer_parse(ans, cpu_us, &rss, status);
}

static int box_paths(struct box *b, const char *dir)
{
	if (strlcpy(b->dir, dir, sizeof(b->dir)) >= sizeof(b->dir) ||
	    snprintf(b->wait_path, sizeof(b->wait_path), "%s/wait", dir) >=
		(int)sizeof(b->wait_path) ||
	    snprintf(b->status_path, sizeof(b->status_path), "%s/status", dir) >=
		(int)sizeof(b->status_path))
		return bench_fail("path too long: %s", dir);
	return 0;
}

// Exec helper for fork children: stdin from /dev/null, stdout to out_fd (or
// /dev/null), stderr to the log, so a daemon never holds the terminal or
// meson's pipes.
static void child_exec(const char *const *argv, int out_fd, const char *log)
{
	int null = open("/dev/null", O_RDWR);
	int err = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (null < 0 || err < 0 || dup2(null, 0) < 0 || dup2(out_fd >= 0 ? out_fd : null, 1) < 0 ||
	    dup2(err, 2) < 0)
		_exit(126);
	execv(argv[0], (char *const *)argv);
	dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static void log_dump(const char *log)
{
	char line[512];
	FILE *f = fopen(log, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "    | %s", line);
	fclose(f);
}

// Waits for a child of ours to end; returns its wait status, or -1 at the deadline.
static int child_reap(pid_t pid, unsigned timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0 && errno == ECHILD) {
			// Not our child (no subreaper): fall back to watching it vanish.
			if (kill(pid, 0) < 0 && errno == ESRCH)
				return 0;
		} else if (r < 0 && errno != EINTR) {
			return -1;
		}
		if (now_ns() > end)
			return -1;
		sleep_ns(2000000);
	}
}

static bool cmdline_matches(const char *buf, size_t len, const char *dir)
{
	const char *arg = buf, *end = buf + len, *second = buf + strlen(buf) + 1;

	// argv[1] too, for a proctord run through an interpreter or a wrapper.
	if (!strstr(buf, "proctord") && (second >= end || !strstr(second, "proctord")))
		return false;
	for (; arg < end; arg += strlen(arg) + 1) {
		const char *next = arg + strlen(arg) + 1;

		if (!strcmp(arg, "--dir") && next < end && !strcmp(next, dir))
			return true;
		if (!strncmp(arg, "--dir=", 6) && !strcmp(arg + 6, dir))
			return true;
	}
	return false;
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return bench_fail("open %s: %s", path, strerror(errno));
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return bench_fail("read %s: %s", path, strerror(errno));
	buf[n] = '\0';
	return 0;
}

static pid_t proc_ppid(pid_t pid)
{
	char path[64], buf[1024];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_file(path, buf, sizeof(buf)) < 0 || !(p = strstr(buf, "\nPPid:")))
		return -1;
	return (pid_t)atoi(p + 6);
}

// The daemonized proctord is found by its command line: argv[0] names
// proctord and "--dir DIR" names the unique directory this run gave it. The
// launcher has been reaped by then; a forked child that has not reached
// execve yet carries the same command line, so the daemon is the match whose
// parent is not a match. (The sandboxed program's parent would do as well,
// but finding the program needs the same scan.)
static pid_t daemon_find(const char *dir)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	pid_t match[16], found = -1;
	int n = 0, roots = 0;

	if (!proc)
		return bench_fail("opendir /proc: %s", strerror(errno));
	while ((de = readdir(proc)) && n < 16) {
		char path[64], buf[8192];
		ssize_t len;
		int fd, pid = atoi(de->d_name);

		if (pid <= 0 || pid == (int)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		if (cmdline_matches(buf, (size_t)len, dir))
			match[n++] = (pid_t)pid;
	}
	closedir(proc);
	for (int i = 0; i < n; i++) {
		pid_t ppid = proc_ppid(match[i]);
		bool child_of_match = false;

		for (int k = 0; k < n; k++)
			child_of_match |= ppid == match[k];
		if (!child_of_match) {
			found = match[i];
			roots++;
		}
	}
	if (roots != 1)
		return bench_fail("%d unrelated processes run proctord with --dir %s, expected 1",
				  roots, dir);
	return found;
}

static int box_kill(struct box *b)
{
	if (b->pid <= 0)
		return 0;
	kill(b->pid, SIGKILL);
	child_reap(b->pid, 2000);
	b->pid = 0;
	return 0;
}

// Starts proctord --daemonize on prog and returns once it printed its directory.
static int daemon_start(const struct bench_opts *o, struct box *b, const char *const *limits,
			const char *const *prog)
{
	const char *argv[32];
	char dir[PATH_MAX], line[PATH_MAX + 2];
	size_t argc = 0, got = 0;
	uint64_t end;
	pid_t launcher;
	int p[2], st;

	memset(b, 0, sizeof(*b));
	bench_seq++;
	if (snprintf(dir, sizeof(dir), "%s/box%u", bench_tmp, bench_seq) >= (int)sizeof(dir) ||
	    snprintf(b->log, sizeof(b->log), "%s/proctord%u.log", bench_tmp, bench_seq) >=
		(int)sizeof(b->log))
		return bench_fail("temporary directory path too long: %s", bench_tmp);
	argv[argc++] = o->proctord;
	argv[argc++] = "--daemonize";
	argv[argc++] = "--dir";
	argv[argc++] = dir;
	for (; limits && *limits; limits++)
		argv[argc++] = *limits;
	argv[argc++] = "--";
	for (; *prog; prog++)
		argv[argc++] = *prog;
	argv[argc] = NULL;

	if (pipe2(p, O_CLOEXEC) < 0)
		return bench_fail("pipe: %s", strerror(errno));
	launcher = fork();
	if (launcher < 0)
		return bench_fail("fork: %s", strerror(errno));
	if (launcher == 0)
		child_exec(argv, p[1], b->log);
	close(p[1]);
	// Read only the first line: the daemon itself may keep stdout open.
	end = now_ns() + 10000000000u;
	while (!memchr(line, '\n', got) && got < sizeof(line) - 1) {
		struct pollfd pfd = {.fd = p[0], .events = POLLIN};
		int left = (int)((end - now_ns()) / 1000000u);
		ssize_t n;

		if (now_ns() >= end || poll(&pfd, 1, left) == 0) {
			close(p[0]);
			kill(launcher, SIGKILL);
			child_reap(launcher, 1000);
			log_dump(b->log);
			return bench_fail("proctord --daemonize printed no directory within 10 s");
		}
		n = read(p[0], line + got, sizeof(line) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(p[0]);
	line[got] = '\0';
	st = child_reap(launcher, 10000);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (st < 0) {
			kill(launcher, SIGKILL);
			child_reap(launcher, 1000);
		}
		log_dump(b->log);
		return bench_fail("proctord --daemonize: launcher %s %d, printed \"%s\"",
				  st < 0	  ? "did not exit, status"
				  : WIFEXITED(st) ? "exited"
						  : "killed by signal",
				  st < 0	  ? -1
				  : WIFEXITED(st) ? WEXITSTATUS(st)
						  : WTERMSIG(st),
				  line);
	}
	if (!got || line[got - 1] != '\n')
		return bench_fail("proctord --daemonize printed \"%s\", not one line", line);
	line[got - 1] = '\0';
	if (strcmp(line, dir))
		fprintf(stderr, "bench: note: proctord printed \"%s\" for --dir %s\n", line, dir);
	if (box_paths(b, line) < 0)
		return -1;
	b->pid = daemon_find(dir);
	return b->pid < 0 ? -1 : 0;
}

// Ends a box with the terminating wait and checks that the server then exits 0.
static int box_stop(struct box *b)
{
	uint64_t cpu;
	const char *status;
	int st;

	if (b->pid <= 0)
		return 0;
	deadline_arm(5);
	if (box_wait(b, "0\n", &cpu, &status) < 0) {
		deadline_disarm();
		box_kill(b);
		return -1;
	}
	deadline_disarm();
	st = child_reap(b->pid, 5000);
	if (st < 0) {
		box_kill(b);
		return bench_fail("%s did not exit within 5 s after the terminating wait",
				  b->is_echo ? "fifo-echo" : "proctord");
	}
	b->pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return bench_fail("%s ended with wait status 0x%x after the terminating wait",
				  b->is_echo ? "fifo-echo" : "proctord", st);
	return 0;
}

static int echo_start(const struct bench_opts *o, struct box *b)
{
	const char *argv[3];
	char dir[PATH_MAX];

	memset(b, 0, sizeof(*b));
	b->is_echo = true;
	if (snprintf(dir, sizeof(dir), "%s/echo", bench_tmp) >= (int)sizeof(dir) ||
	    snprintf(b->log, sizeof(b->log), "%s/fifo-echo.log", bench_tmp) >= (int)sizeof(b->log))
		return bench_fail("temporary directory path too long: %s", bench_tmp);
	if (box_paths(b, dir) < 0)
		return -1;
	if (mkdir(dir, 0700) < 0 || mkfifo(b->wait_path, 0600) < 0 ||
	    mkfifo(b->status_path, 0600) < 0)
		return bench_fail("echo FIFOs in %s: %s", dir, strerror(errno));
	argv[0] = o->echo;
	argv[1] = dir;
	argv[2] = NULL;
	b->pid = fork();
	if (b->pid < 0)
		return bench_fail("fork: %s", strerror(errno));
	if (b->pid == 0)
		child_exec(argv, -1, b->log);
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

// Nearest-rank percentile of a sorted sample.
static uint64_t pct(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)(p * (double)n + 0.999999);

	return sorted[rank ? rank - 1 : 0];
}

#define LAT_BLOCK 500 // waits per block; the two servers alternate blocks

// The samples of one server. The servers take turns in blocks so that a
// drift of the machine (frequency, a noisy neighbour) hits both alike.
struct lat_series {
	const struct box *box;
	const char *name;
	uint64_t *s;
	size_t n;
	uint64_t busy_ns;
	bool ok;
	double p50_us, p99_us, per_s;
};

static int lat_block(struct lat_series *ls, long count, bool record)
{
	uint64_t start, cpu, rss;
	const char *status;
	char ans[512];

	// One deadline per block, so no syscall is added per wait.
	deadline_arm(30);
	start = now_ns();
	for (long i = 0; i < count; i++) {
		uint64_t t0 = now_ns();

		if (box_round_trip(ls->box, "1\n", ans, sizeof(ans)) < 0) {
			deadline_disarm();
			return bench_fail("%s, wait %zu of the block: %s", ls->name, (size_t)i,
					  bench_err);
		}
		if (record)
			ls->s[ls->n++] = now_ns() - t0;
	}
	if (record)
		ls->busy_ns += now_ns() - start;
	deadline_disarm();
	// Only a block's last answer is parsed, outside the timed loop, so the
	// check costs both servers nothing; a malformed answer still shows.
	bench_err[0] = '\0';
	if (answer_parse(ans, &cpu, &rss, &status) < 0 || strcmp(status, "running"))
		return bench_fail("%s answered: %s", ls->name, bench_err[0] ? bench_err : status);
	return 0;
}

static void lat_finish(struct lat_series *ls)
{
	if (!ls->ok || !ls->n)
		return;
	qsort(ls->s, ls->n, sizeof(*ls->s), u64_cmp);
	ls->p50_us = (double)pct(ls->s, ls->n, 0.50) / 1000.0;
	ls->p99_us = (double)pct(ls->s, ls->n, 0.99) / 1000.0;
	ls->per_s = (double)ls->n * 1e9 / (double)ls->busy_ns;
}

static uint64_t status_field(const char *status, const char *key)
{
	const char *p = strstr(status, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

// CPU of one process in ns (schedstat; stat ticks as a coarse fallback) and
// its wake-ups (voluntary + involuntary context switches).
static int proc_snapshot(pid_t pid, struct proc_snap *s)
{
	char path[64], buf[4096];
	unsigned long long run;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	if (read_file(path, buf, sizeof(buf)) == 0 && sscanf(buf, "%llu", &run) == 1) {
		s->cpu_ns = run;
	} else {
		unsigned long long ut, st;
		const char *p;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if (read_file(path, buf, sizeof(buf)) < 0)
			return -1;
		// Fields 14 and 15 follow the state, which follows the last ')'.
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				 &ut, &st) != 2)
			return bench_fail("cannot parse %s", path);
		s->cpu_ns = (ut + st) * (1000000000u / (unsigned long long)sysconf(_SC_CLK_TCK));
		bench_cpu_source = "stat (clock ticks)";
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	s->wakeups = status_field(buf, "\nvoluntary_ctxt_switches:") +
		     status_field(buf, "\nnonvoluntary_ctxt_switches:");
	return 0;
}

static int proc_rss_kib(pid_t pid, uint64_t *kib)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	if (!strstr(buf, "\nVmRSS:"))
		return bench_fail("no VmRSS in %s", path);
	*kib = status_field(buf, "\nVmRSS:");
	return 0;
}

static struct row *row_add(const char *figure)
{
	struct row *r = &bench_rows[bench_nrows++];

	memset(r, 0, sizeof(*r));
	FMT(r->figure, "%s", figure);
	return r;
}

static void row_na(const char *figure)
{
	struct row *r = row_add(figure);

	FMT(r->value, "n/a");
	FMT(r->result, "n/a");
}

static void verdict_add(int state, const char *what, const char *detail)
{
	struct verdict *v = &bench_verdicts[bench_nverdicts++];

	v->state = state;
	FMT(v->what, "%s", what);
	FMT(v->detail, "%s", detail);
}

static const char *pass(bool ok)
{
	return ok ? "PASS" : "MISS";
}

static void phase_failed(const char *phase)
{
	fprintf(stderr, "bench: %s could not run: %s\n", phase, bench_err);
	bench_failed = true;
}

static void bench_latency(const struct bench_opts *o, struct box *echo, struct box *d)
{
	const char *prog[] = {o->sleep_prog, "1000", NULL};
	struct lat_series bare = {.box = echo, .name = "fifo-echo"},
			  pdl = {.box = d, .name = "proctord"};
	struct lat_series *both[] = {&bare, &pdl};
	struct row *r;
	char detail[40];

	fprintf(stderr, "bench: wait latency, bare FIFO server and proctord, %ld waits each...\n",
		o->iterations);
	bare.ok = echo_start(o, echo) == 0;
	if (!bare.ok)
		phase_failed("bare FIFO server");
	pdl.ok = daemon_start(o, d, NULL, prog) == 0;
	if (!pdl.ok)
		phase_failed("proctord start for the wait latency");
	for (size_t k = 0; k < 2; k++) {
		struct lat_series *ls = both[k];

		if (ls->ok && !(ls->s = calloc((size_t)o->iterations, sizeof(*ls->s)))) {
			fprintf(stderr, "bench: out of memory\n");
			exit(1);
		}
		if (ls->ok && lat_block(ls, o->warmup, false) < 0) {
			ls->ok = false;
			phase_failed("wait latency warm-up");
			log_dump(ls->box->log);
		}
	}
	for (long done = 0; done < o->iterations; done += LAT_BLOCK) {
		long count = o->iterations - done < LAT_BLOCK ? o->iterations - done : LAT_BLOCK;

		for (size_t k = 0; k < 2; k++) {
			if (both[k]->ok && lat_block(both[k], count, true) < 0) {
				both[k]->ok = false;
				phase_failed("wait latency");
				log_dump(both[k]->box->log);
			}
		}
	}
	lat_finish(&bare);
	lat_finish(&pdl);
	free(bare.s);
	free(pdl.s);

	r = row_add("wait round trip p50 (us)");
	FMT(r->value, pdl.ok ? "%.1f" : "n/a", pdl.p50_us);
	FMT(r->ref, bare.ok ? "bare FIFO %.1f" : "bare FIFO n/a", bare.p50_us);
	if (pdl.ok && bare.ok) {
		double ratio = pdl.p50_us / bare.p50_us;

		FMT(r->ratio, "%.2fx", ratio);
		FMT(r->result, "%s", pass(ratio <= TARGET_RATIO));
		FMT(detail, "%.2fx bare", ratio);
		verdict_add(ratio <= TARGET_RATIO, "wait p50 within 2x of the bare FIFO", detail);
	} else {
		FMT(r->result, "n/a");
		verdict_add(-1, "wait p50 within 2x of the bare FIFO", "not measured");
	}
	FMT(r->target, "<= 2x bare");

	r = row_add("wait round trip p99 (us)");
	FMT(r->value, pdl.ok ? "%.1f" : "n/a", pdl.p99_us);
	FMT(r->ref, bare.ok ? "bare FIFO %.1f" : "bare FIFO n/a", bare.p99_us);
	if (pdl.ok && bare.ok)
		FMT(r->ratio, "%.2fx", pdl.p99_us / bare.p99_us);

	r = row_add("waits per second");
	FMT(r->value, pdl.ok ? "%.0f" : "n/a", pdl.per_s);
	FMT(r->ref, bare.ok ? "bare FIFO %.0f" : "bare FIFO n/a", bare.per_s);
	if (pdl.ok && bare.ok)
		FMT(r->ratio, "%.2fx", pdl.per_s / bare.per_s);
}

// One proctord --cpu-time 200ms run on the spinner; polls until the verdict.
static int overshoot_run(const struct bench_opts *o, const char *threads, int64_t *over_us)
{
	const char *limits[] = {"--cpu-time", "200ms", NULL};
	const char *prog[] = {o->spin, threads, NULL};
	uint64_t end, cpu;
	const char *status;
	struct box b;

	if (daemon_start(o, &b, limits, prog) < 0)
		return -1;
	end = now_ns() + 10000000000u;
	for (;;) {
		int r;

		deadline_arm(5);
		r = box_wait(&b, "1\n", &cpu, &status);
		deadline_disarm();
		if (r < 0)
			goto fail;
		if (!strncmp(status, "killed cpu-time", 15))
			break;
		if (strcmp(status, "running")) {
			bench_fail(
			    "expected \"running\" or \"killed cpu-time...\", got \"%s\" at %" PRIu64
			    " us",
			    status, cpu);
			goto fail;
		}
		if (now_ns() > end) {
			bench_fail(
			    "still running 10 s after start with --cpu-time 200ms (CPU %" PRIu64
			    " us)",
			    cpu);
			goto fail;
		}
		sleep_ns(POLL_MS * 1000000u);
	}
	*over_us = (int64_t)cpu - CPU_LIMIT_US;
	return box_stop(&b);
fail:
	box_kill(&b);
	log_dump(b.log);
	return -1;
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void bench_overshoot(const struct bench_opts *o, const char *threads)
{
	int64_t over[64];
	char fig[48], what[72], detail[40];
	struct row *r;
	long n = o->runs;
	int64_t p50, max;
	bool ok;
	char label[16];

	FMT(label, "%s thread%s", threads, strcmp(threads, "1") ? "s" : "");
	fprintf(stderr, "bench: cpu-time overshoot, %s, %ld runs...\n", label, n);
	for (long i = 0; i < n; i++) {
		if (overshoot_run(o, threads, &over[i]) < 0) {
			char phase[64];

			FMT(phase, "cpu-time overshoot (%s, run %ld)", label, i + 1);
			phase_failed(phase);
			FMT(fig, "cpu-time overshoot, %s, p50 (ms)", label);
			row_na(fig);
			FMT(fig, "cpu-time overshoot, %s, max (ms)", label);
			row_na(fig);
			FMT(what, "cpu-time overshoot under 5 ms, %s", label);
			verdict_add(-1, what, "not measured");
			return;
		}
	}
	qsort(over, (size_t)n, sizeof(*over), i64_cmp);
	// Every run on stderr, so an outlier can be told from a trend.
	fprintf(stderr, "bench:   overshoot (us, sorted):");
	for (long i = 0; i < n; i++)
		fprintf(stderr, " %" PRId64, over[i]);
	fprintf(stderr, "\n");
	p50 = over[(n - 1) / 2];
	max = over[n - 1];

	FMT(fig, "cpu-time overshoot, %s, p50 (ms)", label);
	r = row_add(fig);
	FMT(r->value, "%.2f", (double)p50 / 1000.0);
	FMT(r->ref, "limit 200 ms");
	FMT(r->target, "< 5 ms");
	FMT(r->result, "%s", pass(p50 < TARGET_OVERSHOOT_US));

	FMT(fig, "cpu-time overshoot, %s, max (ms)", label);
	r = row_add(fig);
	FMT(r->value, "%.2f", (double)max / 1000.0);
	FMT(r->ref, "min %.2f, %ld runs", (double)over[0] / 1000.0, n);
	FMT(r->target, "< 5 ms");
	ok = max < TARGET_OVERSHOOT_US;
	FMT(r->result, "%s", pass(ok));

	FMT(what, "cpu-time overshoot under 5 ms, %s, max of %ld", label, n);
	FMT(detail, "p50 %.2f ms, max %.2f ms", (double)p50 / 1000.0, (double)max / 1000.0);
	verdict_add(ok, what, detail);
}

struct idle_case {
	const char *name;
	const char *limits[3];
	struct box box;
	struct proc_snap before, after;
	bool ok;
};

static void bench_idle(const struct bench_opts *o, struct box *echo, struct box *latency_daemon)
{
	struct idle_case cases[] = {
	    {.name = "no limits"},
	    {.name = "--cpu-time 100s", .limits = {"--cpu-time", "100s", NULL}},
	    {.name = "--wall-time 100s", .limits = {"--wall-time", "100s", NULL}},
	};
	const char *prog[] = {o->sleep_prog, "1000", NULL};
	struct proc_snap echo_before = {0}, echo_after = {0};
	bool echo_ok = echo->pid > 0;
	uint64_t rss_fresh = 0, rss_used = 0, rss_echo = 0;
	bool fresh_ok = false, used_ok = false, rss_echo_ok = false;
	struct row *r;
	char fig[48], what[72], detail[40];

	fprintf(stderr, "bench: idle cost, %ld s with no clients...\n", o->idle_s);
	// The three daemons idle side by side in one window: idle processes do not
	// disturb each other, and the run takes one window instead of three.
	for (size_t i = 0; i < 3; i++) {
		cases[i].ok = daemon_start(o, &cases[i].box, cases[i].limits, prog) == 0;
		if (!cases[i].ok) {
			FMT(what, "idle (%s)", cases[i].name);
			phase_failed(what);
		}
	}
	// Let start-up work finish before the window opens.
	sleep_ns(300000000u);
	for (size_t i = 0; i < 3; i++)
		if (cases[i].ok && proc_snapshot(cases[i].box.pid, &cases[i].before) < 0)
			cases[i].ok = false;
	if (echo_ok && proc_snapshot(echo->pid, &echo_before) < 0)
		echo_ok = false;
	sleep_ns((uint64_t)o->idle_s * 1000000000u);
	for (size_t i = 0; i < 3; i++)
		if (cases[i].ok && proc_snapshot(cases[i].box.pid, &cases[i].after) < 0)
			cases[i].ok = false;
	if (echo_ok && proc_snapshot(echo->pid, &echo_after) < 0)
		echo_ok = false;

	if (cases[0].ok)
		fresh_ok = proc_rss_kib(cases[0].box.pid, &rss_fresh) == 0;
	if (latency_daemon->pid > 0)
		used_ok = proc_rss_kib(latency_daemon->pid, &rss_used) == 0;
	if (echo->pid > 0)
		rss_echo_ok = proc_rss_kib(echo->pid, &rss_echo) == 0;

	for (size_t i = 0; i < 3; i++) {
		struct idle_case *c = &cases[i];
		uint64_t cpu = c->after.cpu_ns - c->before.cpu_ns;

		FMT(fig, "idle %lds CPU (ms), %s", o->idle_s, c->name);
		r = row_add(fig);
		FMT(r->value, c->ok ? "%.3f" : "n/a", (double)cpu / 1e6);
		FMT(r->ref, echo_ok ? "bare FIFO %.3f" : "bare FIFO n/a",
		    (double)(echo_after.cpu_ns - echo_before.cpu_ns) / 1e6);
		FMT(r->target, "< 2 ms");
		FMT(r->result, "%s", c->ok ? pass(cpu < TARGET_IDLE_NS) : "n/a");
		FMT(what, "idle CPU under 2 ms in %ld s, %s", o->idle_s, c->name);
		FMT(detail, c->ok ? "%.3f ms, %" PRIu64 " wake-ups" : "not measured",
		    (double)cpu / 1e6, c->after.wakeups - c->before.wakeups);
		verdict_add(c->ok ? cpu < TARGET_IDLE_NS : -1, what, detail);

		FMT(fig, "idle %lds wake-ups, %s", o->idle_s, c->name);
		r = row_add(fig);
		FMT(r->value, c->ok ? "%" PRIu64 : "n/a", c->after.wakeups - c->before.wakeups);
		FMT(r->ref, echo_ok ? "bare FIFO %" PRIu64 : "bare FIFO n/a",
		    echo_after.wakeups - echo_before.wakeups);
	}

	r = row_add("VmRSS (KiB), idle daemon");
	FMT(r->value, fresh_ok ? "%" PRIu64 : "n/a", rss_fresh);
	FMT(r->ref, rss_echo_ok ? "bare FIFO %" PRIu64 : "bare FIFO n/a", rss_echo);
	if (fresh_ok && rss_echo_ok)
		FMT(r->ratio, "%.2fx", (double)rss_fresh / (double)rss_echo);
	r = row_add("VmRSS (KiB), after the waits");
	FMT(r->value, used_ok ? "%" PRIu64 : "n/a", rss_used);
	FMT(r->ref, "idle daemon %" PRIu64, rss_fresh);

	for (size_t i = 0; i < 3; i++)
		if (cases[i].ok && box_stop(&cases[i].box) < 0)
			phase_failed("stopping an idle proctord");
}

static void table_print(const struct bench_opts *o)
{
	static const char *const head[] = {"figure", "proctord", "reference (same run)",
					   "ratio",  "target",	 "result"};
	static const char rule[] =
	    "--------------------------------------------------------------------"
	    "--------------------------------------";
	int pass_n = 0, miss_n = 0, na_n = 0;

	printf(
	    "\nproctor benchmark: %s, %ld CPUs, %ld waits after %ld warm-up, %ld CPU-limit runs, "
	    "%ld s idle window, daemon CPU from /proc/PID/%s\n\n",
	    o->proctord, sysconf(_SC_NPROCESSORS_ONLN), o->iterations, o->warmup, o->runs,
	    o->idle_s, bench_cpu_source);
	printf("%-40s %10s  %-22s %7s  %-11s %s\n", head[0], head[1], head[2], head[3], head[4],
	       head[5]);
	printf("%.104s\n", rule);
	for (size_t i = 0; i < bench_nrows; i++) {
		const struct row *r = &bench_rows[i];

		printf("%-40s %10s  %-22s %7s  %-11s %s\n", r->figure, r->value, r->ref, r->ratio,
		       r->target, r->result);
	}
	printf("\nsummary (informational; the exit status does not depend on it)\n");
	for (size_t i = 0; i < bench_nverdicts; i++) {
		const struct verdict *v = &bench_verdicts[i];
		const char *s = v->state < 0 ? "N/A " : v->state ? "PASS" : "MISS";

		printf("  %s  %-62s %s\n", s, v->what, v->detail);
		pass_n += v->state == 1;
		miss_n += v->state == 0;
		na_n += v->state < 0;
	}
	printf("  %d PASS, %d MISS, %d not measured\n", pass_n, miss_n, na_n);
	fflush(stdout);
}

// Whatever is still our child here descends from a proctord this run started
// and that failed to clean up (we are its subreaper): say so, and end it.
static void children_kill_once(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;

	while (proc && (de = readdir(proc))) {
		char path[64], buf[1024];
		const char *ppid;
		int pid = atoi(de->d_name);

		if (pid <= 0 ||
		    snprintf(path, sizeof(path), "/proc/%d/status", pid) >= (int)sizeof(path) ||
		    read_file(path, buf, sizeof(buf)) < 0)
			continue;
		ppid = strstr(buf, "\nPPid:");
		if (ppid && atoi(ppid + 6) == (int)getpid()) {
			fprintf(stderr, "bench: leftover process %d (%.*s), killing it\n", pid,
				(int)strcspn(buf + 6, "\n"), buf + 6);
			kill(pid, SIGKILL);
		}
	}
	if (proc)
		closedir(proc);
}

// Rounds, because killing a leftover proctord hands its own children to us.
static void children_kill(void)
{
	for (int round = 0; round < 100; round++) {
		children_kill_once();
		sleep_ns(10000000u);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			return;
	}
	fprintf(stderr, "bench: children left behind\n");
}

static int path_sibling(char *out, const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n < 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return snprintf(out, PATH_MAX, "%s/%s", self, name) >= PATH_MAX ? -1 : 0;
}

static int path_find_in_path(char *out, const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;

	copy = strdup(path && *path ? path : "/usr/bin:/bin");
	if (!copy)
		return -1;
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (snprintf(out, PATH_MAX, "%s/%s", dir, name) < PATH_MAX &&
		    access(out, X_OK) == 0) {
			free(copy);
			return 0;
		}
	}
	free(copy);
	return -1;
}

static long opt_long(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "bench: %s must be an integer in %ld..%ld\n", what, min, max);
		exit(2);
	}
	return v;
}

static void opt_path(char *dst, const char *src)
{
	if (strlcpy(dst, src, PATH_MAX) >= PATH_MAX) {
		fprintf(stderr, "bench: path too long: %s\n", src);
		exit(2);
	}
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: bench [--proctord PATH] [--spin PATH] [--echo PATH] [-n WAITS] [--warmup N]\n"
	    "             [--runs N] [--idle SECONDS]\n"
	    "Prints proctord's wait latency, CPU-limit overshoot, idle cost and memory next to\n"
	    "same-run references. Defaults: --proctord ../../src/proctord, --spin and --echo next "
	    "to\n"
	    "this program, 5000 waits after 500 warm-up, 10 runs, 5 s idle window.\n");
}

static void opts_parse(int argc, char **argv, struct bench_opts *o)
{
	static const struct option longopts[] = {
	    {"proctord", required_argument, NULL, 'p'}, {"spin", required_argument, NULL, 's'},
	    {"echo", required_argument, NULL, 'e'},	{"warmup", required_argument, NULL, 'w'},
	    {"runs", required_argument, NULL, 'r'},	{"idle", required_argument, NULL, 'i'},
	    {"help", no_argument, NULL, 'h'},		{NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->iterations = 5000;
	o->warmup = 500;
	o->runs = 10;
	o->idle_s = 5;
	if (path_sibling(o->proctord, "../../src/proctord") < 0 ||
	    path_sibling(o->spin, "spin") < 0 || path_sibling(o->echo, "fifo-echo") < 0) {
		fprintf(stderr, "bench: cannot locate myself through /proc/self/exe\n");
		exit(1);
	}
	while ((c = getopt_long(argc, argv, "n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			opt_path(o->proctord, optarg);
			break;
		case 's':
			opt_path(o->spin, optarg);
			break;
		case 'e':
			opt_path(o->echo, optarg);
			break;
		case 'n':
			o->iterations = opt_long(optarg, "-n", 1, 10000000);
			break;
		case 'w':
			o->warmup = opt_long(optarg, "--warmup", 0, 10000000);
			break;
		case 'r':
			o->runs = opt_long(optarg, "--runs", 1, 64);
			break;
		case 'i':
			o->idle_s = opt_long(optarg, "--idle", 1, 3600);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc) {
		usage(stderr);
		exit(2);
	}
	if (path_find_in_path(o->sleep_prog, "sleep") < 0) {
		fprintf(stderr, "bench: no sleep(1) in PATH\n");
		exit(1);
	}
	// Relative paths must survive the children's exec from any directory.
	for (char *p = o->proctord; p; p = p == o->proctord ? o->spin
					   : p == o->spin   ? o->echo
							    : NULL) {
		char real[PATH_MAX];

		if (!realpath(p, real) || access(real, X_OK) < 0) {
			fprintf(stderr, "bench: %s: %s\n", p, strerror(errno));
			exit(1);
		}
		strlcpy(p, real, PATH_MAX);
	}
}

// Removes the temporary tree; proctord removes the boxes it created itself,
// so what is left are logs, the echo FIFOs and any box a failed run left.
static void tmp_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			tmp_remove(path);
		else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = bench_alarm_cb};
	struct bench_opts o;
	struct box echo = {0}, latency_daemon = {0};
	const char *base = getenv("TMPDIR");

	opts_parse(argc, argv, &o);
	// No SA_RESTART: the alarm must interrupt a blocking FIFO open.
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	// As subreaper we get the daemonized proctord back when its launcher exits,
	// so we can collect its exit code after the terminating wait.
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		fprintf(stderr, "bench: PR_SET_CHILD_SUBREAPER: %s (exit codes unchecked)\n",
			strerror(errno));
	if (snprintf(bench_tmp, sizeof(bench_tmp), "%s/proctor-bench.XXXXXX",
		     base && *base ? base : "/tmp") >= (int)sizeof(bench_tmp) ||
	    !mkdtemp(bench_tmp)) {
		fprintf(stderr, "bench: mkdtemp: %s\n", strerror(errno));
		return 1;
	}

	bench_latency(&o, &echo, &latency_daemon);
	bench_overshoot(&o, "1");
	bench_overshoot(&o, "4");
	bench_idle(&o, &echo, &latency_daemon);

	if (box_stop(&latency_daemon) < 0)
		phase_failed("stopping the latency proctord");
	if (box_stop(&echo) < 0)
		phase_failed("stopping fifo-echo");
	children_kill();

	table_print(&o);
	tmp_remove(bench_tmp);
	if (bench_failed)
		fprintf(stderr, "bench: some figures could not be measured (see above)\n");
	return bench_failed ? 1 : 0;
}
