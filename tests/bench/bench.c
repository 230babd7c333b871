// SPDX-License-Identifier: ISC
// Benchmark for proctord against the physical floor: one table, each figure next to its reference.
//
// Phases (--phases, default all): latency, shell, start, cpu, wall, sections,
// idle, density. tests/bench/README.md says what each figure is and how it
// is measured.

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// Targets of issue 7; a missed one is reported, not fatal.
#define CPU_LIMIT_US 200000	       // --cpu-time 200ms
#define WALL_LIMIT_US 200000	       // --wall-time 200ms
#define TARGET_RATIO 1.5	       // wait p50 within 1.5x of the bare FIFO (issue 16)
#define TARGET_RUN_RATIO 3.0	       // proctor run -- /bin/true within 3x of /bin/true
#define TARGET_EXEC_RATIO 1.5	       // start to exec within 1.5x of fork+exec
#define TARGET_OVER_P50_US 5000	       // CPU-limit overshoot, p50
#define TARGET_OVER_MAX_US 15000       // CPU-limit overshoot, max
#define TARGET_SECTION_MIN_US 1000     // section error: 1 ms...
#define TARGET_SECTION_PERMILLE 10     // ...or 1%, whichever is larger
#define TARGET_IDLE_NS_PER_10S 1000000 // idle CPU under 1 ms per 10 s
#define TARGET_RSS_KIB 2048	       // resident memory under 2 MiB
#define TARGET_DENSITY_P99_US 2000     // 200 sandboxes polled at 10 Hz: p99 under 2 ms
#define POLL_MS 20		       // how often an overshoot run polls with a wait
#define LAT_BLOCK 500		       // C-client waits per block; the servers alternate
#define SHELL_BLOCK 100		       // shell waits per block

enum phase {
	PHASE_LATENCY = 1 << 0,
	PHASE_SHELL = 1 << 1,
	PHASE_START = 1 << 2,
	PHASE_CPU = 1 << 3,
	PHASE_WALL = 1 << 4,
	PHASE_SECTIONS = 1 << 5,
	PHASE_IDLE = 1 << 6,
	PHASE_DENSITY = 1 << 7,
};

static const struct {
	const char *name;
	enum phase bit;
} phase_names[] = {
    {"latency", PHASE_LATENCY}, {"shell", PHASE_SHELL},	    {"start", PHASE_START},
    {"cpu", PHASE_CPU},		{"wall", PHASE_WALL},	    {"sections", PHASE_SECTIONS},
    {"idle", PHASE_IDLE},	{"density", PHASE_DENSITY},
};

struct bench_opts {
	char proctord[PATH_MAX];
	char proctor[PATH_MAX];
	char spin[PATH_MAX];
	char echo[PATH_MAX];
	char stamp[PATH_MAX];
	char floor[PATH_MAX];
	char burn[PATH_MAX];
	char sleep_prog[PATH_MAX];
	char true_prog[PATH_MAX];
	char bash[PATH_MAX];
	const char *json;
	const char *plot;
	unsigned phases;
	long iterations;
	long warmup;
	long shell_waits;
	long starts;
	long runs;
	long idle_s;
	long density;
	long density_s;
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
	char figure[52];
	char value[16];
	char ref[34];
	char ratio[10];
	char target[16];
	char result[8];
};

struct verdict {
	char what[72];
	char detail[48];
	int state; // 1 PASS, 0 MISS, -1 could not be measured
};

// Latency samples (ns), kept for the plot.
struct samples {
	const char *label;
	uint64_t *v;
	size_t n, cap;
};

static char bench_tmp[PATH_MAX];
static char bench_err[1024];
static volatile sig_atomic_t bench_alarm;
static bool bench_failed;
static const char *bench_cpu_source = "schedstat";
static struct row bench_rows[64];
static size_t bench_nrows;
static struct verdict bench_verdicts[32];
static size_t bench_nverdicts;
static unsigned bench_seq;
static char bench_load_start[64], bench_load_end[64];
static char bench_cgroups[512];
// --cgroup MODE: given to every proctord (and proctor run); NULL: its default.
static const char *bench_cgroup;

static struct samples plot_bare = {.label = "bare FIFO echo server, C client"};
static struct samples plot_pdl = {.label = "proctord, C client"};
static struct samples plot_shell_bare = {.label = "bare FIFO echo server, shell"};
static struct samples plot_shell_pdl = {.label = "proctord, shell"};
static char plot_density_label[64];
static struct samples plot_density = {.label = plot_density_label};
static struct samples plot_echo_paced = {.label =
					     "bare FIFO echo server, same pace as the density run"};

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

