// SPDX-License-Identifier: ISC
// Unit tests for libproctor's answer parser (every head, and malformed answers rejected) and its error texts.
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "proctor.h"

static int parse(const char *s, struct proctor_result *r)
{
	return proctor_parse(s, strlen(s), r);
}

static void every_head_parses(void **state)
{
	struct proctor_result r;

	assert_int_equal(parse("15230\n2801664\nrunning\n", &r), PROCTOR_OK);
	assert_int_equal(r.kind, PROCTOR_RUNNING);
	assert_int_equal(r.cpu_us, 15230);
	assert_int_equal(r.memory_bytes, 2801664);
	assert_int_equal(parse("1\n0\nexited 3\n", &r), PROCTOR_OK);
	assert_int_equal(r.kind, PROCTOR_EXITED);
	assert_int_equal(r.exit_code, 3);
	assert_int_equal(parse("1\n0\nsignaled SIGSEGV: segmentation fault\n", &r), PROCTOR_OK);
	assert_string_equal(r.signal, "SIGSEGV");
	assert_string_equal(r.text, "segmentation fault");
	assert_int_equal(parse("1\n0\nkilled cpu-time: CPU time limit of 1.000s exceeded\n", &r),
			 PROCTOR_OK);
	assert_int_equal(r.kind, PROCTOR_KILLED);
	assert_string_equal(r.reason, "cpu-time");
	assert_string_equal(r.head, "killed cpu-time");
	assert_int_equal(parse("0\n0\nfailed exec: ./a: No such file or directory\n", &r),
			 PROCTOR_OK);
	assert_string_equal(r.reason, "exec");
	assert_string_equal(r.text, "./a: No such file or directory");
	assert_int_equal(parse("5\n6\ninvalid: expected \"0\" or \"1\", got \"x\"; program running\n", &r),
			 PROCTOR_OK);
	assert_int_equal(r.kind, PROCTOR_INVALID);
}

static void killed_output_and_syscall_parse(void **state)
{
	struct proctor_result r;

	assert_int_equal(parse("9\n0\nkilled output: output limit of 1MiB exceeded\n", &r),
			 PROCTOR_OK);
	assert_int_equal(r.kind, PROCTOR_KILLED);
	assert_string_equal(r.reason, "output");
	assert_string_equal(r.syscall, "");
	assert_int_equal(parse("9\n0\nkilled syscall: io_uring_setup\n", &r), PROCTOR_OK);
	assert_string_equal(r.reason, "syscall");
	assert_string_equal(r.syscall, "io_uring_setup");
	/* Words after the name are for people. */
	assert_int_equal(parse("9\n0\nkilled syscall: keyctl (denied)\n", &r), PROCTOR_OK);
	assert_string_equal(r.syscall, "keyctl");
	/* The name is the contract: without it the answer is malformed. */
	assert_int_equal(parse("9\n0\nkilled syscall\n", &r), PROCTOR_EMALFORMED);
	assert_int_equal(parse("9\n0\nkilled syscall: (none)\n", &r), PROCTOR_EMALFORMED);
}

static void malformed_answers_are_refused(void **state)
{
	const char *bad[] = {
		"", "\n", "1\n2\n", "1\n2\nrunning", "x\n2\nrunning\n", "1\n-2\nrunning\n",
		"1\n2\nrunning\nextra\n", "1\n2\nexited +5\n", "1\n2\nexited  5\n",
		"1\n2\nexited 256\n", "1\n2\nexited -0\n", "1\n2\nsignaled SIG\n",
		"1\n2\nsignaled 11\n", "1\n2\nkilled\n", "1\n2\nflying\n",
		"99999999999999999999999\n2\nrunning\n", " 1\n2\nrunning\n", NULL,
	};
	struct proctor_result r;

	for (int i = 0; bad[i]; i++)
		if (parse(bad[i], &r) != PROCTOR_EMALFORMED)
			fail_msg("accepted malformed answer %d: \"%s\"", i, bad[i]);
}

static void errors_have_texts(void **state)
{
	assert_non_null(strstr(proctor_strerror(PROCTOR_ENOSANDBOX), "no sandbox"));
	assert_non_null(strstr(proctor_strerror(PROCTOR_EGONE), "gone"));
	assert_non_null(strstr(proctor_strerror(PROCTOR_ETIMEDOUT), "timeout"));
	assert_non_null(strstr(proctor_strerror(PROCTOR_EMALFORMED), "malformed"));
	assert_non_null(strstr(proctor_strerror(PROCTOR_ENOEXIT), "did not exit"));
}

/* A wait on a sandbox directory (a lock file in a temporary directory) with
 * no descriptor left to open: PROCTOR_ESYSTEM, for EMFILE. */
static int wait_without_descriptors(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], lock[4200];
	struct rlimit old, low;
	struct proctor_result r;
	int fds[64], n = 0, rc, fd;

	snprintf(dir, sizeof dir, "%s/proctor-test-client.XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(lock, sizeof lock, "%s/lock", dir);
	fd = open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 64;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (n < 64 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		fds[n++] = fd;
	rc = proctor_wait(dir, 0, 100, &r);
	while (n > 0)
		close(fds[--n]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	unlink(lock);
	rmdir(dir);
	return rc;
}

static void system_error_is_the_calls_not_errno_now(void **state)
{
	struct proctor_result r;
	char want[128];

	snprintf(want, sizeof want, "%s", strerror(EMFILE));
	assert_int_equal(wait_without_descriptors(), PROCTOR_ESYSTEM);
	/* What the caller did since changed errno: the text does not. */
	errno = ENOENT;
	assert_string_equal(proctor_strerror(PROCTOR_ESYSTEM), want);
	errno = 0;
	assert_string_equal(proctor_strerror(PROCTOR_ESYSTEM), want);
	/* A later call that fails otherwise leaves no system error to tell. */
	assert_int_equal(proctor_wait("/nonexistent/proctor-test", 0, 100, &r), PROCTOR_ENOSANDBOX);
	errno = EMFILE;
	assert_null(strstr(proctor_strerror(PROCTOR_ESYSTEM), want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_head_parses),
		cmocka_unit_test(killed_output_and_syscall_parse),
		cmocka_unit_test(malformed_answers_are_refused),
		cmocka_unit_test(errors_have_texts),
		cmocka_unit_test(system_error_is_the_calls_not_errno_now),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
