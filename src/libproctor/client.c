// SPDX-License-Identifier: ISC
// libproctor: wait calls on a proctord sandbox that never hang, with parsed answers.
//
// Every step is bounded by one deadline: the lock is taken with LOCK_NB and
// retried, the wait FIFO is opened non-blocking (ENXIO: nobody reads it),
// and the status FIFO is opened non-blocking for reading, which never
// blocks; poll() then waits for proctord's answer. On Linux a FIFO reader
// that has never seen a writer gets no POLLHUP, so poll() waits for
// proctord rather than returning at once.
//
// The status FIFO is opened before the request is written: proctord then
// finds its reader there at its first open and writes at once, instead of
// handing the answer to its opener thread to wait for one (on the client's
// CPU, 37 us for a wait against 51 us).
//
// proctord holds flock(LOCK_EX) on DIR itself from before DIR/lock exists
// until after it has removed its files: a shared lock on DIR that can be
// taken means that no proctord is alive there. That is how a call notices a
// proctord that died under it (polled while the answer is awaited), and how
// the terminating wait returns only once proctord has cleaned up.
//
// A call that fails with PROCTOR_ESYSTEM keeps the errno of the failed
// system call, per thread, for proctor_strerror: the caller's errno may have
// changed by the time it asks (a close, a printf), and a value read then
// would describe something else.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proctor.h"
#include "proto.h"

/* The public kinds are the protocol's heads, in the same order. */
_Static_assert((int)PROCTOR_RUNNING == HEAD_RUNNING && (int)PROCTOR_EXITED == HEAD_EXITED &&
		       (int)PROCTOR_SIGNALED == HEAD_SIGNALED && (int)PROCTOR_KILLED == HEAD_KILLED &&
		       (int)PROCTOR_FAILED == HEAD_FAILED && (int)PROCTOR_INVALID == HEAD_INVALID,
	       "enum proctor_kind follows enum proto_head");

/* The errno of this thread's last call that failed with PROCTOR_ESYSTEM;
 * 0 once a call has failed otherwise or succeeded. */
static _Thread_local int client_errno;

/* PROCTOR_ESYSTEM, with errno kept: call it before anything that may change
 * errno (a close). */
static int client_system(void)
{
	client_errno = errno;
	return PROCTOR_ESYSTEM;
}

static int64_t client_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int client_left(int64_t deadline)
{
	int64_t left = deadline - client_now_ms();

	return left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

static void client_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* 1 when no proctord holds its lifetime lock on DIR (dirfd), so none is
 * alive there; 0 when one does, or when we cannot tell. */
static int client_server_gone(int dirfd)
{
	if (dirfd < 0 || flock(dirfd, LOCK_SH | LOCK_NB) < 0)
		return 0;
	flock(dirfd, LOCK_UN);
	return 1;
}

/* After the terminating answer: wait until proctord has removed its files
 * and exited, which releases its lock on DIR. */
static int client_await_exit(int dirfd, int64_t deadline)
{
	int delay = 1;

	while (!client_server_gone(dirfd)) {
		if (client_left(deadline) == 0)
			return PROCTOR_ENOEXIT;
		client_sleep_ms(delay < client_left(deadline) ? delay : client_left(deadline));
		delay = delay * 2 > 10 ? 10 : delay * 2;
	}
	return PROCTOR_OK;
}

static int client_lock(const char *dir, int64_t deadline, int *lockfd)
{
	char path[PATH_MAX];
	int delay = 1, fd;

	if ((size_t)snprintf(path, sizeof path, "%s/lock", dir) >= sizeof path)
		return PROCTOR_ENOSANDBOX;
	/* No O_CREAT: a missing lock means the sandbox has ended. Never
	 * blocking, and only a regular file: a FIFO there would hang open(). */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? PROCTOR_ENOSANDBOX
									      : client_system();
	{
		struct stat st;

		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			return PROCTOR_ENOSANDBOX;
		}
	}
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int rc = client_system();

			close(fd);
			return rc;
		}
		if (client_left(deadline) == 0) {
			close(fd);
			return PROCTOR_ETIMEDOUT;
		}
		client_sleep_ms(delay < client_left(deadline) ? delay : client_left(deadline));
		delay = delay * 2 > 20 ? 20 : delay * 2;
	}
	*lockfd = fd;
	return PROCTOR_OK;
}