static void sleep_until_ns(uint64_t t)
{
	struct timespec ts = {.tv_sec = (time_t)(t / 1000000000u),
			      .tv_nsec = (long)(t % 1000000000u)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void samples_add(struct samples *s, uint64_t v)
{
	if (s->n == s->cap) {
		uint64_t *more;

		s->cap = s->cap ? s->cap * 2 : 1024;
		more = realloc(s->v, s->cap * sizeof(*s->v));
		if (!more) {
			fprintf(stderr, "bench: out of memory\n");
			exit(1);
		}
		s->v = more;
	}
	s->v[s->n++] = v;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

// Nearest-rank percentile of a sorted sample.
static uint64_t pct(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)(p * (double)n + 0.999999);

	return sorted[rank ? rank - 1 : 0];
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

// One wait as libproctor makes it: open status for reading, non-blocking
// (so the server finds its reader there at once); open wait, write, close;
// poll status and read to EOF, close. (A FIFO reader that has never seen a
// writer gets no POLLHUP: poll waits for the answer.) The answer is
// NUL-terminated in ans.
static ssize_t box_round_trip(const struct box *b, const char *req, char *ans, size_t size)
{
	size_t len = strlen(req), got = 0;
	struct pollfd pfd;
	ssize_t n;
	int fd, sfd;

	sfd = open(b->status_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (sfd < 0)
		return bench_fail("open %s: %s", b->status_path, box_why());
	fd = open(b->wait_path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		close(sfd);
		errno = e;
		return bench_fail("open %s: %s", b->wait_path, box_why());
	}
	n = write(fd, req, len);
	if (n != (ssize_t)len) {
		int e = errno;

		close(fd);
		close(sfd);
		errno = e;
		return bench_fail("write %s: %s", b->wait_path, n < 0 ? box_why() : "short write");
	}
	close(fd);
	fd = sfd;
	pfd = (struct pollfd){.fd = fd, .events = POLLIN};
	for (;;) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR && !bench_alarm)
				continue;
			n = -1;
			break;
		}
		n = read(fd, ans + got, size - 1 - got);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0)
			break;
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

	*cpu_us = *rss = 0;
	*status = "";
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

// A wait under a deadline, parsed. status points into a static buffer.
static int box_wait(const struct box *b, const char *req, uint64_t *cpu_us, const char **status)
{
	static char ans[4096];
	uint64_t rss;
	ssize_t n;

	deadline_arm(10);
	n = box_round_trip(b, req, ans, sizeof(ans));
	deadline_disarm();
	if (n < 0)
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

// The benchmark's own scheduling priority raised as proctord raises its own
// (nice -10), so that other load on the machine delays its client side less;
// bench_nice is the caller's, which every child but the reference server
// gets back: proctord raises itself, and the sandboxed programs must keep
// the caller's.
static int bench_nice;
static bool bench_niced;

// Exec helper for fork children: stdin from /dev/null, stdout to out_fd (or
// /dev/null), stderr to the log, so a daemon never holds the terminal or
// meson's pipes.
static void child_exec(const char *const *argv, int out_fd, const char *log)
{
	int null = open("/dev/null", O_RDWR);

	if (bench_niced)
		setpriority(PRIO_PROCESS, 0, bench_nice);
	int err = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

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
	FILE *f = fopen(log, "re");

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
	pid_t r;
	int st;

	// Blocking, so that a figure that ends with a child's exit is not
	// rounded up to a polling period; the deadline cuts it short.
	deadline_arm((timeout_ms + 999) / 1000);
	do
		r = waitpid(pid, &st, 0);
	while (r < 0 && errno == EINTR && !bench_alarm);
	deadline_disarm();
	if (r == pid)
		return st;
	if (r < 0 && errno != ECHILD)
		return -1;
	for (;;) {
		r = waitpid(pid, &st, WNOHANG);

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
		sleep_ns(1000000);
	}
}

static bool cmdline_matches(const char *buf, size_t len, const char *dir)
{
	const char *arg = buf, *end = buf + len, *second = buf + strlen(buf) + 1;
	size_t dlen = strlen(dir);

	// Its process title once the program has started: "proctord: DIR: ...".
	if (strncmp(buf, "proctord: ", 10) == 0 && strncmp(buf + 10, dir, dlen) == 0 &&
	    strncmp(buf + 10 + dlen, ": ", 2) == 0)
		return true;

	// argv[1] too, for a proctord run through an interpreter or a wrapper.
	if (!strstr(buf, "proctord") && (second >= end || !strstr(second, "proctord")))
		return false;
	for (; arg < end; arg += strlen(arg) + 1) {
		const char *next = arg + strlen(arg) + 1;

		if (strcmp(arg, "--dir") == 0 && next < end && strcmp(next, dir) == 0)
			return true;
		if (strncmp(arg, "--dir=", 6) == 0 && strcmp(arg + 6, dir) == 0)
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

// A field "Key:   123 kB" of a /proc status-like text; 0 if absent.
static uint64_t status_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static pid_t proc_ppid(pid_t pid)
{
	char path[64], buf[2048];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_file(path, buf, sizeof(buf)) < 0 || !strstr(buf, "\nPPid:"))
		return -1;
	return (pid_t)status_field(buf, "\nPPid:");
}

// The host pid of the program that says its pid is nspid (its own, in the
// PID namespace proctord made): proctord's child, or that child's child when
// the child is the namespace's init. -1 if neither.
static pid_t program_host_pid(pid_t proctord, long long nspid)
{
	pid_t pid = proctord;

	for (int depth = 0; depth < 2; depth++) {
		char path[96], buf[4096];
		const char *ns;
		long long last = -1;
		char *end;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
		if (read_file(path, buf, sizeof(buf)) < 0 || !(pid = (pid_t)atoi(buf)))
			return -1;
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		if (read_file(path, buf, sizeof(buf)) < 0 || !(ns = strstr(buf, "\nNSpid:")))
			return -1;
		for (const char *q = ns + 7; *q && *q != '\n'; q = end) {
			long long v = strtoll(q, &end, 10);

			if (end == q)
				break;
			last = v;
		}
		if (last == nspid)
			return pid;
	}
	return -1;
}

// The daemonized proctord is found by its command line: argv[0] names
// proctord and "--dir DIR" names the unique directory this run gave it. The
// launcher has been reaped by then; a forked child that has not reached
// execve yet carries the same command line, so the daemon is the match whose
// parent is not a match.
static pid_t daemon_find(const char *dir)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	pid_t match[16], found = -1;
	int n = 0, roots = 0;

	if (!proc)
		return bench_fail("opendir /proc: %s", strerror(errno));
	while ((de = readdir(proc)) && n < 16) {
		char path[64], buf[8192], *end;
		long pid = strtol(de->d_name, &end, 10);
		ssize_t len;
		int fd;

		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
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

static void box_kill(struct box *b)
{
	if (b->pid <= 0)
		return;
	kill(b->pid, SIGKILL);
	child_reap(b->pid, 2000);
	b->pid = 0;
}

// A path in the run's temporary directory, named by a format.
__attribute__((format(printf, 2, 3))) static int tmp_path(char *out, const char *name_fmt, ...)
{
	char name[64];
	va_list ap;

	va_start(ap, name_fmt);
	vsnprintf(name, sizeof(name), name_fmt, ap);
	va_end(ap);
	if (snprintf(out, PATH_MAX, "%s/%s", bench_tmp, name) >= PATH_MAX)
		return bench_fail("temporary directory path too long: %s", bench_tmp);
	return 0;
}

// From the launcher's fork to its exit, in the last daemon_start.
static uint64_t daemon_launch_ns;
// daemon_start leaves b->pid 0: the caller collects the daemon otherwise.
static bool daemon_unfound;

// Starts proctord --daemonize on prog and returns once it printed its directory.
static int daemon_start(const struct bench_opts *o, struct box *b, const char *const *limits,
			const char *const *prog)
{
	const char *argv[32];
	char dir[PATH_MAX], line[PATH_MAX + 2] = "";
	size_t argc = 0, got = 0;
	uint64_t end, t0;
	pid_t launcher;
	int p[2], st;

	memset(b, 0, sizeof(*b));
	bench_seq++;
	if (tmp_path(dir, "box%u", bench_seq) < 0 ||
	    tmp_path(b->log, "proctord%u.log", bench_seq) < 0)
		return -1;
	argv[argc++] = o->proctord;
	argv[argc++] = "--daemonize";
	argv[argc++] = "--dir";
	argv[argc++] = dir;
	if (bench_cgroup) {
		argv[argc++] = "--cgroup";
		argv[argc++] = bench_cgroup;
	}
	for (; limits && *limits && argc < 24; limits++)
		argv[argc++] = *limits;
	argv[argc++] = "--";
	for (; *prog && argc < 31; prog++)
		argv[argc++] = *prog;
	argv[argc] = NULL;

	if (pipe2(p, O_CLOEXEC) < 0)
		return bench_fail("pipe: %s", strerror(errno));
	t0 = now_ns();
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
		uint64_t now = now_ns();
		ssize_t n;

		if (now >= end || poll(&pfd, 1, (int)((end - now) / 1000000u) + 1) == 0) {
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
	daemon_launch_ns = now_ns() - t0;
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
	if (strcmp(line, dir) != 0)
		fprintf(stderr, "bench: note: proctord printed \"%s\" for --dir %s\n", line, dir);
	if (box_paths(b, line) < 0)
		return -1;
	if (daemon_unfound)
		return 0;
	b->pid = daemon_find(dir);
	return b->pid < 0 ? -1 : 0;
}

// Ends a box with the terminating wait and checks that the server then exits 0.
static int box_stop(struct box *b)
{
	uint64_t cpu;
	const char *status = "";
	int st;

	if (b->pid <= 0)
		return 0;
	if (box_wait(b, "0\n", &cpu, &status) < 0) {
		box_kill(b);
		return -1;
	}
	st = child_reap(b->pid, 5000);
	if (st < 0) {
		box_kill(b);
		return bench_fail("%s did not exit within 5 s after the terminating wait",
				  b->is_echo ? "fifo-echo" : "proctord");
	}
	b->pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return bench_fail("%s ended with wait status 0x%x after the terminating wait",
				  b->is_echo ? "fifo-echo" : "proctord", (unsigned)st);
	return 0;
}

// figures: fifo-echo --figures, which makes a proctord answer's reads first.
static int echo_start(const struct bench_opts *o, struct box *b, bool figures)
{
	const char *argv[4];
	char dir[PATH_MAX];

	memset(b, 0, sizeof(*b));
	b->is_echo = true;
	if (tmp_path(dir, figures ? "echo-figures" : "echo") < 0 ||
	    tmp_path(b->log, figures ? "fifo-echo-figures.log" : "fifo-echo.log") < 0 ||
	    box_paths(b, dir) < 0)
		return -1;
	if (mkdir(dir, 0700) < 0 || mkfifo(b->wait_path, 0600) < 0 ||
	    mkfifo(b->status_path, 0600) < 0)
		return bench_fail("echo FIFOs in %s: %s", dir, strerror(errno));
	argv[0] = o->echo;
	argv[1] = dir;
	argv[2] = figures ? "--figures" : NULL;
	argv[3] = NULL;
	b->pid = fork();
	if (b->pid < 0)
		return bench_fail("fork: %s", strerror(errno));
	if (b->pid == 0) {
		// The reference server runs at proctord's priority, not the caller's.
		bench_niced = false;
		child_exec(argv, -1, b->log);
	}
	return 0;
}

// CPU of one process in ns (schedstat; stat ticks as a coarse fallback) and
// its wake-ups (voluntary + involuntary context switches).
static int proc_snapshot(pid_t pid, struct proc_snap *s)
{
	char path[64], buf[4096], *end;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	if (read_file(path, buf, sizeof(buf)) == 0 &&
	    (s->cpu_ns = strtoull(buf, &end, 10), end != buf)) {
		// schedstat's first field: time on the CPU, ns.
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

// Proportional set size: shared pages divided among their users, so the sum
// over many daemons is the memory they really take together.
static int proc_pss_kib(pid_t pid, uint64_t *kib)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	if (!strstr(buf, "\nPss:"))
		return bench_fail("no Pss in %s", path);
	*kib = status_field(buf, "\nPss:");
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

// --- wait latency, C client --------------------------------------------------

// The samples of one server. The servers take turns in blocks so that a
// drift of the machine (frequency, a noisy neighbour) hits both alike.
struct lat_series {
	const struct box *box;
	const char *name;
	struct samples *keep;
	uint64_t busy_ns;
	size_t n;
	bool ok;
	double p50_us, p99_us, per_s;
};

static int lat_block(struct lat_series *ls, long count, bool record)
{
	uint64_t start, cpu, rss;
	const char *status = "";
	char ans[512] = "";

	// One deadline per block, so no syscall is added per wait.
	deadline_arm(30);
	start = now_ns();
	for (long i = 0; i < count; i++) {
		uint64_t t0 = now_ns();

		if (box_round_trip(ls->box, "1\n", ans, sizeof(ans)) < 0) {
			deadline_disarm();
			return bench_fail("%s, wait %ld of the block: %s", ls->name, i, bench_err);
		}
		if (record)
			samples_add(ls->keep, now_ns() - t0);
	}
	if (record) {
		ls->busy_ns += now_ns() - start;
		ls->n += (size_t)count;
	}
	deadline_disarm();
	// Only a block's last answer is parsed, outside the timed loop, so the
	// check costs both servers nothing; a malformed answer still shows.
	bench_err[0] = '\0';
	if (answer_parse(ans, &cpu, &rss, &status) < 0 || strcmp(status, "running") != 0)
		return bench_fail("%s answered: %s", ls->name, bench_err[0] ? bench_err : status);
	return 0;
}

static void samples_sort(struct samples *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), u64_cmp);
}

// p50 and p99 of a sample set, in µs, sorting it in place.
static void samples_stats(struct samples *s, double *p50_us, double *p99_us)
{
	*p50_us = *p99_us = 0;
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), u64_cmp);
	*p50_us = (double)pct(s->v, s->n, 0.50) / 1000.0;
	*p99_us = (double)pct(s->v, s->n, 0.99) / 1000.0;
}

static void lat_rows(const char *how, const struct lat_series *pdl, const struct lat_series *bare,
		     bool per_s)
{
	char fig[52], what[72], detail[48];
	struct row *r;

	FMT(fig, "wait round trip p50 (us), %s", how);
	r = row_add(fig);
	FMT(r->value, pdl->ok ? "%.1f" : "n/a", pdl->p50_us);
	FMT(r->ref, bare->ok ? "bare FIFO %.1f" : "bare FIFO n/a", bare->p50_us);
	if (pdl->ok && bare->ok)
		FMT(r->ratio, "%.2fx", pdl->p50_us / bare->p50_us);
	if (per_s) {
		double ratio = pdl->p50_us / bare->p50_us;

		FMT(r->target, "<= 1.5x bare");
		FMT(r->result, "%s", pdl->ok && bare->ok ? pass(ratio <= TARGET_RATIO) : "n/a");
		FMT(what, "wait p50 within 1.5x of the bare FIFO (%s)", how);
		FMT(detail, "%.1f us vs %.1f us: %.2fx", pdl->p50_us, bare->p50_us, ratio);
		if (pdl->ok && bare->ok)
			verdict_add(ratio <= TARGET_RATIO, what, detail);
		else
			verdict_add(-1, what, "not measured");
	}
	FMT(fig, "wait round trip p99 (us), %s", how);
	r = row_add(fig);
	FMT(r->value, pdl->ok ? "%.1f" : "n/a", pdl->p99_us);
	FMT(r->ref, bare->ok ? "bare FIFO %.1f" : "bare FIFO n/a", bare->p99_us);
	if (pdl->ok && bare->ok)
		FMT(r->ratio, "%.2fx", pdl->p99_us / bare->p99_us);
	if (!per_s)
		return;
	FMT(fig, "waits per second, %s", how);
	r = row_add(fig);
	FMT(r->value, pdl->ok ? "%.0f" : "n/a", pdl->per_s);
	FMT(r->ref, bare->ok ? "bare FIFO %.0f" : "bare FIFO n/a", bare->per_s);
	if (pdl->ok && bare->ok)
		FMT(r->ratio, "%.2fx", pdl->per_s / bare->per_s);
}

// The bare server with a proctord answer's reads (fifo-echo --figures): the
// floor for a server that answers with fresh figures.
static void lat_floor_rows(const char *how, const struct lat_series *pdl,
			   const struct lat_series *fig)
{
	char detail[48], fig_name[52], what[72];
	struct row *r;

	FMT(fig_name, "wait p50 (us), bare + reads, %s", how);
	FMT(what, "wait p50 within 1.5x of bare FIFO + reads (%s)", how);
	r = row_add(fig_name);

	FMT(r->value, fig->ok ? "%.1f" : "n/a", fig->p50_us);
	FMT(r->ref, "proctord %.1f", pdl->p50_us);
	if (!pdl->ok || !fig->ok) {
		verdict_add(-1, what, "not measured");
		return;
	}
	FMT(r->ratio, "%.2fx", pdl->p50_us / fig->p50_us);
	FMT(r->target, "<= 1.5x");
	FMT(r->result, "%s", pass(pdl->p50_us / fig->p50_us <= TARGET_RATIO));
	FMT(detail, "%.1f us vs %.1f us: %.2fx", pdl->p50_us, fig->p50_us,
	    pdl->p50_us / fig->p50_us);
	verdict_add(pdl->p50_us / fig->p50_us <= TARGET_RATIO, what, detail);
}

// Every thread of pid on cpu (-1: on any CPU again). Returns 0 or -1.
static int pin_tasks(pid_t pid, int cpu)
{
	char path[64];
	cpu_set_t set;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	CPU_ZERO(&set);
	if (cpu < 0) {
		for (int c = 0; c < CPU_SETSIZE && c < sysconf(_SC_NPROCESSORS_ONLN); c++)
			CPU_SET(c, &set);
	} else {
		CPU_SET(cpu, &set);
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    sched_setaffinity((pid_t)atoi(e->d_name), sizeof(set), &set) < 0)
			rc = -1;
	closedir(d);
	return rc;
}

// One placement: the client (this process) on CPU 0, every server on
// server_cpu, the three series taking turns in blocks.
static void lat_pass(const struct bench_opts *o, struct lat_series **all, size_t n, int server_cpu)
{
	for (size_t k = 0; k < n; k++)
		if (all[k]->ok && pin_tasks(all[k]->box->pid, server_cpu) < 0)
			fprintf(stderr, "bench: cannot pin %s to CPU %d\n", all[k]->name, server_cpu);
	pin_tasks(getpid(), 0);
	for (size_t k = 0; k < n; k++) {
		struct lat_series *ls = all[k];

		if (ls->ok && lat_block(ls, o->warmup, false) < 0) {
			ls->ok = false;
			phase_failed("wait latency warm-up");
			log_dump(ls->box->log);
		}
	}
	for (long done = 0; done < o->iterations; done += LAT_BLOCK) {
		long count = o->iterations - done < LAT_BLOCK ? o->iterations - done : LAT_BLOCK;

		for (size_t k = 0; k < n; k++) {
			if (all[k]->ok && lat_block(all[k], count, true) < 0) {
				all[k]->ok = false;
				phase_failed("wait latency");
				log_dump(all[k]->box->log);
			}
		}
	}
	for (size_t k = 0; k < n; k++) {
		struct lat_series *ls = all[k];

		ls->ok = ls->ok && ls->n > 0;
		if (ls->ok) {
			samples_stats(ls->keep, &ls->p50_us, &ls->p99_us);
			ls->per_s = (double)ls->n * 1e9 / (double)ls->busy_ns;
		}
	}
	for (size_t k = 0; k < n; k++)
		if (all[k]->ok)
			pin_tasks(all[k]->box->pid, -1);
	pin_tasks(getpid(), -1);
}

// Where the client and the server run decides the round trip more than the
// server does (a wake-up on another CPU costs an interrupt, in a VM a
// costly one): left to the scheduler, the bare server's p50 was 16 or 58 us
// from one run to the next. So each placement is measured on its own:
// client and servers on CPU 0, then the servers on CPU 1.
static void bench_latency(const struct bench_opts *o, struct box *echo, struct box *d)
{
	static struct samples plot_fig = {.label = "bare FIFO echo server + reads, C client"},
			      other_bare = {.label = "bare, other CPU"},
			      other_pdl = {.label = "proctord, other CPU"},
			      other_fig = {.label = "bare + reads, other CPU"};
	struct lat_series bare = {.box = echo, .name = "fifo-echo", .keep = &plot_bare},
			  pdl = {.box = d, .name = "proctord", .keep = &plot_pdl},
			  fig = {.name = "fifo-echo --figures", .keep = &plot_fig};
	struct lat_series *all[] = {&bare, &pdl, &fig};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct box echo_fig;

	fprintf(stderr, "bench: wait latency, C client, %ld waits each...\n", o->iterations);
	bare.ok = echo->pid > 0;
	pdl.ok = d->pid > 0;
	fig.ok = echo_start(o, &echo_fig, true) == 0;
	fig.box = &echo_fig;
	if (cpus < 2) {
		lat_pass(o, all, 3, -1);
		lat_rows("C client", &pdl, &bare, true);
		lat_floor_rows("C client", &pdl, &fig);
	} else {
		lat_pass(o, all, 3, 0);
		lat_rows("C client, same CPU", &pdl, &bare, true);
		lat_floor_rows("same CPU", &pdl, &fig);
		bare.keep = &other_bare;
		pdl.keep = &other_pdl;
		fig.keep = &other_fig;
		for (size_t k = 0; k < 3; k++)
			all[k]->n = 0, all[k]->busy_ns = 0, all[k]->ok = all[k]->box->pid > 0;
		lat_pass(o, all, 3, 1);
		lat_rows("C client, other CPU", &pdl, &bare, true);
		lat_floor_rows("other CPU", &pdl, &fig);
	}
	if (echo_fig.pid > 0 && box_stop(&echo_fig) < 0)
		phase_failed("stopping fifo-echo --figures");
}

// --- wait latency through the shell ------------------------------------------

// What a person types, timed by bash itself around each wait.
static const char shell_loop[] = "w=$1 s=$2 n=$3\n"
				 "for ((i = 0; i < n; i++)); do\n"
				 "\tt0=$EPOCHREALTIME\n"
				 "\techo 1 > \"$w\"\n"
				 "\tcat \"$s\" > /dev/null\n"
				 "\tt1=$EPOCHREALTIME\n"
				 "\techo \"${t0/./} ${t1/./}\"\n"
				 "done\n";

// One bash running count waits on b; their round trips (ns) go to keep.
static int shell_block(const struct bench_opts *o, const struct box *b, long count,
		       struct samples *keep)
{
	char n_arg[24], log[PATH_MAX], buf[65536];
	const char *argv[] = {o->bash,	    "-c",	    shell_loop, "bench",
			      b->wait_path, b->status_path, n_arg,	NULL};
	size_t got = 0, lines = 0;
	uint64_t end = now_ns() + 60000000000u;
	pid_t pid;
	int p[2], st;
	char *line, *save = NULL;

	FMT(n_arg, "%ld", count);
	if (tmp_path(log, "shell.log") < 0)
		return -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return bench_fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return bench_fail("fork: %s", strerror(errno));
	if (pid == 0)
		child_exec(argv, p[1], log);
	close(p[1]);
	for (;;) {
		struct pollfd pfd = {.fd = p[0], .events = POLLIN};
		uint64_t now = now_ns();
		ssize_t n;

		if (now >= end || poll(&pfd, 1, (int)((end - now) / 1000000u) + 1) == 0) {
			close(p[0]);
			kill(pid, SIGKILL);
			child_reap(pid, 1000);
			log_dump(log);
			return bench_fail("the shell loop on %s did not finish within 60 s",
					  b->dir);
		}
		n = read(p[0], buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == sizeof(buf) - 1)
			break;
	}
	close(p[0]);
	buf[got] = '\0';
	st = child_reap(pid, 5000);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		log_dump(log);
		return bench_fail("the shell loop on %s failed (wait status 0x%x)", b->dir,
				  (unsigned)st);
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long t0, t1;
		char *e;

		t0 = strtoull(line, &e, 10);
		if (*e != ' ')
			return bench_fail("the shell loop printed \"%s\"", line);
		t1 = strtoull(e + 1, &e, 10);
		if (*e || t1 < t0)
			return bench_fail("the shell loop printed \"%s\"", line);
		if (keep)
			samples_add(keep, (t1 - t0) * 1000u);
		lines++;
	}
	if (lines != (size_t)count)
		return bench_fail("the shell loop timed %zu waits, not %ld", lines, count);
	return 0;
}

static void bench_shell(const struct bench_opts *o, struct box *echo, struct box *d)
{
	struct lat_series bare = {.box = echo, .name = "fifo-echo", .keep = &plot_shell_bare},
			  pdl = {.box = d, .name = "proctord", .keep = &plot_shell_pdl};
	struct lat_series *both[] = {&bare, &pdl};

	fprintf(stderr, "bench: wait latency through the shell, %ld waits each...\n",
		o->shell_waits);
	bare.ok = echo->pid > 0;
	pdl.ok = d->pid > 0;
	for (size_t k = 0; k < 2; k++)
		if (both[k]->ok && shell_block(o, both[k]->box, 20, NULL) < 0) {
			both[k]->ok = false;
			phase_failed("shell latency warm-up");
		}
	for (long done = 0; done < o->shell_waits; done += SHELL_BLOCK) {
		long count =
		    o->shell_waits - done < SHELL_BLOCK ? o->shell_waits - done : SHELL_BLOCK;

		for (size_t k = 0; k < 2; k++)
			if (both[k]->ok && shell_block(o, both[k]->box, count, both[k]->keep) < 0) {
				both[k]->ok = false;
				phase_failed("shell latency");
			}
	}
	for (size_t k = 0; k < 2; k++) {
		both[k]->ok = both[k]->ok && both[k]->keep->n > 0;
		if (both[k]->ok)
			samples_stats(both[k]->keep, &both[k]->p50_us, &both[k]->p99_us);
	}
	// The servers still answer well-formed, after all that.
	if (pdl.ok) {
		uint64_t cpu;
		const char *status;

		if (box_wait(d, "1\n", &cpu, &status) < 0 || strcmp(status, "running") != 0) {
			pdl.ok = false;
			phase_failed("the wait after the shell loops");
		}
	}
	lat_rows("shell", &pdl, &bare, false);
}

// --- start-up ------------------------------------------------------------------

// Reads one line from fd within timeout_ms; returns its number, or -1.
static int line_read_u64(int fd, unsigned timeout_ms, uint64_t *v)
{
	char buf[64] = "";
	size_t got = 0;
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;
	char *e;

	*v = 0;
	while (got < sizeof(buf) - 1 && !memchr(buf, '\n', got)) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint64_t now = now_ns();
		ssize_t n;

		if (now >= end || poll(&pfd, 1, (int)((end - now) / 1000000u) + 1) == 0)
			return bench_fail("no line within %u ms", timeout_ms);
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			return bench_fail("end of output before a line");
		got += (size_t)n;
	}
	buf[got] = '\0';
	*v = strtoull(buf, &e, 10);
	if (e == buf || *e != '\n')
		return bench_fail("expected a number, got \"%s\"", buf);
	return 0;
}

// Start-to-exec of one program: from just before fork to the program's own
// first clock reading. With proctord: proctord --dir D -- stamp in the
// foreground, then the terminating wait.
// The box's DIR for the --box figures (made once, under the bench's TMPDIR).
static char bench_boxdir[PATH_MAX];

enum start_kind { START_BARE, START_PROCTORD, START_BOX, START_FLOOR };

static int start_one(const struct bench_opts *o, enum start_kind kind, uint64_t *ns)
{
	bool with_proctord = kind == START_PROCTORD || kind == START_BOX;
	char dir[PATH_MAX], log[PATH_MAX];
	const char *bare[] = {o->stamp, NULL};
	const char *floor_argv[] = {o->floor, o->stamp, NULL};
	const char *pd[] = {o->proctord, "--dir", dir, "--cgroup", bench_cgroup ? bench_cgroup : "auto",
			    "--", o->stamp, NULL};
	// The stamp program is bound at its own path: the box shows nothing else.
	const char *pd_box[] = {o->proctord, "--dir", dir, "--cgroup",
				bench_cgroup ? bench_cgroup : "auto", "--box", bench_boxdir,
				"--ro-bind", o->stamp, "--", o->stamp, NULL};
	uint64_t t0, stamp, cpu;
	const char *status = "";
	struct box b;
	pid_t pid;
	int p[2], st;

	bench_seq++;
	if (tmp_path(dir, "start%u", bench_seq) < 0 || tmp_path(log, "start.log") < 0)
		return -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return bench_fail("pipe: %s", strerror(errno));
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return bench_fail("fork: %s", strerror(errno));
	if (pid == 0)
		child_exec(kind == START_BARE	 ? bare
			   : kind == START_FLOOR ? floor_argv
			   : kind == START_BOX	 ? pd_box
						 : pd,
			   p[1], log);
	close(p[1]);
	if (line_read_u64(p[0], 10000, &stamp) < 0) {
		close(p[0]);
		kill(pid, SIGKILL);
		child_reap(pid, 1000);
		log_dump(log);
		return -1;
	}
	close(p[0]);
	*ns = stamp - t0;
	if (with_proctord) {
		memset(&b, 0, sizeof(b));
		if (box_paths(&b, dir) < 0)
			return -1;
		if (box_wait(&b, "0\n", &cpu, &status) < 0 || strcmp(status, "exited 0") != 0) {
			kill(pid, SIGKILL);
			child_reap(pid, 1000);
			log_dump(log);
			return bench_err[0] ? -1 : bench_fail("stamp ended \"%s\"", status);
		}
	}
	st = child_reap(pid, 5000);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		log_dump(log);
		return bench_fail("%s ended with wait status 0x%x",
				  with_proctord		? "proctord"
				  : kind == START_FLOOR ? "floor"
							: "stamp",
				  (unsigned)st);
	}
	return 0;
}

// The whole of a run: fork, exec, wait; bare /bin/true or proctor run --
// /bin/true, with the cgroup mode given, in a box or not.
static int run_one(const struct bench_opts *o, bool with_proctor, const char *cgroup, bool in_box,
		   uint64_t *ns)
{
	const char *bare[] = {o->true_prog, NULL};
	const char *floor_argv[] = {o->floor, "run", o->true_prog, NULL};
	const char *run[] = {o->proctor, "run", "--cgroup", cgroup,
			     "--", o->true_prog, NULL};
	const char *run_box[] = {o->proctor, "run", "--cgroup", cgroup, "--box", bench_boxdir,
				 "--", o->true_prog, NULL};
	char log[PATH_MAX];
	uint64_t t0 = now_ns();
	pid_t pid;
	int st;

	if (tmp_path(log, "run.log") < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return bench_fail("fork: %s", strerror(errno));
	if (pid == 0)
		child_exec(!with_proctor   ? bare
			   : !cgroup	   ? floor_argv
			   : in_box	   ? run_box
					   : run,
			   -1, log);
	st = child_reap(pid, 10000);
	*ns = now_ns() - t0;
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (st < 0) {
			kill(pid, SIGKILL);
			child_reap(pid, 1000);
		}
		log_dump(log);
		return bench_fail("%s ended with wait status 0x%x",
				  with_proctor ? "proctor run" : "true", (unsigned)st);
	}
	return 0;
}

// proctord --daemonize -- /bin/true, then proctor stop DIR: the launcher's
// fork to its exit, plus proctor stop's fork to its exit (not the search
// for the daemon's pid in between, nor the daemon's own exit, which comes
// after its answer).
static int daemon_stop_one(const struct bench_opts *o, uint64_t *ns)
{
	const char *prog[] = {o->true_prog, NULL};
	const char *stop[] = {o->proctor, "stop", NULL, NULL};
	char log[PATH_MAX];
	uint64_t t0;
	struct box b;
	siginfo_t si;
	pid_t pid;
	int st, r;

	// Not searched for: /bin/true may have ended, and proctord's title
	// replaced its command line, before the search.
	daemon_unfound = true;
	r = daemon_start(o, &b, NULL, prog);
	daemon_unfound = false;
	if (r < 0 || tmp_path(log, "stop.log") < 0)
		return -1;
	stop[2] = b.dir;
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return bench_fail("fork: %s", strerror(errno));
	if (pid == 0)
		child_exec(stop, -1, log);
	st = child_reap(pid, 20000);
	*ns = now_ns() - t0 + daemon_launch_ns;
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (st < 0) {
			kill(pid, SIGKILL);
			child_reap(pid, 1000);
		}
		log_dump(log);
		log_dump(b.log);
		return bench_fail("proctor stop ended with wait status 0x%x", (unsigned)st);
	}
	// The daemon, ours as subreaper, is the one child that ends now.
	memset(&si, 0, sizeof(si));
	deadline_arm(5);
	do
		r = waitid(P_ALL, 0, &si, WEXITED);
	while (r < 0 && errno == EINTR && !bench_alarm);
	deadline_disarm();
	if (r < 0 || si.si_code != CLD_EXITED || si.si_status != 0)
		return bench_fail("proctord did not exit 0 after proctor stop (%s, code %d, status %d)",
				  r < 0 ? strerror(errno) : "reaped", si.si_code, si.si_status);
	return 0;
}

