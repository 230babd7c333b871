// SPDX-License-Identifier: ISC
// Unit test of the status writer's transition table: answer.c's C table and the one in its comment agree.
//
// The comment is what a reader goes by; the C table is what runs. The
// comment's header names the states in the enum's order; each of its rows
// is an event, there once, with the action the C table has in each state.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "answer.h"

static const char *source; /* answer.c, from the command line */

/* The comment's lines from the header (states) to the blank line, the
 * leading " *" taken off. Returns how many, the header first. */
static int table_lines(char lines[][256], int max)
{
	FILE *in = fopen(source, "r");
	char header[256], buf[256];
	int n = 0;

	assert_non_null(in);
	snprintf(header, sizeof header, "%s %s %s", answer_state_name(FIFO_IDLE),
		 answer_state_name(FIFO_RETRY), answer_state_name(FIFO_WAIT_CLOSE));
	while (fgets(buf, sizeof buf, in) && n < max) {
		char squeezed[256];
		size_t k = 0;
		int blank = 1;

		if (strncmp(buf, " *", 2) != 0) {
			if (n)
				break;
			continue;
		}
		/* Runs of blanks as one space, none at the ends. */
		for (const char *p = buf + 2; *p && k + 1 < sizeof squeezed; p++) {
			if (*p == ' ' || *p == '\t' || *p == '\n') {
				blank = 1;
				continue;
			}
			if (blank && k)
				squeezed[k++] = ' ';
			blank = 0;
			squeezed[k++] = *p;
		}
		squeezed[k] = '\0';
		if (!n && strcmp(squeezed, header) != 0)
			continue;
		if (n && !k)
			break;
		snprintf(lines[n++], 256, "%s", squeezed);
	}
	fclose(in);
	return n;
}

/* Every event has one row, and each cell of it is the C table's action. */
static void test_comment_rows_are_the_table(void **state)
{
	char lines[FIFO_N_EVENTS + 4][256];
	int n = table_lines(lines, FIFO_N_EVENTS + 4), seen[FIFO_N_EVENTS] = {0};

	(void)state;
	assert_true(n > 0);
	assert_int_equal(n - 1, FIFO_N_EVENTS);
	for (int i = 1; i < n; i++) {
		char ev[32], cell[FIFO_N_STATES][32];
		int e;

		assert_int_equal(sscanf(lines[i], "%31s %31s %31s %31s", ev, cell[0], cell[1],
					cell[2]),
				 1 + FIFO_N_STATES);
		for (e = 0; e < FIFO_N_EVENTS; e++)
			if (strcmp(ev, answer_event_name(e)) == 0)
				break;
		if (e >= FIFO_N_EVENTS) {
			fail_msg("the comment's row %s is no event", ev);
			continue;
		}
		seen[e]++;
		for (int st = 0; st < FIFO_N_STATES; st++)
			if (strcmp(cell[st], answer_action_name(st, e)) != 0)
				fail_msg("%s in %s: the comment says %s, the table %s", ev,
					 answer_state_name(st), cell[st], answer_action_name(st, e));
	}
	for (int e = 0; e < FIFO_N_EVENTS; e++)
		assert_int_equal(seen[e], 1);
}

/* The rules the issue asked to be one row each: a reader that holds status
 * past the deadline, and one that opened it read-write. */
static void test_stuck_and_read_write_readers_are_rows(void **state)
{
	(void)state;
	assert_string_equal(answer_action_name(FIFO_WAIT_CLOSE, FIFO_EV_DEADLINE), "stuck");
	assert_string_equal(answer_action_name(FIFO_WAIT_CLOSE, FIFO_EV_RW_CLOSE), "done");
	/* Until the opener's word is in, its own close cannot be told from a
	 * read-write reader's. */
	assert_string_equal(answer_action_name(FIFO_RETRY, FIFO_EV_RW_CLOSE), "-");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comment_rows_are_the_table),
		cmocka_unit_test(test_stuck_and_read_write_readers_are_rows),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test-answer answer.c\n");
		return 2;
	}
	source = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