static int client_request(const char *dir, int terminate, int64_t deadline)
{
	const char *req = terminate ? "0\n" : "1\n";
	char path[PATH_MAX];
	struct stat st;
	int fd;

	snprintf(path, sizeof path, "%s/wait", dir);
	/* The sandbox may have ended while we waited for the lock. */
	if (lstat(path, &st) < 0 || !S_ISFIFO(st.st_mode))
		return PROCTOR_ENOSANDBOX;
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENXIO ? PROCTOR_EGONE
		       : errno == ENOENT ? PROCTOR_ENOSANDBOX
					 : client_system();
	for (;;) {
		ssize_t n = write(fd, req, 2);

		if (n == 2)
			break;
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			int rc = errno == EPIPE ? PROCTOR_EGONE : client_system();

			close(fd);
			return rc;
		}
		/* A full FIFO: proctord is not reading. Wait, but not forever. */
		if (client_left(deadline) == 0) {
			close(fd);
			return PROCTOR_ETIMEDOUT;
		}
		client_sleep_ms(1);
	}
	close(fd);
	return PROCTOR_OK;
}

/* How long one poll() for the answer lasts before proctord's lifetime lock
 * is checked again. */
#define CLIENT_ALIVE_CHECK_MS 20

/* Read and drop what fd (non-blocking) holds now. */
static void client_discard(int fd)
{
	char buf[512];
	ssize_t n;

	do
		n = read(fd, buf, sizeof buf);
	while (n > 0 || (n < 0 && errno == EINTR));
}

/* The status FIFO, open for reading (non-blocking: never waits) in *fdp. */
static int client_status_open(const char *dir, int *fdp)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	snprintf(path, sizeof path, "%s/status", dir);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? PROCTOR_ENOSANDBOX : client_system();
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode)) {
		close(fd);
		return PROCTOR_ENOSANDBOX;
	}
	/* Our request is not written yet: what the pipe holds is not our
	 * answer, but what an earlier reader left unread (it opened status
	 * and never read it all). Read as ours, it would spoil our answer. */
	client_discard(fd);
	*fdp = fd;
	return PROCTOR_OK;
}

/* Read the answer from fd (the status FIFO, opened by client_status_open
 * before the request; closed here). */
static int client_answer(int fd, int dirfd, int64_t deadline, int stop_fd, char *buf, size_t cap,
			 size_t *len)
{
	int seen_data = 0, gone = 0;

	*len = 0;
	for (;;) {
		/* stop_fd: proctord's end, which a dead proctord cannot write. */
		struct pollfd pfds[2] = {{.fd = fd, .events = POLLIN},
					 {.fd = stop_fd, .events = POLLIN}};
		int left = client_left(deadline);
		int r = poll(pfds, stop_fd >= 0 ? 2 : 1,
			     gone ? 0 : left < CLIENT_ALIVE_CHECK_MS ? left : CLIENT_ALIVE_CHECK_MS);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int rc = client_system();

			close(fd);
			return rc;
		}
		if (r == 0 && (gone || left == 0)) {
			close(fd);
			return gone ? PROCTOR_EGONE : PROCTOR_ETIMEDOUT;
		}
		if (r == 0) {
			/* A dead proctord never answers: say so at once rather
			 * than at the deadline. It may have written its answer
			 * just before it went, hence one more look at the FIFO. */
			gone = client_server_gone(dirfd);
			continue;
		}
		if (stop_fd >= 0 && pfds[1].revents && !pfds[0].revents) {
			close(fd);
			return PROCTOR_EGONE;
		}
		n = read(fd, buf + *len, cap - 1 - *len);
		if (n > 0) {
			*len += (size_t)n;
			seen_data = 1;
			if (*len == cap - 1)
				break; /* too long to be an answer: parsing says so */
			continue;
		}
		if (n == 0 && (seen_data || (pfds[0].revents & POLLHUP)))
			break; /* the writer closed: end of the answer */
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			int rc = client_system();

			close(fd);
			return rc;
		}
	}
	close(fd);
	buf[*len] = '\0';
	return PROCTOR_OK;
}

int proctor_wait(const char *dir, int terminate, int timeout_ms, struct proctor_result *res)
{
	return proctor_wait_fd(dir, terminate, timeout_ms, -1, res);
}

int proctor_wait_fd(const char *dir, int terminate, int timeout_ms, int stop_fd,
		    struct proctor_result *res)
{
	int64_t deadline = client_now_ms() + (timeout_ms < 0 ? 0 : timeout_ms);
	char answer[2048];
	size_t len = 0;
	int lockfd = -1, statusfd = -1, dirfd, rc;