// One row; with a goal (ratio > 0) also its PASS/MISS.
static void start_rows(const char *fig, const struct samples *pd, const struct samples *bare,
		       bool ok, const char *bare_name, double goal)
{
	struct row *r = row_add(fig);
	char what[72], detail[48];
	double p50, ref;

	if (goal > 0)
		FMT(r->target, "<= %gx", goal);
	FMT(what, "%s within %gx of %s", fig, goal, bare_name);
	if (!ok || !pd->n || !bare->n) {
		FMT(r->value, "n/a");
		if (goal > 0) {
			FMT(r->result, "n/a");
			verdict_add(-1, what, "not measured");
		}
		return;
	}
	p50 = (double)pct(pd->v, pd->n, 0.5) / 1000.0;
	ref = (double)pct(bare->v, bare->n, 0.5) / 1000.0;
	FMT(r->value, "%.0f", p50);
	FMT(r->ref, "%s %.0f", bare_name, ref);
	FMT(r->ratio, "%.1fx", p50 / ref);
	if (goal > 0) {
		FMT(r->result, "%s", pass(p50 <= goal * ref));
		FMT(detail, "%.0f us vs %.0f us: %.2fx", p50, ref, p50 / ref);
		verdict_add(p50 <= goal * ref, what, detail);
	}
}

