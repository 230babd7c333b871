// SPDX-License-Identifier: ISC
// Unit tests for status lines and responses.
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "report.h"

/* Wait statuses as the kernel encodes them. */
#define EXITED(code) ((code) << 8)
#define SIGNALED(sig) (sig)

static const char *line_for(int wstatus, enum kill_reason why, const struct limits *l)
{
	static char buf[REPORT_STATUS_MAX];
	struct outcome o;

	report_outcome_from_wait(&o, wstatus, why);
	report_status_line(&o, l, buf, sizeof buf);
	return buf;
}

static void exits_and_signals(void **state)
{
	struct limits l;

	limits_init(&l);
	assert_string_equal(line_for(EXITED(0), KILL_NONE, &l), "exited 0");
	assert_string_equal(line_for(EXITED(3), KILL_NONE, &l), "exited 3");
	assert_string_equal(line_for(SIGNALED(SIGSEGV), KILL_NONE, &l),
			    "signaled SIGSEGV: segmentation fault");
	assert_string_equal(line_for(SIGNALED(SIGABRT), KILL_NONE, &l), "signaled SIGABRT: aborted");
}

static void kernel_limits_are_reported_as_limits(void **state)
{
	struct limits l;

	limits_init(&l);
	l.cpu_time_us = 1000000;
	l.fsize = 10u << 20;
	assert_string_equal(line_for(SIGNALED(SIGXCPU), KILL_NONE, &l),
			    "killed cpu-time: CPU time limit of 1.000s exceeded");
	assert_string_equal(line_for(SIGNALED(SIGXFSZ), KILL_NONE, &l),
			    "killed file-size: file size limit of 10MiB exceeded");
}

static void proctord_kills_name_their_reason(void **state)
{
	struct limits l;

	limits_init(&l);
	l.wall_time_us = 2000000;
	assert_string_equal(line_for(SIGNALED(SIGKILL), KILL_WALL_TIME, &l),
			    "killed wall-time: wall-clock limit of 2.000s exceeded");
	assert_string_equal(line_for(SIGNALED(SIGKILL), KILL_TERMINATE, &l),
			    "killed terminate: forced termination after 50ms grace");
}

static void output_and_syscall_kills(void **state)
{
	struct outcome o;
	struct limits l;
	char buf[REPORT_STATUS_MAX];

	limits_init(&l);
	l.output_limit = 1u << 20;
	assert_string_equal(line_for(SIGNALED(SIGKILL), KILL_OUTPUT, &l),
			    "killed output: output limit of 1MiB exceeded");
	/* The program exited by itself after writing past the limit: the
	 * limit is the verdict, and its exit code is no signal. */
	report_outcome_from_wait(&o, EXITED(3), KILL_OUTPUT);
	assert_int_equal(o.kind, OUTCOME_KILLED);
	assert_int_equal(o.code, 0);
	report_outcome_from_wait(&o, SIGNALED(SIGKILL), KILL_SYSCALL);
	strcpy(o.what, "keyctl");
	report_status_line(&o, &l, buf, sizeof buf);
	assert_string_equal(buf, "killed syscall: keyctl");
}

/* A stream's own limit is named; --truncate-output's cuts follow the text
 * (not after a denied call's name). */
static void output_limits_name_the_stream_and_the_truncation(void **state)
{
	struct outcome o;
	struct limits l;
	char buf[REPORT_STATUS_MAX];

	limits_init(&l);
	l.output_limit = 1u << 20;
	l.stdout_limit = 768u << 10;
	l.stderr_limit = 1024;
	report_outcome_from_wait(&o, SIGNALED(SIGKILL), KILL_OUTPUT);
	o.output_hit = LIMIT_STDERR;
	report_status_line(&o, &l, buf, sizeof buf);
	assert_string_equal(buf, "killed output: stderr limit of 1KiB exceeded");
	report_outcome_from_wait(&o, EXITED(0), KILL_NONE);
	o.truncated = LIMIT_OUTPUT | LIMIT_STDOUT;
	report_status_line(&o, &l, buf, sizeof buf);
	assert_string_equal(buf, "exited 0: output truncated at 1MiB, stdout truncated at 768KiB");
	report_outcome_from_wait(&o, SIGNALED(SIGSEGV), KILL_NONE);
	o.truncated = LIMIT_STDERR;
	report_status_line(&o, &l, buf, sizeof buf);
	assert_string_equal(buf, "signaled SIGSEGV: segmentation fault; stderr truncated at 1KiB");
	report_outcome_from_wait(&o, SIGNALED(SIGKILL), KILL_SYSCALL);
	strcpy(o.what, "keyctl");
	o.truncated = LIMIT_STDOUT;
	report_status_line(&o, &l, buf, sizeof buf);
	assert_string_equal(buf, "killed syscall: keyctl");
}