	client_errno = 0;
	/* For proctord's lifetime lock. A directory we may not read (mode
	 * 0711, say) still serves calls, without that check. */
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (dirfd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return PROCTOR_ENOSANDBOX;
	rc = client_lock(dir, deadline, &lockfd);
	if (rc == PROCTOR_OK && client_server_gone(dirfd))
		rc = PROCTOR_EGONE;
	if (rc == PROCTOR_OK)
		rc = client_status_open(dir, &statusfd);
	if (rc == PROCTOR_OK)
		rc = client_request(dir, terminate, deadline);
	if (rc == PROCTOR_OK) {
		rc = client_answer(statusfd, dirfd, deadline, stop_fd, answer, sizeof answer, &len);
		statusfd = -1; /* closed there */
	}
	if (statusfd >= 0)
		close(statusfd);
	if (lockfd >= 0)
		close(lockfd);
	if (rc == PROCTOR_OK)
		rc = proctor_parse(answer, len, res);
	/* The final answer is in; stop returns once DIR can be used again. */
	if (rc == PROCTOR_OK && terminate)
		rc = client_await_exit(dirfd, deadline);
	if (dirfd >= 0)
		close(dirfd);
	return rc;
}

static int client_number(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	if (s == end || *s < '0' || *s > '9')
		return -1;
	while (s < end && *s >= '0' && *s <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	if (s == end || *s != '\n')
		return -1;
	*p = s + 1;
	*out = v;
	return 0;
}

int proctor_parse(const char *answer, size_t len, struct proctor_result *res)
{
	const char *p = answer, *end = answer + len, *nl, *colon, *arg;
	size_t slen, hlen, n;
	char word[16];
	int head;

	memset(res, 0, sizeof *res);
	if (client_number(&p, end, &res->cpu_us) < 0 ||
	    client_number(&p, end, &res->memory_bytes) < 0)
		return PROCTOR_EMALFORMED;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || nl + 1 != end || nl == p)
		return PROCTOR_EMALFORMED;
	slen = (size_t)(nl - p);
	if (slen >= sizeof res->status || memchr(p, '\0', slen))
		return PROCTOR_EMALFORMED;
	memcpy(res->status, p, slen);
	colon = strstr(res->status, ": ");
	hlen = colon ? (size_t)(colon - res->status) : slen;
	if (hlen >= sizeof res->head)
		return PROCTOR_EMALFORMED;
	memcpy(res->head, res->status, hlen);
	if (colon)
		snprintf(res->text, sizeof res->text, "%s", colon + 2);

	/* The head's first word, then its argument after one blank. */
	n = strcspn(res->head, " ");
	if (n >= sizeof word)
		return PROCTOR_EMALFORMED;
	memcpy(word, res->head, n);
	word[n] = '\0';
	head = proto_head_parse(word);
	arg = res->head + n + (res->head[n] == ' ');
	if (head < 0 || (res->head[n] != '\0') != (head != HEAD_RUNNING && head != HEAD_INVALID) ||
	    (res->head[n] == ' ' && !*arg))
		return PROCTOR_EMALFORMED;
	res->kind = (enum proctor_kind)head;
	switch (head) {
	case HEAD_EXITED: {
		int code = 0;

		/* Digits only: no sign, no blanks. */
		for (const char *d = arg; *d; d++) {
			if (*d < '0' || *d > '9' || code > 255)
				return PROCTOR_EMALFORMED;
			code = code * 10 + (*d - '0');
		}
		if (code > 255)
			return PROCTOR_EMALFORMED;
		res->exit_code = code;
		break;
	}
	case HEAD_SIGNALED:
		n = strlen(arg);
		if (strncmp(arg, "SIG", 3) != 0 || !arg[3] || n >= sizeof res->signal)
			return PROCTOR_EMALFORMED;
		memcpy(res->signal, arg, n + 1);
		break;
	case HEAD_KILLED:
	case HEAD_FAILED:
		n = strlen(arg);
		if (n >= sizeof res->reason)
			return PROCTOR_EMALFORMED;
		memcpy(res->reason, arg, n + 1);
		break;
	default:
		break;
	}
	if (head == HEAD_KILLED && proto_kill_reason_parse(res->reason) == KILL_SYSCALL) {
		/* The text starts with the call's name. */
		size_t nlen = strspn(res->text, "abcdefghijklmnopqrstuvwxyz0123456789_");

		if (nlen == 0 || nlen >= sizeof res->syscall)
			return PROCTOR_EMALFORMED;
		memcpy(res->syscall, res->text, nlen);
	}
	return PROCTOR_OK;
}

/* proctor_strerror's text for PROCTOR_ESYSTEM, per thread. */
static _Thread_local char client_errbuf[128];

const char *proctor_strerror(int err)
{
	switch (err) {
	case PROCTOR_OK:
		return "success";
	case PROCTOR_ENOSANDBOX:
		return "no sandbox at that path (or it has ended)";
	case PROCTOR_EGONE:
		return "proctord is gone";
	case PROCTOR_ENOEXIT:
		return "proctord answered but did not exit within the timeout";
	case PROCTOR_ETIMEDOUT:
		return "no answer within the timeout";
	case PROCTOR_EMALFORMED:
		return "malformed answer";
	case PROCTOR_ESYSTEM:
		/* The failed call's, not errno now; strerror_r (GNU): strerror
		 * may share its buffer between threads. */
		if (client_errno == 0)
			return "a system call failed";
		return strerror_r(client_errno, client_errbuf, sizeof client_errbuf);
	default:
		return "unknown error";
	}
}

const char *proctor_kind_name(enum proctor_kind kind)
{
	return proto_head_name((enum proto_head)kind);
}
