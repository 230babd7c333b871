// SPDX-License-Identifier: ISC
// Unit test of the supervisor's transition table: the C table and the one in supervise.c's comment
// agree.
//
// The comment is what a reader goes by; the C table is what runs. Each cell
// of the comment (event by state) must name the action the C table has
// there, and every state and event must be in it, once.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "supervise.h"

static const char *source; /* supervise.c, from the command line */

/* The comment's table: its header (the states) and one row per event. */
struct grid {
	char states[SV_N_STATES][32];
	int nstates;
	char rows[SV_N_EVENTS + 4][SV_N_STATES + 2][32];
	int ncells[SV_N_EVENTS + 4];
	int nrows;
};

/* Split line into at most max words; returns how many. */
static int words(char *line, char out[][32], int max)
{
	char *save = NULL;
	int n = 0;

	for (char *w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (n == max)
			return max + 1;
		snprintf(out[n++], 32, "%s", w);
	}
	return n;
}

/* Find the header (" *" then every state's name) and read the rows that
 * follow, up to the blank comment line. */
static void grid_read(struct grid *g)
{
	char line[512];
	FILE *f = fopen(source, "r");
	int in = 0;

	assert_non_null(f);
	memset(g, 0, sizeof *g);
	while (fgets(line, sizeof line, f)) {
		char copy[512];

		if (strncmp(line, " *", 2) != 0) {
			in = 0;
			continue;
		}
		snprintf(copy, sizeof copy, "%s", line + 2);
		if (!in) {
			char w[SV_N_STATES + 2][32];
			int n = words(copy, w, SV_N_STATES + 1);

			if (n == SV_N_STATES &&
			    strcmp(w[0], supervise_state_name(SV_RUNNING)) == 0 &&
			    strcmp(w[n - 1], supervise_state_name(SV_DONE)) == 0) {
				for (int i = 0; i < n; i++)
					memcpy(g->states[i], w[i], sizeof g->states[i]);
				g->nstates = n;
				in = 1;
			}
			continue;
		}
		if (g->nrows == SV_N_EVENTS + 4)
			fail_msg("more rows in the comment's table than events");
		g->ncells[g->nrows] = words(copy, g->rows[g->nrows], SV_N_STATES + 1);
		if (g->ncells[g->nrows] == 0)
			break; /* the table ends at the blank line */
		g->nrows++;
	}
	fclose(f);
	if (g->nstates == 0)
		fail_msg("no table (RUNNING ... DONE) in a comment of %s", source);
}

/* The comment's columns are the states, in the enum's order. */
static void test_comment_columns_are_the_states(void **state)
{
	struct grid g;

	(void)state;
	grid_read(&g);
	assert_int_equal(g.nstates, SV_N_STATES);
	for (int st = 0; st < SV_N_STATES; st++)
		assert_string_equal(g.states[st], supervise_state_name(st));
}

/* One row per event, each once, each with a cell for every state. */
static void test_comment_rows_are_the_events(void **state)
{
	struct grid g;
	int seen[SV_N_EVENTS] = {0};

	(void)state;
	grid_read(&g);
	assert_int_equal(g.nrows, SV_N_EVENTS);
	for (int r = 0; r < g.nrows; r++) {
		int found = 0;

		assert_int_equal(g.ncells[r], 1 + SV_N_STATES);
		for (int ev = 0; ev < SV_N_EVENTS; ev++)
			if (strcmp(g.rows[r][0], supervise_event_name(ev)) == 0) {
				seen[ev]++;
				found = 1;
			}
		if (!found)
			fail_msg("the comment's row %s is no event", g.rows[r][0]);
	}
	for (int ev = 0; ev < SV_N_EVENTS; ev++)
		if (seen[ev] != 1)
			fail_msg("event %s is in the comment %d times", supervise_event_name(ev),
				 seen[ev]);
}

/* Every cell: the documented action is the one the C table runs. */
static void test_each_cell_is_the_documented_action(void **state)
{
	struct grid g;
	int wrong = 0;

	(void)state;
	grid_read(&g);
	for (int r = 0; r < g.nrows; r++) {
		for (int ev = 0; ev < SV_N_EVENTS; ev++) {
			if (strcmp(g.rows[r][0], supervise_event_name(ev)) != 0)
				continue;
			for (int st = 0; st < SV_N_STATES; st++) {
				const char *doc = g.rows[r][1 + st];
				const char *real = supervise_action_name(st, ev);

				if (strcmp(doc, real) != 0) {
					print_error("%s in %s: the comment says %s, the table %s\n",
						    supervise_event_name(ev),
						    supervise_state_name(st), doc, real);
					wrong++;
				}
			}
		}
	}
	assert_int_equal(wrong, 0);
}

/* DONE: the loop is stopping; what still comes only records. */
static void test_done_never_kills_nor_answers(void **state)
{
	static const char *const allowed[] = {"-", "reap", "exec", "count", "sig-mark"};

	(void)state;
	for (int ev = 0; ev < SV_N_EVENTS; ev++) {
		const char *a = supervise_action_name(SV_DONE, ev);
		int ok = 0;

		for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
			ok |= strcmp(a, allowed[i]) == 0;
		if (!ok)
			fail_msg("DONE runs %s on %s", a, supervise_event_name(ev));
	}
}

/* Answering reads: the FIFO's events write the report or stop the loop only
 * once the sandbox has ended. */
static void test_final_answer_only_after_the_end(void **state)
{
	(void)state;
	for (int st = 0; st < SV_N_STATES; st++) {
		assert_string_equal(supervise_action_name(st, SV_EV_FINAL),
				    st == SV_ENDED ? "report" : "-");
		assert_string_equal(supervise_action_name(st, SV_EV_DELIVERED),
				    st == SV_REPORTED ? "stop" : "-");
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_comment_columns_are_the_states),
	    cmocka_unit_test(test_comment_rows_are_the_events),
	    cmocka_unit_test(test_each_cell_is_the_documented_action),
	    cmocka_unit_test(test_done_never_kills_nor_answers),
	    cmocka_unit_test(test_final_answer_only_after_the_end),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s SUPERVISE.C\n", argv[0]);
		return 2;
	}
	source = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
