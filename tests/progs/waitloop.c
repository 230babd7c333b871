// SPDX-License-Identifier: ISC
// A fast protocol client: N waits in a row, each answer checked, for load, abuse and timing tests.
//
// usage: waitloop [-l] [-t] [-p MS] [-r REQ] [-e HEAD] DIR N
//   -l       hold flock(DIR/lock, LOCK_EX) around each wait, as clients sharing a sandbox must
//   -r REQ   request to send (default "1"); a "\n" is appended
//   -e HEAD  every answer's status head must be HEAD (e.g. "running")
//   -p MS    poll: stop at the first answer whose head is not "running" (at most N
//            waits, MS ms apart); exit 3 if none came
//   -t       after the last answer print "elapsed_us E" (its request to its EOF),
//            "realtime_us R" (CLOCK_REALTIME at its EOF) and, with -p,
//            "last_running_us R" (CLOCK_REALTIME at the last "running" answer's EOF, 0 if none)
// Prints the last answer. Exits 1 at the first malformed answer, naming it.
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static int64_t now_us(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* One wait exactly as the protocol says: open/write/close, then open/read to EOF/close. */
static size_t wait_once(const char *wait_path, const char *status_path, const char *req, char *ans, size_t cap)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(wait_path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(wait_path);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		die("write request");
	close(fd);
	fd = open(status_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(status_path);
	while ((n = read(fd, ans + len, cap - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("read answer");
		}
		len += (size_t)n;
		if (len == cap - 1)
			break;
	}
	close(fd);
	ans[len] = '\0';
	return len;
}

static void bad(long i, const char *why, const char *ans)
{
	fprintf(stderr, "waitloop: answer %ld %s: \"%s\"\n", i, why, ans);
	exit(1);
}

int main(int argc, char **argv)
{
	const char *req = "1", *head = NULL;
	char wait_path[4096], status_path[4096], lock_path[4096], reqline[64];
	char ans[4096], last[4096] = "";
	int64_t start = 0, prev_cpu = -1, last_running = 0;
	long n, poll_ms = -1, i;
	int opt, lock = 0, timing = 0, lockfd = -1;
	regex_t re;

	while ((opt = getopt(argc, argv, "ltp:r:e:")) != -1) {
		switch (opt) {
		case 'l': lock = 1; break;
		case 't': timing = 1; break;
		case 'p': poll_ms = atol(optarg); break;
		case 'r': req = optarg; break;
		case 'e': head = optarg; break;
		default: return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: waitloop [-l] [-t] [-p MS] [-r REQ] [-e HEAD] DIR N\n");
		return 2;
	}
	snprintf(wait_path, sizeof(wait_path), "%s/wait", argv[optind]);
	snprintf(status_path, sizeof(status_path), "%s/status", argv[optind]);
	snprintf(lock_path, sizeof(lock_path), "%s/lock", argv[optind]);
	snprintf(reqline, sizeof(reqline), "%s\n", req);
	n = atol(argv[optind + 1]);
	/* Three lines: two decimal integers and a status line from the closed set of heads. */
	if (regcomp(&re,
		    "^[0-9]+\n[0-9]+\n(running|exited [0-9]+|signaled SIG[A-Z0-9]+|"
		    "killed (cpu-time|wall-time|memory|output|file-size|terminate|syscall)|"
		    "failed (exec|stdin|stdout|stderr|chdir|limits|setup)|invalid)(: [^\n]*)?\n$",
		    REG_EXTENDED | REG_NOSUB) != 0)
		return 1;
	if (lock) {
		lockfd = open(lock_path, O_RDONLY | O_CLOEXEC);
		if (lockfd < 0)
			die(lock_path);
	}
	for (i = 1; i <= n; i++) {
		size_t hl;
		int64_t cpu;
		char *l3;

		if (lock && flock(lockfd, LOCK_EX) < 0)
			die("flock");
		start = now_us(CLOCK_MONOTONIC);
		wait_once(wait_path, status_path, reqline, ans, sizeof(ans));
		if (lock && flock(lockfd, LOCK_UN) < 0)
			die("flock");
		if (regexec(&re, ans, 0, NULL, 0) != 0)
			bad(i, "is malformed", ans);
		cpu = strtoll(ans, NULL, 10);
		/* Only one client's answers are in order; with -l other clients interleave but CPU stays monotonic. */
		if (cpu < prev_cpu)
			bad(i, "has CPU time lower than the previous answer", ans);
		prev_cpu = cpu;
		l3 = strchr(strchr(ans, '\n') + 1, '\n') + 1;
		hl = strcspn(l3, ":\n");
		if (head && (strlen(head) != hl || strncmp(l3, head, hl) != 0))
			bad(i, "has an unexpected status head", ans);
		memcpy(last, ans, sizeof(last));
		if (poll_ms >= 0) {
			if (strncmp(l3, "running\n", 8) != 0)
				break;
			last_running = now_us(CLOCK_REALTIME);
			struct timespec ts = {poll_ms / 1000, (long)(poll_ms % 1000) * 1000000};

			nanosleep(&ts, NULL);
		}
	}
	fputs(last, stdout);
	if (timing) {
		printf("elapsed_us %lld\n", (long long)(now_us(CLOCK_MONOTONIC) - start));
		printf("realtime_us %lld\n", (long long)now_us(CLOCK_REALTIME));
		if (poll_ms >= 0)
			printf("last_running_us %lld\n", (long long)last_running);
	}
	if (poll_ms >= 0 && i > n)
		return 3;
	return 0;
}