/* The report's output fields: each stream's count, null for one not
 * counted, and whether anything was discarded. */
static void report_counts_each_stream(void **state)
{
	struct outcome o;
	struct limits l;
	struct report_final f = {.limits = &l, .outcome = &o, .uid = -1, .gid = -1};
	char *text;

	limits_init(&l);
	l.stdout_limit = 10;
	l.truncate_output = 1;
	report_outcome_from_wait(&o, EXITED(0), KILL_NONE);
	f.output_bytes = f.stdout_bytes = 25;
	f.stderr_bytes = UNITS_UNLIMITED;
	f.output_truncated = 1;
	text = report_json_text(&f);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"stdout_bytes\": 25,"));
	assert_non_null(strstr(text, "\"stderr_bytes\": null,"));
	assert_non_null(strstr(text, "\"output_truncated\": true,"));
	assert_non_null(strstr(text, "\"stdout_bytes\": 10,"));
	assert_non_null(strstr(text, "\"truncate_output\": true"));
	free(text);
}

static void failures_name_stage_and_path(void **state)
{
	struct outcome o = {.kind = OUTCOME_FAILED, .stage = STAGE_EXEC, .err = ENOENT};
	struct limits l;
	char buf[REPORT_STATUS_MAX];

	limits_init(&l);
	strcpy(o.what, "./solution");
	report_status_line(&o, &l, buf, sizeof buf);
	assert_string_equal(buf, "failed exec: ./solution: No such file or directory");
	/* A newline in a path must not split the status line. */
	strcpy(o.what, "a\nb");
	report_status_line(&o, &l, buf, sizeof buf);
	assert_null(strchr(buf, '\n'));
}

static void invalid_answers_echo_the_request_safely(void **state)
{
	char buf[REPORT_STATUS_MAX];

	report_invalid_line("hello", 5, "running", buf, sizeof buf);
	assert_string_equal(buf, "invalid: expected \"0\" or \"1\", got \"hello\"; program running");
	report_invalid_line("a\"\x01", 3, "exited 0", buf, sizeof buf);
	assert_string_equal(buf,
			    "invalid: expected \"0\" or \"1\", got \"a\\x22\\x01\"; program exited 0");
	report_invalid_line("x\0y", 3, "running", buf, sizeof buf);
	assert_string_equal(buf, "invalid: expected \"0\" or \"1\", got \"x\\x00y\"; program running");
}

static void response_is_three_lines(void **state)
{
	char buf[REPORT_RESPONSE_MAX];
	size_t n = report_response(15230, 2801664, "running", buf, sizeof buf);

	assert_string_equal(buf, "15230\n2801664\nrunning\n");
	assert_int_equal(n, strlen(buf));
}

static void overlong_response_still_ends_in_newline(void **state)
{
	char buf[32], status[64];
	size_t n;

	memset(status, 'x', sizeof status - 1);
	status[sizeof status - 1] = '\0';
	n = report_response(1, 2, status, buf, sizeof buf);
	assert_int_equal(n, sizeof buf - 1);
	assert_int_equal(buf[n - 1], '\n');
}

/* The JSON report of a run that exited 0 under l, with what set. */
static char *json_for(const struct limits *l, const char *user)
{
	struct outcome o;
	struct report_final f = {.limits = l, .outcome = &o, .uid = -1, .gid = -1};

	report_outcome_from_wait(&o, EXITED(0), KILL_NONE);
	f.user = user;
	f.cpu_us = UINT64_C(9223372036854775807);
	f.wall_us = UINT64_C(9223372036854775808);
	f.output_bytes = UNITS_UNLIMITED;
	f.stdout_bytes = f.stderr_bytes = UNITS_UNLIMITED;
	f.output_truncated = -1;
	return report_json_text(&f);
}

