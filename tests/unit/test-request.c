// SPDX-License-Identifier: ISC
// Unit tests for the wait FIFO request parser.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "request.h"

struct seen {
	char kinds[64]; /* '1', '0' or '?' per request */
	char garbage[8][REQUEST_GARBAGE_MAX + 1];
	size_t glen[8];
	int n, ng;
};

static void collect(void *ctx, enum request_kind kind, const char *garbage, size_t len)
{
	struct seen *s = ctx;
	char mark = '?';

	if (kind == REQUEST_CONTINUE)
		mark = '1';
	else if (kind == REQUEST_TERMINATE)
		mark = '0';
	s->kinds[s->n++] = mark;
	if (kind == REQUEST_INVALID && s->ng < 8) {
		memcpy(s->garbage[s->ng], garbage, len);
		s->garbage[s->ng][len] = '\0';
		s->glen[s->ng++] = len;
	}
}

/* Feed each string as one read(), then flush, as the FIFO reader does. */
static const char *parse(struct seen *s, const char *const *reads)
{
	struct request_parser p;

	memset(s, 0, sizeof *s);
	request_parser_init(&p);
	for (int i = 0; reads[i]; i++) {
		request_parse(&p, reads[i], strlen(reads[i]), collect, s);
		request_flush(&p, collect, s);
	}
	return s->kinds;
}

#define PARSE(s, ...) parse(s, (const char *const[]){__VA_ARGS__, NULL})

static void single_requests_with_and_without_newline(void **state)
{
	struct seen s;

	assert_string_equal(PARSE(&s, "1\n"), "1");
	assert_string_equal(PARSE(&s, "1"), "1");
	assert_string_equal(PARSE(&s, "0\n"), "0");
	assert_string_equal(PARSE(&s, "1\r\n"), "1");
	assert_string_equal(PARSE(&s, " 1 \n"), "1");
}

static void several_requests_in_one_read(void **state)
{
	struct seen s;

	assert_string_equal(PARSE(&s, "1\n1\n1\n"), "111");
	assert_string_equal(PARSE(&s, "11"), "11");
	assert_string_equal(PARSE(&s, "1\n0\n"), "10");
}

static void requests_split_across_reads(void **state)
{
	struct seen s;

	assert_string_equal(PARSE(&s, "1", "\n", "1", "\n"), "11");
	assert_string_equal(PARSE(&s, "1\n1", "\n0"), "110");
}

static void garbage_is_one_invalid_request_per_line(void **state)
{
	struct seen s;

	assert_string_equal(PARSE(&s, "hello\n"), "?");
	assert_string_equal(s.garbage[0], "hello");
	assert_string_equal(PARSE(&s, "hello\n1\n"), "?1");
	assert_string_equal(PARSE(&s, "2\n3\n"), "??");
	assert_string_equal(PARSE(&s, "1x\n"), "1?");
	assert_string_equal(s.garbage[0], "x");
	/* A digit inside a garbage run is part of it. */
	assert_string_equal(PARSE(&s, "x1\n"), "?");
	assert_string_equal(s.garbage[0], "x1");
}

static void unterminated_garbage_is_answered_at_end_of_read(void **state)
{
	struct seen s;

	assert_string_equal(PARSE(&s, "abc"), "?");
	assert_string_equal(s.garbage[0], "abc");
	assert_string_equal(PARSE(&s, "abc", "1\n"), "?1");
}

static void empty_line_is_invalid(void **state)
{
	struct seen s;

	assert_string_equal(PARSE(&s, "\n"), "?");
	assert_string_equal(s.garbage[0], "");
	assert_string_equal(PARSE(&s, "1\n\n"), "1?");
}

static void long_garbage_is_kept_short(void **state)
{
	struct seen s;
	char big[5000];

	memset(big, 'z', sizeof big - 2);
	big[sizeof big - 2] = '\n';
	big[sizeof big - 1] = '\0';
	assert_string_equal(PARSE(&s, big), "?");
	assert_int_equal(strlen(s.garbage[0]), REQUEST_GARBAGE_MAX);
}

static void nul_bytes_are_garbage(void **state)
{
	struct request_parser p;
	struct seen s;

	memset(&s, 0, sizeof s);
	request_parser_init(&p);
	request_parse(&p, "a\0b\n1\n", 6, collect, &s);
	request_flush(&p, collect, &s);
	assert_string_equal(s.kinds, "?1");
	/* The NUL is part of the request, not its end. */
	assert_int_equal(s.glen[0], 3);
	assert_memory_equal(s.garbage[0], "a\0b", 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(single_requests_with_and_without_newline),
		cmocka_unit_test(several_requests_in_one_read),
		cmocka_unit_test(requests_split_across_reads),
		cmocka_unit_test(garbage_is_one_invalid_request_per_line),
		cmocka_unit_test(unterminated_garbage_is_answered_at_end_of_read),
		cmocka_unit_test(empty_line_is_invalid),
		cmocka_unit_test(long_garbage_is_kept_short),
		cmocka_unit_test(nul_bytes_are_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