// Issue 15's target: a box costs at most 3 ms over the same start without one
// (the difference of the p50s).
static void start_box_target(const struct samples *box, const struct samples *none, bool ok,
			     const char *what)
{
	char w[72], detail[48];
	double d;

	FMT(w, "%s <= 3 ms", what);
	if (!ok || !box->n || !none->n) {
		verdict_add(-1, w, "not measured");
		return;
	}
	d = ((double)pct(box->v, box->n, 0.5) - (double)pct(none->v, none->n, 0.5)) / 1e6;
	FMT(detail, "%+.2f ms (p50 difference)", d);
	verdict_add(d <= 3.0, w, detail);
}

static void bench_start(const struct bench_opts *o)
{
	struct samples pd_exec = {0}, bare_exec = {0}, pd_run = {0}, bare_run = {0},
		       none_run = {0}, stop_run = {0}, floor_exec = {0}, floor_run = {0};
	struct samples box_exec = {0}, box_run = {0};
	bool exec_ok = true, run_ok = true, box_ok = true;
	const char *mode = bench_cgroup ? bench_cgroup : "auto";

	fprintf(stderr, "bench: start-up, %ld starts each...\n", o->starts);
	// Without a box, with one, and bare, in turns: a drift of the machine
	// weighs on all three alike.
	if (tmp_path(bench_boxdir, "boxdir") < 0 || mkdir(bench_boxdir, 0755) < 0)
		box_ok = false;
	for (long i = 0; i < o->starts && exec_ok; i++) {
		uint64_t a = 0, b = 0, c = 0, f = 0;

		if (start_one(o, START_BARE, &a) < 0 || start_one(o, START_PROCTORD, &b) < 0 ||
		    start_one(o, START_FLOOR, &f) < 0) {
			exec_ok = false;
			phase_failed("start-to-exec");
			break;
		}
		samples_add(&bare_exec, a);
		samples_add(&pd_exec, b);
		samples_add(&floor_exec, f);
		if (box_ok && start_one(o, START_BOX, &c) < 0) {
			box_ok = false;
			phase_failed("start-to-exec --box");
		}
		if (box_ok)
			samples_add(&box_exec, c);
	}
	// The four kinds of run take turns, so that a drift of the machine
	// affects them alike.
	for (long i = 0; i < o->starts && run_ok; i++) {
		uint64_t a = 0, b = 0, c = 0, d = 0, e = 0, f = 0;

		if (run_one(o, false, mode, false, &a) < 0 || run_one(o, true, mode, false, &b) < 0 ||
		    run_one(o, true, "none", false, &c) < 0 || daemon_stop_one(o, &d) < 0 ||
		    run_one(o, true, NULL, false, &f) < 0) {
			run_ok = false;
			phase_failed("proctor run -- /bin/true");
			break;
		}
		samples_add(&bare_run, a);
		samples_add(&pd_run, b);
		samples_add(&none_run, c);
		samples_add(&stop_run, d);
		samples_add(&floor_run, f);
		if (box_ok && run_one(o, true, mode, true, &e) < 0) {
			box_ok = false;
			phase_failed("proctor run --box -- /bin/true");
		}
		if (box_ok)
			samples_add(&box_run, e);
	}
	samples_sort(&pd_exec);
	samples_sort(&bare_exec);
	samples_sort(&pd_run);
	samples_sort(&bare_run);
	samples_sort(&none_run);
	samples_sort(&stop_run);
	samples_sort(&box_exec);
	samples_sort(&box_run);
	samples_sort(&floor_exec);
	samples_sort(&floor_run);
	start_rows("start to exec p50 (us), proctord", &pd_exec, &bare_exec, exec_ok, "fork+exec",
		   TARGET_EXEC_RATIO);
	// The floor: exec, a PID-namespace init, fork, exec (floor.c).
	start_rows("start to exec p50 (us), floor", &floor_exec, &bare_exec, exec_ok, "fork+exec",
		   0);
	start_rows("start to exec p50 (us), proctord vs floor", &pd_exec, &floor_exec, exec_ok,
		   "floor", 0);
	start_rows("start to exec p50 (us), proctord --box", &box_exec, &bare_exec, box_ok,
		   "fork+exec", 0);
	start_box_target(&box_exec, &pd_exec, box_ok && exec_ok, "--box start to exec over none");
	start_rows("proctor run -- /bin/true p50 (us)", &pd_run, &bare_run, run_ok, "/bin/true",
		   TARGET_RUN_RATIO);
	start_rows("run floor -- /bin/true p50 (us)", &floor_run, &bare_run, run_ok, "/bin/true",
		   0);
	start_rows("proctor run vs run floor, p50 (us)", &pd_run, &floor_run, run_ok, "floor", 0);
	start_rows("proctor run --cgroup none, p50 (us)", &none_run, &bare_run, run_ok,
		   "/bin/true", 0);
	start_rows("--daemonize + proctor stop, p50 (us)", &stop_run, &bare_run, run_ok,
		   "/bin/true", 0);
	start_rows("proctor run --box -- /bin/true p50 (us)", &box_run, &bare_run, box_ok,
		   "/bin/true", 0);
	start_box_target(&box_run, &pd_run, box_ok && run_ok, "--box run over none");
	if (bench_boxdir[0])
		rmdir(bench_boxdir);
	free(pd_exec.v);
	free(bare_exec.v);
	free(pd_run.v);
	free(bare_run.v);
	free(box_exec.v);
	free(box_run.v);
	free(none_run.v);
	free(stop_run.v);
	free(floor_exec.v);
	free(floor_run.v);
}

// --- limit overshoot ---------------------------------------------------------