static void report_prints_unsigned_64_bit_figures_exactly(void **state)
{
	struct limits l;
	char *text;

	limits_init(&l);
	l.fsize = UINT64_C(16777215) << 40; /* --fsize 16777215T */
	l.address_space = UINT64_MAX - 1;
	l.nofile = 64;
	text = json_for(&l, "\"\\u0000u64:12\"");
	assert_non_null(text);
	assert_non_null(strstr(text, "\"fsize_bytes\": 18446742974197923840,"));
	assert_non_null(strstr(text, "\"address_space_bytes\": 18446744073709551614,"));
	assert_non_null(strstr(text, "\"nofile\": 64,"));
	assert_non_null(strstr(text, "\"stack_bytes\": null,"));
	assert_non_null(strstr(text, "\"cpuset\": null,"));
	assert_non_null(strstr(text, "\"cpu_us\": 9223372036854775807,"));
	assert_non_null(strstr(text, "\"wall_us\": 9223372036854775808\n"));
	assert_null(strstr(text, "-1099511627776"));
	/* A string that looks like the marker is left as the string it is. */
	assert_non_null(strstr(text, "\"user\": \"\\\"\\\\u0000u64:12\\\"\""));
	assert_int_equal(text[strlen(text) - 1], '\n');
	free(text);
}

/* --cpuset is in the report's limits as the CPU list it pinned the tree to. */
static void report_names_the_cpuset(void **state)
{
	struct limits l;
	char *text;

	(void)state;
	limits_init(&l);
	assert_null(units_parse_cpuset("3,0-1", &l.cpuset));
	text = json_for(&l, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"cpuset\": \"0-1,3\","));
	free(text);
}

/* The report is a document of proto/report.schema.json: its version and
 * type, and the status object that every JSON of proctor's has (text and
 * limit null when there are none). */
static void report_is_a_versioned_document(void **state)
{
	struct limits l;
	char *text;

	(void)state;
	limits_init(&l);
	text = json_for(&l, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "\n  \"version\": 2,\n"));
	assert_non_null(strstr(text, "\n  \"type\": \"report\",\n"));
	assert_non_null(strstr(text, "\"text\": null"));
	assert_non_null(strstr(text, "\"limit\": null"));
	free(text);
}

/* JSON is UTF-8: a user name that is not keeps the report, escaped. */
static void report_escapes_what_is_not_utf8(void **state)
{
	struct limits l;
	char *text;

	(void)state;
	limits_init(&l);
	text = json_for(&l, "caf\xc3\xa9\xff");
	assert_non_null(text);
	assert_non_null(strstr(text, "\"user\": \"caf\xc3\xa9\\\\xff\""));
	free(text);
}

/* status.limit names the limit a kill was for, and no other kill. */
static void report_names_the_limit_hit(void **state)
{
	struct report_final f = {.uid = -1, .gid = -1, .output_bytes = UNITS_UNLIMITED};
	struct outcome o;
	struct limits l;
	char *text;

	(void)state;
	limits_init(&l);
	l.cpu_time_us = 1000000;
	f.limits = &l;
	f.outcome = &o;
	report_outcome_from_wait(&o, SIGNALED(SIGKILL), KILL_CPU_TIME);
	text = report_json_text(&f);
	assert_non_null(strstr(text, "\"limit\": \"cpu-time\""));
	free(text);
	report_outcome_from_wait(&o, SIGNALED(SIGKILL), KILL_TERMINATE);
	text = report_json_text(&f);
	assert_non_null(strstr(text, "\"limit\": null"));
	assert_non_null(strstr(text, "\"reason\": \"terminate\""));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exits_and_signals),
		cmocka_unit_test(kernel_limits_are_reported_as_limits),
		cmocka_unit_test(report_names_the_cpuset),
		cmocka_unit_test(proctord_kills_name_their_reason),
		cmocka_unit_test(output_and_syscall_kills),
		cmocka_unit_test(output_limits_name_the_stream_and_the_truncation),
		cmocka_unit_test(report_counts_each_stream),
		cmocka_unit_test(failures_name_stage_and_path),
		cmocka_unit_test(invalid_answers_echo_the_request_safely),
		cmocka_unit_test(response_is_three_lines),
		cmocka_unit_test(overlong_response_still_ends_in_newline),
		cmocka_unit_test(report_prints_unsigned_64_bit_figures_exactly),
		cmocka_unit_test(report_is_a_versioned_document),
		cmocka_unit_test(report_names_the_limit_hit),
		cmocka_unit_test(report_escapes_what_is_not_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