// One proctord --cpu-time 200ms run on the spinner; polls until the verdict.
static int cpu_run(const struct bench_opts *o, const char *threads, int64_t *over_us)
{
	const char *limits[] = {"--cpu-time", "200ms", NULL};
	const char *prog[] = {o->spin, threads, NULL};
	uint64_t end, cpu;
	const char *status = "";
	struct box b;

	if (daemon_start(o, &b, limits, prog) < 0)
		return -1;
	end = now_ns() + 10000000000u;
	for (;;) {
		if (box_wait(&b, "1\n", &cpu, &status) < 0)
			goto fail;
		if (strncmp(status, "killed cpu-time", 15) == 0)
			break;
		if (strcmp(status, "running") != 0) {
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
		sleep_ns((uint64_t)POLL_MS * 1000000u);
	}
	*over_us = (int64_t)cpu - CPU_LIMIT_US;
	return box_stop(&b);
fail:
	box_kill(&b);
	log_dump(b.log);
	return -1;
}

// One proctord --wall-time 200ms run on the spinner. The deadline counts
// from proctord's start of the program, which only proctord sees: the
// overshoot is its report's wall_us (from before it starts the program to
// when it has reaped it) less the limit, an upper bound on the kill's
// lateness. The program's own lifetime, from its first instruction to its
// death seen through a pidfd, is the outside check: it must be shorter.
static int wall_run(const struct bench_opts *o, const char *threads, int64_t *over_us,
		    int64_t *life_us)
{
	char stampfile[PATH_MAX], report[PATH_MAX], buf[4096] = "";
	const char *limits[] = {"--wall-time", "200ms", "--stdout", stampfile,
				"--report",    report,	NULL};
	const char *prog[] = {o->spin, threads, "stamp", NULL};
	long long pid = 0, started = 0;
	uint64_t end, cpu, died, wall_us;
	const char *status, *p;
	struct pollfd pfd;
	struct box b;
	pid_t host;
	int pidfd;

	bench_seq++;
	if (tmp_path(stampfile, "stamp%u", bench_seq) < 0 ||
	    tmp_path(report, "report%u.json", bench_seq) < 0 ||
	    daemon_start(o, &b, limits, prog) < 0)
		return -1;
	end = now_ns() + 5000000000u;
	while (sscanf(buf, "%lld %lld", &pid, &started) != 2 || !strchr(buf, '\n')) {
		int fd = open(stampfile, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = '\0';
		if (now_ns() > end) {
			bench_fail("spin wrote no start time to %s within 5 s", stampfile);
			goto fail;
		}
		sleep_ns(200000);
	}
	/* spin stamps its pid in proctord's PID namespace. */
	host = program_host_pid(b.pid, pid);
	pidfd = host > 0 ? (int)syscall(SYS_pidfd_open, host, 0) : -1;
	if (pidfd < 0) {
		bench_fail("pidfd_open of the program (pid %lld, %d on the host): %s", pid,
			   (int)host, strerror(errno));
		goto fail;
	}
	pfd = (struct pollfd){.fd = pidfd, .events = POLLIN};
	if (poll(&pfd, 1, 10000) != 1) {
		close(pidfd);
		bench_fail("the program was not killed within 10 s of --wall-time 200ms");
		goto fail;
	}
	died = now_ns();
	close(pidfd);
	if (box_wait(&b, "1\n", &cpu, &status) < 0)
		goto fail;
	if (strncmp(status, "killed wall-time", 16) != 0) {
		bench_fail("expected \"killed wall-time...\", got \"%s\"", status);
		goto fail;
	}
	if (box_stop(&b) < 0)
		return -1;
	// proctord has written its report before it exited.
	if (read_file(report, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\"wall_us\":");
	if (!p || (wall_us = strtoull(p + 10, NULL, 10)) == 0)
		return bench_fail("no wall_us in %s", report);
	*over_us = (int64_t)wall_us - WALL_LIMIT_US;
	*life_us = ((int64_t)died - (int64_t)started) / 1000;
	if (*life_us > (int64_t)wall_us)
		return bench_fail("the program lived %" PRId64
				  " us, more than proctord's wall_us %" PRIu64,
				  *life_us, wall_us);
	return 0;
fail:
	box_kill(&b);
	log_dump(b.log);
	return -1;
}

static void bench_overshoot(const struct bench_opts *o, bool wall, const char *threads)
{
	const char *kind = wall ? "wall-time" : "cpu-time";
	int64_t over[64] = {0}, life[64] = {0};
	char fig[52], what[72], detail[48], label[16], phase[64];
	struct row *r;
	long n = o->runs;
	int64_t p50, max;
	bool ok;

	FMT(label, "%s thread%s", threads, strcmp(threads, "1") != 0 ? "s" : "");
	fprintf(stderr, "bench: %s overshoot, %s, %ld runs...\n", kind, label, n);
	for (long i = 0; i < n; i++) {
		if ((wall ? wall_run(o, threads, &over[i], &life[i])
			  : cpu_run(o, threads, &over[i])) < 0) {
			FMT(phase, "%s overshoot (%s, run %ld)", kind, label, i + 1);
			phase_failed(phase);
			FMT(fig, "%s overshoot, %s, p50 (ms)", kind, label);
			row_na(fig);
			FMT(fig, "%s overshoot, %s, max (ms)", kind, label);
			row_na(fig);
			if (!wall) {
				FMT(what, "cpu-time overshoot, %s: p50 < 5 ms, max < 15 ms", label);
				verdict_add(-1, what, "not measured");
			}
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

	FMT(fig, "%s overshoot, %s, p50 (ms)", kind, label);
	r = row_add(fig);
	FMT(r->value, "%.2f", (double)p50 / 1000.0);
	FMT(r->ref, "limit 200 ms");
	if (wall) {
		int64_t life_p50;

		qsort(life, (size_t)n, sizeof(*life), i64_cmp);
		life_p50 = life[(n - 1) / 2];
		FMT(r->ref, "program lived %.1f ms", (double)life_p50 / 1000.0);
	}
	if (!wall) {
		FMT(r->target, "< 5 ms");
		FMT(r->result, "%s", pass(p50 < TARGET_OVER_P50_US));
	}
	FMT(fig, "%s overshoot, %s, max (ms)", kind, label);
	r = row_add(fig);
	FMT(r->value, "%.2f", (double)max / 1000.0);
	FMT(r->ref, "min %.2f, %ld runs", (double)over[0] / 1000.0, n);
	if (wall)
		return;
	FMT(r->target, "< 15 ms");
	FMT(r->result, "%s", pass(max < TARGET_OVER_MAX_US));
	ok = p50 < TARGET_OVER_P50_US && max < TARGET_OVER_MAX_US;
	FMT(what, "cpu-time overshoot, %s: p50 < 5 ms, max < 15 ms", label);
	FMT(detail, "p50 %.2f ms, max %.2f ms", (double)p50 / 1000.0, (double)max / 1000.0);
	verdict_add(ok, what, detail);
}

// --- sections ----------------------------------------------------------------

// Lengths of the sections, ms of CPU each; every one is run twice.
static const int section_ms[] = {1, 2, 5, 10, 20, 50, 100, 200, 300};

static void bench_sections(const struct bench_opts *o)
{
	char in_path[PATH_MAX], out_path[PATH_MAX], cmd[32], buf[256];
	const char *prog[] = {o->burn, in_path, out_path, NULL};
	const size_t nsec = 2 * sizeof(section_ms) / sizeof(section_ms[0]);
	int64_t worst_err = 0, worst_rel_ppm = 0, sum_err = 0;
	int worst_ms = 0, worst_rel_ms = 0;
	bool all_ok = true, ok = false;
	uint64_t self_before, cpu_before, cpu_after, self_after;
	const char *status = "";
	struct row *r;
	struct box b = {0};
	char detail[48];
	int in = -1, out = -1;
	size_t done = 0;

	fprintf(stderr, "bench: section measurement, %zu sections...\n", nsec);
	if (tmp_path(in_path, "sections.in") < 0 || tmp_path(out_path, "sections.out") < 0)
		goto end;
	if (mkfifo(in_path, 0600) < 0 || mkfifo(out_path, 0600) < 0) {
		bench_fail("mkfifo: %s", strerror(errno));
		goto end;
	}
	// O_RDWR: neither open blocks, and the program's opens find a peer.
	in = open(in_path, O_RDWR | O_CLOEXEC);
	out = open(out_path, O_RDWR | O_CLOEXEC);
	if (in < 0 || out < 0) {
		bench_fail("open the section FIFOs: %s", strerror(errno));
		goto end;
	}
	if (daemon_start(o, &b, NULL, prog) < 0)
		goto end;
	// "ready US": the program's CPU so far, by its own account.
	{
		struct pollfd pfd = {.fd = out, .events = POLLIN};
		ssize_t n;

		if (poll(&pfd, 1, 10000) != 1 || (n = read(out, buf, sizeof(buf) - 1)) <= 0 ||
		    (buf[n] = '\0', sscanf(buf, "ready %" SCNu64, &self_before) != 1)) {
			bench_fail("section-burn did not say it was ready");
			goto end;
		}
	}
	for (size_t i = 0; i < nsec; i++) {
		int ms = section_ms[i % (nsec / 2)];
		int64_t d_pd, d_self, err, allowed;

		// The program sleeps in read(2): a reading now is between sections.
		sleep_ns(2000000);
		if (box_wait(&b, "1\n", &cpu_before, &status) < 0)
			goto end;
		FMT(cmd, "%d\n", ms);
		if (write(in, cmd, strlen(cmd)) != (ssize_t)strlen(cmd) ||
		    line_read_u64(out, 30000, &self_after) < 0) {
			bench_fail("section %zu: no answer from section-burn", i + 1);
			goto end;
		}
		sleep_ns(2000000);
		if (box_wait(&b, "1\n", &cpu_after, &status) < 0)
			goto end;
		d_pd = (int64_t)(cpu_after - cpu_before);
		d_self = (int64_t)(self_after - self_before);
		err = d_pd - d_self;
		allowed = d_self * TARGET_SECTION_PERMILLE / 1000;
		if (allowed < TARGET_SECTION_MIN_US)
			allowed = TARGET_SECTION_MIN_US;
		if (llabs(err) > allowed)
			all_ok = false;
		if (llabs(err) > llabs(worst_err)) {
			worst_err = err;
			worst_ms = ms;
		}
		if (ms >= 100 && llabs(err) * 1000000 / d_self >= worst_rel_ppm) {
			worst_rel_ppm = llabs(err) * 1000000 / d_self;
			worst_rel_ms = ms;
		}
		sum_err += err;
		fprintf(stderr,
			"bench:   section %2zu, %3d ms: proctord %7" PRId64
			" us, getrusage %7" PRId64 " us, error %+5" PRId64 " us\n",
			i + 1, ms, d_pd, d_self, err);
		self_before = self_after;
		done++;
	}
	ok = true;
end:
	if (in >= 0)
		close(in); // EOF for the program: it ends by itself
	if (out >= 0)
		close(out);
	if (b.pid > 0 && box_stop(&b) < 0 && ok) {
		ok = false;
		phase_failed("stopping the section proctord");
	}
	if (!ok) {
		phase_failed("section measurement");
		row_na("section error, largest (ms)");
		verdict_add(-1, "section error under max(1%, 1 ms), every section", "not measured");
		return;
	}
	r = row_add("section error, largest (ms)");
	FMT(r->value, "%+.3f", (double)worst_err / 1000.0);
	FMT(r->ref, "getrusage, %d ms section", worst_ms);
	FMT(r->target, "< 1%% or 1 ms");
	FMT(r->result, "%s", pass(all_ok));
	r = row_add("section error, sections >= 100 ms (%)");
	FMT(r->value, "%.3f", (double)worst_rel_ppm / 10000.0);
	FMT(r->ref, "getrusage, %d ms section", worst_rel_ms);
	r = row_add("section error, mean (us)");
	FMT(r->value, "%+.0f", (double)sum_err / (double)done);
	FMT(r->ref, "%zu sections, 1-300 ms", done);
	FMT(detail, "largest %+.3f ms (%d ms section)", (double)worst_err / 1000.0, worst_ms);
	verdict_add(all_ok, "section error under max(1%, 1 ms), every section", detail);
}

// --- idle cost and memory ----------------------------------------------------

struct idle_case {
	const char *name;
	const char *limits[3];
	struct box box;
	struct proc_snap before, after;
	bool ok;
};

static void bench_idle(const struct bench_opts *o, struct box *echo, struct box *used)
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
	uint64_t allowed_ns = (uint64_t)TARGET_IDLE_NS_PER_10S * (uint64_t)o->idle_s / 10u;
	bool fresh_ok = false, used_ok = false, rss_echo_ok = false;
	struct row *r;
	char fig[52], what[72], detail[48], target[16];

	fprintf(stderr, "bench: idle cost, %ld s with no clients...\n", o->idle_s);
	FMT(target, "< %.1f ms", (double)allowed_ns / 1e6);
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
	if (used->pid > 0)
		used_ok = proc_rss_kib(used->pid, &rss_used) == 0;
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
		FMT(r->target, "%s", target);
		FMT(r->result, "%s", c->ok ? pass(cpu < allowed_ns) : "n/a");
		FMT(what, "idle CPU %s in %ld s, %s", target, o->idle_s, c->name);
		FMT(detail, c->ok ? "%.3f ms, %" PRIu64 " wake-ups" : "not measured",
		    (double)cpu / 1e6, c->after.wakeups - c->before.wakeups);
		verdict_add(c->ok ? cpu < allowed_ns : -1, what, detail);

		FMT(fig, "idle %lds wake-ups, %s", o->idle_s, c->name);
		r = row_add(fig);
		FMT(r->value, c->ok ? "%" PRIu64 : "n/a", c->after.wakeups - c->before.wakeups);
		FMT(r->ref, echo_ok ? "bare FIFO %" PRIu64 : "bare FIFO n/a",
		    echo_after.wakeups - echo_before.wakeups);
	}

	r = row_add("VmRSS (KiB), idle proctord");
	FMT(r->value, fresh_ok ? "%" PRIu64 : "n/a", rss_fresh);
	FMT(r->ref, rss_echo_ok ? "bare FIFO %" PRIu64 : "bare FIFO n/a", rss_echo);
	if (fresh_ok && rss_echo_ok)
		FMT(r->ratio, "%.2fx", (double)rss_fresh / (double)rss_echo);
	FMT(r->target, "< 2048");
	FMT(r->result, "%s", fresh_ok ? pass(rss_fresh < TARGET_RSS_KIB) : "n/a");
	FMT(detail, fresh_ok ? "%" PRIu64 " KiB" : "not measured", rss_fresh);
	verdict_add(fresh_ok ? rss_fresh < TARGET_RSS_KIB : -1, "proctord resident memory < 2 MiB",
		    detail);
	if (used->pid > 0) {
		r = row_add("VmRSS (KiB), after the latency waits");
		FMT(r->value, used_ok ? "%" PRIu64 : "n/a", rss_used);
		FMT(r->ref, "idle proctord %" PRIu64, rss_fresh);
	}
	for (size_t i = 0; i < 3; i++)
		if (cases[i].ok && box_stop(&cases[i].box) < 0)
			phase_failed("stopping an idle proctord");
}

// --- density -------------------------------------------------------------------

#define INOTIFY_INSTANCES "/proc/sys/fs/inotify/max_user_instances"

static char bench_note[256];

// Each proctord takes one inotify instance (to see a status reader close),
// and Linux allows a user 128 by default; past that, a proctord serves
// without (a fresh status FIFO for each answer). The limit is left as it is
// (the default host is what is measured), and said.
static void inotify_note(size_t n)
{
	char buf[32];
	long lim;

	if (read_file(INOTIFY_INSTANCES, buf, sizeof(buf)) < 0)
		return;
	lim = strtol(buf, NULL, 10);
	if (lim <= 0 || (size_t)lim >= n + 16)
		return;
	FMT(bench_note,
	    "fs.inotify.max_user_instances is %ld: of the %zu density sandboxes, those past it "
	    "answer without inotify (a fresh status FIFO each answer)",
	    lim, n);
	fprintf(stderr, "bench: note: %s\n", bench_note);
}

// The starts of the density run, each from the launcher's fork to its exit:
// the first up to 100 (beside few sandboxes), the last up to 100 (beside
// nearly all), and the time the terminating waits of all took, one at a time.
struct density_starts {
	struct samples first, last;
	uint64_t stop_ns;
};

// Waits on nboxes boxes in turn, rate_n of them per 100 ms spread evenly, for
// seconds; each round trip is a sample.
static int paced_poll(const struct box *boxes, size_t nboxes, size_t rate_n, long seconds,
		      struct samples *keep)
{
	uint64_t period_ns = 100000000u / rate_n, slots = (uint64_t)seconds * 10u * rate_n;
	uint64_t t_start = now_ns();

	deadline_arm((unsigned)seconds + 30);
	for (uint64_t k = 0; k < slots; k++) {
		char ans[512];
		uint64_t t0;

		sleep_until_ns(t_start + k * period_ns);
		t0 = now_ns();
		if (box_round_trip(&boxes[k % nboxes], "1\n", ans, sizeof(ans)) < 0) {
			deadline_disarm();
			return -1;
		}
		samples_add(keep, now_ns() - t0);
	}
	deadline_disarm();
	return 0;
}

// Start p50 and p99 beside few sandboxes and beside nearly all, and the
// stop of all of them.
static void density_start_rows(struct density_starts *ds, size_t n, bool ok)
{
	double f50, f99, l50, l99;
	char fig[52];
	struct row *r;

	samples_stats(&ds->first, &f50, &f99);
	samples_stats(&ds->last, &l50, &l99);
	FMT(fig, "%zu sandboxes: start p50 (us), last 100", n);
	r = row_add(fig);
	FMT(r->value, ds->last.n ? "%.0f" : "n/a", l50);
	FMT(r->ref, ds->first.n ? "first 100 %.0f" : "first 100 n/a", f50);
	if (ds->first.n && ds->last.n)
		FMT(r->ratio, "%.2fx", l50 / f50);
	FMT(fig, "%zu sandboxes: start p99 (us), last 100", n);
	r = row_add(fig);
	FMT(r->value, ds->last.n ? "%.0f" : "n/a", l99);
	FMT(r->ref, ds->first.n ? "first 100 %.0f" : "first 100 n/a", f99);
	if (ds->first.n && ds->last.n)
		FMT(r->ratio, "%.2fx", l99 / f99);
	FMT(fig, "%zu sandboxes: stop all, one at a time (ms)", n);
	r = row_add(fig);
	FMT(r->value, ok ? "%.0f" : "n/a", (double)ds->stop_ns / 1e6);
	FMT(r->ref, "%.2f ms a sandbox", (double)ds->stop_ns / 1e6 / (double)n);
}

static void bench_density(const struct bench_opts *o, const struct box *echo, const struct box *one)
{
	struct samples *echo_paced = &plot_echo_paced, one_paced = {0};
	struct proc_snap one_before = {0}, one_after = {0};
	double echo_p50 = 0, echo_p99 = 0, one_p50 = 0, one_p99 = 0;
	const char *limits[] = {"--grace", "1ms", NULL};
	const char *prog[] = {o->sleep_prog, "1000", NULL};
	size_t n = (size_t)o->density, started = 0;
	struct box *boxes = calloc(n, sizeof(*boxes));
	struct proc_snap *before = calloc(n, sizeof(*before)), *after = calloc(n, sizeof(*after));
	uint64_t rss_sum = 0, pss_sum = 0, pss_echo = 0, idle_ns = 0, idle_wake = 0;
	uint64_t poll_ns = 0;
	bool ok = false, mem_ok = true;
	char fig[52], detail[48], what[72];
	struct row *r;
	double p50 = 0, p99 = 0;
	struct density_starts ds = {0};
	uint64_t t_stop;

	if (!boxes || !before || !after) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	fprintf(stderr, "bench: density, %zu sandboxes...\n", n);
	FMT(plot_density_label, "proctord, %zu sandboxes at 10 Hz each", n);
	inotify_note(n);
	for (; started < n; started++) {
		if (daemon_start(o, &boxes[started], limits, prog) < 0)
			goto end;
		if (started < 100)
			samples_add(&ds.first, daemon_launch_ns);
		if (started + 100 >= n)
			samples_add(&ds.last, daemon_launch_ns);
	}
	sleep_ns(500000000u);
	// Memory: resident (shared pages once per daemon) and proportional.
	for (size_t i = 0; i < n; i++) {
		uint64_t rss = 0, pss = 0;

		if (proc_rss_kib(boxes[i].pid, &rss) < 0 || proc_pss_kib(boxes[i].pid, &pss) < 0) {
			mem_ok = false;
			break;
		}
		rss_sum += rss;
		pss_sum += pss;
	}
	if (echo->pid <= 0 || proc_pss_kib(echo->pid, &pss_echo) < 0)
		pss_echo = 0;
	// Idle: every daemon left alone for the idle window.
	for (size_t i = 0; i < n; i++)
		if (proc_snapshot(boxes[i].pid, &before[i]) < 0)
			goto end;
	sleep_ns((uint64_t)o->idle_s * 1000000000u);
	for (size_t i = 0; i < n; i++) {
		if (proc_snapshot(boxes[i].pid, &after[i]) < 0)
			goto end;
		idle_ns += after[i].cpu_ns - before[i].cpu_ns;
		idle_wake += after[i].wakeups - before[i].wakeups;
	}
	// Polled: each sandbox 10 times a second, the waits spread evenly over
	// the 100 ms period, one client; each wait's round trip is a sample.
	for (size_t i = 0; i < n; i++)
		if (proc_snapshot(boxes[i].pid, &before[i]) < 0)
			goto end;
	if (paced_poll(boxes, n, n, o->density_s, &plot_density) < 0)
		goto end;
	for (size_t i = 0; i < n; i++) {
		if (proc_snapshot(boxes[i].pid, &after[i]) < 0)
			goto end;
		poll_ns += after[i].cpu_ns - before[i].cpu_ns;
	}
	samples_stats(&plot_density, &p50, &p99);
	// The references: one proctord, and the bare FIFO server, each alone and
	// polled on the same schedule (2000 waits a second for 200 sandboxes).
	if (one->pid > 0 && proc_snapshot(one->pid, &one_before) == 0 &&
	    paced_poll(one, 1, n, o->density_s, &one_paced) == 0 &&
	    proc_snapshot(one->pid, &one_after) == 0)
		samples_stats(&one_paced, &one_p50, &one_p99);
	if (echo->pid > 0 && paced_poll(echo, 1, n, o->density_s, echo_paced) == 0)
		samples_stats(echo_paced, &echo_p50, &echo_p99);
	ok = true;
end:
	t_stop = now_ns();
	for (size_t i = 0; i < started; i++)
		if (box_stop(&boxes[i]) < 0 && ok) {
			ok = false;
			phase_failed("stopping the density sandboxes");
		}
	ds.stop_ns = now_ns() - t_stop;
	if (!ok && started < n)
		fprintf(stderr, "bench: density: %zu of %zu sandboxes started\n", started, n);
	if (!ok)
		phase_failed("density");
	FMT(fig, "%zu sandboxes: PSS, all proctord (MiB)", n);
	r = row_add(fig);
	FMT(r->value, ok && mem_ok ? "%.1f" : "n/a", (double)pss_sum / 1024.0);
	FMT(r->ref, pss_echo ? "%zu x bare FIFO %.1f" : "bare FIFO n/a", n,
	    (double)pss_echo * (double)n / 1024.0);
	if (ok && mem_ok && pss_echo)
		FMT(r->ratio, "%.2fx", (double)pss_sum / ((double)pss_echo * (double)n));
	FMT(fig, "%zu sandboxes: VmRSS sum (MiB)", n);
	r = row_add(fig);
	FMT(r->value, ok && mem_ok ? "%.1f" : "n/a", (double)rss_sum / 1024.0);
	FMT(r->ref, "shared pages counted %zu times", n);
	FMT(fig, "%zu sandboxes: idle %lds CPU, all (ms)", n, o->idle_s);
	r = row_add(fig);
	FMT(r->value, ok ? "%.3f" : "n/a", (double)idle_ns / 1e6);
	FMT(r->ref, "%" PRIu64 " wake-ups", idle_wake);
	FMT(fig, "%zu sandboxes at 10 Hz: wait p50 (us)", n);
	r = row_add(fig);
	FMT(r->value, ok ? "%.1f" : "n/a", p50);
	if (one_paced.n) {
		FMT(r->ref, "1 sandbox, same pace %.1f", one_p50);
		FMT(r->ratio, "%.2fx", p50 / one_p50);
	}
	FMT(fig, "%zu sandboxes at 10 Hz: wait p99 (us)", n);
	r = row_add(fig);
	FMT(r->value, ok ? "%.1f" : "n/a", p99);
	if (one_paced.n) {
		FMT(r->ref, "1 sandbox, same pace %.1f", one_p99);
		FMT(r->ratio, "%.2fx", p99 / one_p99);
	}
	FMT(r->target, "< 2000");
	FMT(r->result, "%s", ok ? pass(p99 < TARGET_DENSITY_P99_US) : "n/a");
	FMT(fig, "%zu sandboxes at 10 Hz: wait max (us)", n);
	r = row_add(fig);
	FMT(r->value, ok ? "%.1f" : "n/a",
	    plot_density.n ? (double)plot_density.v[plot_density.n - 1] / 1000.0 : 0.0);
	FMT(r->ref, "%zu waits", plot_density.n);
	FMT(fig, "1 sandbox, same pace: wait p50 (us)");
	r = row_add(fig);
	FMT(r->value, one_paced.n ? "%.1f" : "n/a", one_p50);
	FMT(r->ref, echo_paced->n ? "bare FIFO, same pace %.1f" : "bare FIFO n/a", echo_p50);
	if (one_paced.n && echo_paced->n)
		FMT(r->ratio, "%.2fx", one_p50 / echo_p50);
	FMT(fig, "1 sandbox, same pace: wait p99 (us)");
	r = row_add(fig);
	FMT(r->value, one_paced.n ? "%.1f" : "n/a", one_p99);
	FMT(r->ref, echo_paced->n ? "bare FIFO, same pace %.1f" : "bare FIFO n/a", echo_p99);
	if (one_paced.n && echo_paced->n)
		FMT(r->ratio, "%.2fx", one_p99 / echo_p99);
	FMT(fig, "%zu sandboxes at 10 Hz: CPU, all (us/wait)", n);
	r = row_add(fig);
	FMT(r->value, ok ? "%.1f" : "n/a", (double)poll_ns / 1000.0 / (double)plot_density.n);
	if (one_paced.n)
		FMT(r->ref, "1 sandbox, same pace %.1f",
		    (double)(one_after.cpu_ns - one_before.cpu_ns) / 1000.0 / (double)one_paced.n);
	density_start_rows(&ds, n, ok);
	FMT(what, "%zu sandboxes polled at 10 Hz: wait p99 < 2 ms", n);
	FMT(detail, ok ? "p99 %.0f us, p50 %.0f us" : "not measured", p99, p50);
	verdict_add(ok ? p99 < TARGET_DENSITY_P99_US : -1, what, detail);
	free(boxes);
	free(before);
	free(after);
	free(one_paced.v);
	free(ds.first.v);
	free(ds.last.v);
}

// --- paths ---------------------------------------------------------------------

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

// --- output --------------------------------------------------------------------

static void machine_describe(char *buf, size_t size)
{
	struct utsname u;
	char cpuinfo[65536], model[128] = "unknown CPU", meminfo[4096];
	const char *p;
	uint64_t mem_kib = 0;

	if (read_file("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo)) == 0 &&
	    (p = strstr(cpuinfo, "model name")) && (p = strchr(p, ':')))
		snprintf(model, sizeof(model), "%.*s", (int)strcspn(p + 2, "\n"), p + 2);
	if (read_file("/proc/meminfo", meminfo, sizeof(meminfo)) == 0)
		mem_kib = status_field(meminfo, "MemTotal:");
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	snprintf(buf, size, "%s %s %s, %s, %ld CPUs, %.0f GiB", u.sysname, u.release, u.machine,
		 model, sysconf(_SC_NPROCESSORS_ONLN), (double)mem_kib / 1048576.0);
}

// What serves proctord's CPU figure and its tree kill on this machine, from
// its --check ("cgroup2 cpu.stat usage_usec" or the /proc fallback): the
// wait and the start cost differ with cgroups, so the table says which ran.
static void cgroups_describe(const char *proctord, char *buf, size_t size)
{
	const char *mode = bench_cgroup ? bench_cgroup : "auto";
	char line[4200], cpu[200] = "", kill_src[200] = "";
	int p[2], st;
	pid_t pid;
	FILE *f;

	snprintf(buf, size, "unknown (proctord --check failed)");
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(p[1], 1);
		if (null >= 0)
			dup2(null, 2);
		execl(proctord, proctord, "--check", "--cgroup", mode, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	f = pid > 0 ? fdopen(p[0], "r") : NULL;
	if (!f) {
		close(p[0]);
		if (pid > 0)
			waitpid(pid, &st, 0);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *dst = NULL, *v;

		if (strncmp(line, "cpu ", 4) == 0)
			dst = cpu;
		else if (strncmp(line, "tree kill ", 10) == 0)
			dst = kill_src;
		if (!dst)
			continue;
		v = line + (dst == cpu ? 4 : 10);
		v += strspn(v, " ");
		// The source without the cgroup's path, which names a pid.
		snprintf(dst, 200, "%.*s", (int)strcspn(v, "(\n"), v);
		for (size_t n = strlen(dst); n > 0 && dst[n - 1] == ' '; n--)
			dst[n - 1] = '\0';
	}
	fclose(f);
	waitpid(pid, &st, 0);
	if (cpu[0])
		snprintf(buf, size, "CPU from %s, tree kill by %s", cpu,
			 kill_src[0] ? kill_src : "unknown");
}

// The 1, 5 and 15 minute load averages: a shared machine shows here.
static void load_read(char *buf, size_t size)
{
	char raw[128];
	double a, b, c;

	if (read_file("/proc/loadavg", raw, sizeof(raw)) < 0 ||
	    sscanf(raw, "%lf %lf %lf", &a, &b, &c) != 3)
		snprintf(buf, size, "unknown");
	else
		snprintf(buf, size, "%.2f %.2f %.2f", a, b, c);
}

static void table_print(const struct bench_opts *o, const char *machine)
{
	static const char *const head[] = {"figure", "proctord", "reference (same run)",
					   "ratio",  "target",	 "result"};
	static const char rule[] =
	    "--------------------------------------------------------------------"
	    "------------------------------------------------------";
	int pass_n = 0, miss_n = 0, na_n = 0;

	printf("\nproctor benchmark: %s\n", o->proctord);
	printf("machine: %s; load average %s at the start, %s at the end\n", machine,
	       bench_load_start, bench_load_end);
	printf("proctord's figures (its --check): %s\n", bench_cgroups);
	printf("client and bare FIFO server at nice %d, proctord at -10 where it may; ",
	       bench_niced ? -10 : bench_nice);
	printf("daemon CPU from /proc/PID/%s; %ld waits after %ld warm-up, %ld shell waits, %ld "
	       "starts, %ld limit runs, %ld s idle, %ld sandboxes for %ld s\n\n",
	       bench_cpu_source, o->iterations, o->warmup, o->shell_waits, o->starts, o->runs,
	       o->idle_s, o->density, o->density_s);
	printf("%-44s %10s  %-26s %7s  %-10s %s\n", head[0], head[1], head[2], head[3], head[4],
	       head[5]);
	printf("%.114s\n", rule);
	for (size_t i = 0; i < bench_nrows; i++) {
		const struct row *r = &bench_rows[i];

		printf("%-44s %10s  %-26s %7s  %-10s %s\n", r->figure, r->value, r->ref, r->ratio,
		       r->target, r->result);
	}
	printf("\ntargets (informational; the exit status does not depend on them)\n");
	for (size_t i = 0; i < bench_nverdicts; i++) {
		const struct verdict *v = &bench_verdicts[i];
		const char *s = v->state < 0 ? "N/A " : v->state ? "PASS" : "MISS";

		printf("  %s  %-64s %s\n", s, v->what, v->detail);
		pass_n += v->state == 1;
		miss_n += v->state == 0;
		na_n += v->state < 0;
	}
	printf("  %d PASS, %d MISS, %d not measured\n", pass_n, miss_n, na_n);
	if (bench_note[0])
		printf("note: %s\n", bench_note);
	fflush(stdout);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_write(const char *path, const char *machine)
{
	FILE *f = fopen(path, "we");

	if (!f) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		bench_failed = true;
		return;
	}
	fprintf(f, "{\n  \"machine\": ");
	json_str(f, machine);
	fprintf(f, ",\n  \"load_start\": ");
	json_str(f, bench_load_start);
	fprintf(f, ",\n  \"load_end\": ");
	json_str(f, bench_load_end);
	fprintf(f, ",\n  \"cgroups\": ");
	json_str(f, bench_cgroups);
	fprintf(f, ",\n  \"rows\": [\n");
	for (size_t i = 0; i < bench_nrows; i++) {
		const struct row *r = &bench_rows[i];
		const char *k[] = {"figure", "value", "reference", "ratio", "target", "result"};
		const char *v[] = {r->figure, r->value, r->ref, r->ratio, r->target, r->result};

		fprintf(f, "    {");
		for (size_t j = 0; j < 6; j++) {
			fprintf(f, "%s\"%s\": ", j ? ", " : "", k[j]);
			json_str(f, v[j]);
		}
		fprintf(f, "}%s\n", i + 1 < bench_nrows ? "," : "");
	}
	fprintf(f, "  ],\n  \"targets\": [\n");
	for (size_t i = 0; i < bench_nverdicts; i++) {
		const struct verdict *v = &bench_verdicts[i];

		fprintf(f, "    {\"target\": ");
		json_str(f, v->what);
		fprintf(f, ", \"result\": \"%s\", \"detail\": ",
			v->state < 0 ? "n/a"
			: v->state   ? "pass"
				     : "miss");
		json_str(f, v->detail);
		fprintf(f, "}%s\n", i + 1 < bench_nverdicts ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	if (fclose(f) != 0) {
		fprintf(stderr, "bench: %s: write error\n", path);
		bench_failed = true;
	}
}

// The distribution of every latency sample set as a CDF, drawn by gnuplot.
static void plot_write(const struct bench_opts *o, const char *machine)
{
	struct samples *sets[] = {&plot_bare,	 &plot_pdl,	   &plot_echo_paced,
				  &plot_density, &plot_shell_bare, &plot_shell_pdl};
	char script[PATH_MAX], data[PATH_MAX], log[PATH_MAX], gnuplot[PATH_MAX];
	const char *argv[] = {gnuplot, script, NULL};
	const char *ext;
	size_t drawn = 0;
	FILE *f;
	pid_t pid;
	int st;

	if (path_find_in_path(gnuplot, "gnuplot") < 0) {
		fprintf(stderr, "bench: no gnuplot in PATH: %s not drawn\n", o->plot);
		return;
	}
	if (tmp_path(script, "plot.gp") < 0 || tmp_path(log, "gnuplot.log") < 0)
		return;
	f = fopen(script, "we");
	if (!f)
		return;
	// FILE.png is drawn as a PNG, anything else as SVG.
	ext = strrchr(o->plot, '.');
	fprintf(f, "set encoding utf8\n");
	if (ext && strcmp(ext, ".png") == 0)
		fprintf(f, "set terminal pngcairo size 1200,675 font 'sans,12'\n");
	else
		fprintf(f, "set terminal svg size 960,540 dynamic font 'sans,13' "
			   "background '#ffffff'\n");
	fprintf(f, "set output '%s'\n", o->plot);
	fprintf(f, "set title \"proctord wait round trip, one client (%s)\" noenhanced\n", machine);
	fprintf(f, "set xlabel 'round trip (µs), log scale'\n"
		   "set ylabel 'fraction of waits at or below'\n"
		   "set logscale x\nset grid xtics mxtics ytics\nset key bottom right\n"
		   "set yrange [0:1]\nset xrange [10:*]\nplot ");
	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		struct samples *set = sets[s];
		FILE *d;

		if (!set->n)
			continue;
		bench_seq++;
		if (tmp_path(data, "plot%u.dat", bench_seq) < 0 || !(d = fopen(data, "we")))
			continue;
		qsort(set->v, set->n, sizeof(*set->v), u64_cmp);
		// 1000 quantiles are plenty for a curve and keep the SVG small.
		for (size_t i = 0; i < 1000; i++) {
			size_t idx = (size_t)((double)i / 999.0 * (double)(set->n - 1));

			fprintf(d, "%.2f %.4f\n", (double)set->v[idx] / 1000.0,
				(double)(idx + 1) / (double)set->n);
		}
		fclose(d);
		fprintf(f, "%s'%s' using 1:2 with lines lw 2 title '", drawn ? ", " : "", data);
		// In a single-quoted gnuplot string, a quote is written twice.
		for (const char *c = set->label; *c; c++)
			if (*c == '\'')
				fputs("''", f);
			else
				fputc(*c, f);
		fprintf(f, " (%zu)'", set->n);
		drawn++;
	}
	fprintf(f, "\n");
	fclose(f);
	if (!drawn)
		return;
	pid = fork();
	if (pid == 0)
		child_exec(argv, -1, log);
	st = pid > 0 ? child_reap(pid, 30000) : -1;
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench: gnuplot failed on %s:\n", script);
		log_dump(log);
		bench_failed = true;
		return;
	}
	fprintf(stderr, "bench: latency distribution drawn in %s\n", o->plot);
}

// --- the run -------------------------------------------------------------------

// Whatever is still our child here descends from a proctord this run started
// and that failed to clean up (we are its subreaper): say so, and end it.
static void children_kill_once(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;

	while (proc && (de = readdir(proc))) {
		char path[64], buf[2048], *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 ||
		    snprintf(path, sizeof(path), "/proc/%ld/status", pid) >= (int)sizeof(path) ||
		    read_file(path, buf, sizeof(buf)) < 0)
			continue;
		if (strstr(buf, "\nPPid:") && status_field(buf, "\nPPid:") == (uint64_t)getpid()) {
			fprintf(stderr, "bench: leftover process %ld (%.*s), killing it\n", pid,
				(int)strcspn(buf + 6, "\n"), buf + 6);
			kill((pid_t)pid, SIGKILL);
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

static long opt_long(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
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

static unsigned opt_phases(const char *list)
{
	char *copy = strdup(list), *name, *save = NULL;
	unsigned bits = 0;

	if (!copy) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(phase_names) / sizeof(phase_names[0]); i++)
			if (strcmp(name, phase_names[i].name) == 0)
				break;
		if (i == sizeof(phase_names) / sizeof(phase_names[0])) {
			fprintf(stderr,
				"bench: unknown phase \"%s\" (phases: latency, shell, start, cpu, "
				"wall, sections, idle, density)\n",
				name);
			exit(2);
		}
		bits |= phase_names[i].bit;
	}
	free(copy);
	return bits;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: bench [--proctord PATH] [--proctor PATH] [--phases LIST] [-n WAITS]\n"
	    "             [--warmup N] [--shell-waits N] [--starts N] [--runs N] [--idle SECONDS]\n"
	    "             [--density N] [--density-time SECONDS] [--json FILE] [--plot FILE.svg]\n"
	    "             [--cgroup auto|v2|v1|none]\n"
	    "Prints proctord's wait latency (C client and shell), start-up, limit overshoot,\n"
	    "section error, idle cost, memory and density, each next to a reference measured\n"
	    "in the same run. Phases: latency, shell, start, cpu, wall, sections, idle,\n"
	    "density (default: all). Defaults: ../../src/proctord and ../../src/proctor from\n"
	    "this program, the helpers next to it; 5000 waits after 500, 500 shell waits,\n"
	    "100 starts, 20 runs per limit, 10 s idle, 200 sandboxes polled for 5 s.\n");
}

static void opts_parse(int argc, char **argv, struct bench_opts *o)
{
	static const struct option longopts[] = {
	    {"proctord", required_argument, NULL, 'p'},
	    {"proctor", required_argument, NULL, 'P'},
	    {"spin", required_argument, NULL, 's'},
	    {"echo", required_argument, NULL, 'e'},
	    {"phases", required_argument, NULL, 'f'},
	    {"warmup", required_argument, NULL, 'w'},
	    {"shell-waits", required_argument, NULL, 'S'},
	    {"starts", required_argument, NULL, 'T'},
	    {"runs", required_argument, NULL, 'r'},
	    {"idle", required_argument, NULL, 'i'},
	    {"density", required_argument, NULL, 'd'},
	    {"density-time", required_argument, NULL, 'D'},
	    {"json", required_argument, NULL, 'j'},
	    {"plot", required_argument, NULL, 'g'},
	    {"cgroup", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	char *const paths[] = {o->proctord, o->proctor, o->spin,
			       o->echo,	    o->stamp,	o->burn, o->floor};
	int c;

	memset(o, 0, sizeof(*o));
	o->phases = ~0u;
	o->iterations = 5000;
	o->warmup = 500;
	o->shell_waits = 500;
	o->starts = 100;
	o->runs = 20;
	o->idle_s = 10;
	o->density = 200;
	o->density_s = 5;
	if (path_sibling(o->proctord, "../../src/proctord") < 0 ||
	    path_sibling(o->proctor, "../../src/proctor") < 0 ||
	    path_sibling(o->spin, "spin") < 0 || path_sibling(o->echo, "fifo-echo") < 0 ||
	    path_sibling(o->stamp, "stamp") < 0 || path_sibling(o->burn, "section-burn") < 0 ||
	    path_sibling(o->floor, "floor") < 0) {
		fprintf(stderr, "bench: cannot locate myself through /proc/self/exe\n");
		exit(1);
	}
	while ((c = getopt_long(argc, argv, "n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			opt_path(o->proctord, optarg);
			break;
		case 'P':
			opt_path(o->proctor, optarg);
			break;
		case 's':
			opt_path(o->spin, optarg);
			break;
		case 'e':
			opt_path(o->echo, optarg);
			break;
		case 'f':
			o->phases = opt_phases(optarg);
			break;
		case 'n':
			o->iterations = opt_long(optarg, "-n", 1, 10000000);
			break;
		case 'w':
			o->warmup = opt_long(optarg, "--warmup", 0, 10000000);
			break;
		case 'S':
			o->shell_waits = opt_long(optarg, "--shell-waits", 1, 100000);
			break;
		case 'T':
			o->starts = opt_long(optarg, "--starts", 1, 100000);
			break;
		case 'r':
			o->runs = opt_long(optarg, "--runs", 1, 64);
			break;
		case 'i':
			o->idle_s = opt_long(optarg, "--idle", 1, 3600);
			break;
		case 'd':
			o->density = opt_long(optarg, "--density", 1, 2000);
			break;
		case 'D':
			o->density_s = opt_long(optarg, "--density-time", 1, 3600);
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'g':
			o->plot = optarg;
			break;
		case 'c':
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "v2") != 0 &&
			    strcmp(optarg, "v1") != 0 && strcmp(optarg, "none") != 0) {
				fprintf(stderr, "bench: --cgroup: auto, v2, v1 or none, not %s\n",
					optarg);
				exit(2);
			}
			bench_cgroup = optarg;
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
	if (path_find_in_path(o->sleep_prog, "sleep") < 0 ||
	    path_find_in_path(o->true_prog, "true") < 0 || path_find_in_path(o->bash, "bash") < 0) {
		fprintf(stderr, "bench: sleep, true and bash must be in PATH\n");
		exit(1);
	}
	// Relative paths must survive the children's exec from any directory.
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char real[PATH_MAX];

		if (!realpath(paths[i], real) || access(real, X_OK) < 0) {
			fprintf(stderr, "bench: %s: %s\n", paths[i], strerror(errno));
			exit(1);
		}
		strlcpy(paths[i], real, PATH_MAX);
	}
}

// Removes the temporary tree: files and directories one level down (the
// boxes a failed run left behind), then the tree itself.
static void tmp_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX];

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (unlink(path) < 0 && errno == EISDIR) {
			DIR *sub = opendir(path);
			struct dirent *se;

			while (sub && (se = readdir(sub))) {
				char inner[PATH_MAX];

				if (snprintf(inner, sizeof(inner), "%s/%s", path, se->d_name) <
				    (int)sizeof(inner))
					unlink(inner);
			}
			if (sub)
				closedir(sub);
			rmdir(path);
		}
	}
	closedir(d);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = bench_alarm_cb};
	struct bench_opts o;
	struct box echo = {0}, daemon = {0};
	const char *base = getenv("TMPDIR");
	const char *prog[3];
	char machine[512];

	opts_parse(argc, argv, &o);
	prog[0] = o.sleep_prog;
	prog[1] = "1000";
	prog[2] = NULL;
	errno = 0;
	bench_nice = getpriority(PRIO_PROCESS, 0);
	if (errno == 0 && bench_nice > -10 && setpriority(PRIO_PROCESS, 0, -10) == 0)
		bench_niced = true;
	// No SA_RESTART: the alarm must interrupt a blocking FIFO open.
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	// proctor run starts this proctord.
	setenv("PROCTORD", o.proctord, 1);
	// As subreaper we get the daemonized proctord back when its launcher exits,
	// so we can collect its exit code after the terminating wait.
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		fprintf(stderr, "bench: PR_SET_CHILD_SUBREAPER: %s (exit codes unchecked)\n",
			strerror(errno));
	// Enough descriptors for the density run's launchers and FIFOs.
	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	if (snprintf(bench_tmp, sizeof(bench_tmp), "%s/proctor-bench.XXXXXX",
		     base && *base ? base : "/tmp") >= (int)sizeof(bench_tmp) ||
	    !mkdtemp(bench_tmp)) {
		fprintf(stderr, "bench: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	// Searchable by all: a box run by root is nobody's (uid 0 there is
	// the host's nobody), and its init opens the box's DIR in here.
	if (chmod(bench_tmp, 0711) < 0) {
		fprintf(stderr, "bench: chmod %s: %s\n", bench_tmp, strerror(errno));
		return 1;
	}
	machine_describe(machine, sizeof(machine));
	load_read(bench_load_start, sizeof(bench_load_start));

	// The reference server and one proctord serve the latency and shell
	// phases, and are measured idle and compared in memory later.
	if (echo_start(&o, &echo, false) < 0)
		phase_failed("bare FIFO server");
	if (daemon_start(&o, &daemon, NULL, prog) < 0)
		phase_failed("proctord for the waits");
	if (o.phases & PHASE_LATENCY)
		bench_latency(&o, &echo, &daemon);
	if (o.phases & PHASE_SHELL)
		bench_shell(&o, &echo, &daemon);
	if (o.phases & PHASE_START)
		bench_start(&o);
	if (o.phases & PHASE_CPU) {
		// Many threads: proctord must still wake on time among them.
		bench_overshoot(&o, false, "1");
		bench_overshoot(&o, false, "4");
		bench_overshoot(&o, false, "64");
		bench_overshoot(&o, false, "500");
	}
	if (o.phases & PHASE_WALL) {
		bench_overshoot(&o, true, "1");
		bench_overshoot(&o, true, "4");
	}
	if (o.phases & PHASE_SECTIONS)
		bench_sections(&o);
	if (o.phases & PHASE_IDLE)
		bench_idle(&o, &echo, &daemon);
	if (o.phases & PHASE_DENSITY)
		bench_density(&o, &echo, &daemon);

	if (box_stop(&daemon) < 0)
		phase_failed("stopping the proctord for the waits");
	if (box_stop(&echo) < 0)
		phase_failed("stopping fifo-echo");
	children_kill();
	load_read(bench_load_end, sizeof(bench_load_end));
	cgroups_describe(o.proctord, bench_cgroups, sizeof(bench_cgroups));

	table_print(&o, machine);
	if (o.json)
		json_write(o.json, machine);
	if (o.plot)
		plot_write(&o, machine);
	tmp_remove(bench_tmp);
	if (bench_failed)
		fprintf(stderr, "bench: some figures could not be measured (see above)\n");
	return bench_failed ? 1 : 0;
}
