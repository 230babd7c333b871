// SPDX-License-Identifier: ISC
// Unit tests for proctor-isolate's meta file (isolate's keys, order and formats per outcome), its
// report reading and its redirect mapping.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "isometa.h"
#include "isoopt.h"
#include "isoparse.h"
#include "isorun.h"

/* isolate's final_stats after time and time-wall, from the outcomes below. */
#define RUSAGE_KEYS "max-rss:2000\ncsw-voluntary:7\ncsw-forced:3\n"

/* The meta file of an outcome, under the options of a line. */
static int meta_of(const struct iso_outcome *r, char *meta, char *line)
{
	return iso_meta(r, &opts, meta, 1024, line, 256);
}

static void meta_files_are_isolates_for_each_outcome(void **state)
{
	struct iso_outcome r = {
	    .head = HEAD_EXITED, .cpu_us = 1204999, .wall_us = 1215000, .peak_bytes = 540LL * 1024,
	    .max_rss_bytes = 2000LL * 1024 + 1023, .csw_voluntary = 7, .csw_forced = 3};
	char meta[1024], line[256];

	(void)state;
	parse_ok(PARSE("--cg", "-t", "1", "-x", "2", "-w", "3", "--run", "--", "x"));
	/* ended by itself after -t, before -x: TO, no exitcode, no killed */
	assert_int_equal(meta_of(&r, meta, line), 1);
	assert_string_equal(meta, "time:1.204\ntime-wall:1.215\n" RUSAGE_KEYS "cg-mem:540\nstatus:TO\n"
				  "message:Time limit exceeded\n");
	assert_string_equal(line, "Time limit exceeded\n");
	r.cpu_us = 4000;
	assert_int_equal(meta_of(&r, meta, line), 0);
	assert_string_equal(meta, "time:0.004\ntime-wall:1.215\n" RUSAGE_KEYS "cg-mem:540\nexitcode:0\n");
	assert_string_equal(line, "OK (0.004 sec real, 1.215 sec wall)\n");
	r.head = HEAD_KILLED;
	r.reason = KILL_WALL_TIME;
	r.wall_us = 3001000;
	assert_int_equal(meta_of(&r, meta, line), 1);
	assert_string_equal(meta, "status:TO\nmessage:Time limit exceeded (wall clock)\nkilled:1\n"
				  "time:0.004\ntime-wall:3.001\n" RUSAGE_KEYS "cg-mem:540\n");
	r.head = HEAD_SIGNALED;
	r.signo = 9;
	r.oom_kills = 1;
	r.wall_us = 5000;
	assert_int_equal(meta_of(&r, meta, line), 1);
	assert_string_equal(meta, "time:0.004\ntime-wall:0.005\n" RUSAGE_KEYS
				  "cg-mem:540\ncg-oom-killed:1\nexitsig:9\nstatus:SG\n"
				  "message:Caught fatal signal 9\n");
	r.head = HEAD_FAILED;
	r.stage = STAGE_STDIN;
	snprintf(r.text, sizeof r.text, "/x: Permission denied");
	assert_int_equal(meta_of(&r, meta, line), 2);
	assert_string_equal(meta, "status:XX\nmessage:/x: Permission denied\n");
	/* a signal to proctor-isolate itself */
	r.head = HEAD_KILLED;
	r.reason = KILL_TERMINATE;
	r.interrupt = 15;
	r.oom_kills = 0;
	assert_int_equal(meta_of(&r, meta, line), 1);
	assert_string_equal(meta, "exitsig:15\nstatus:SG\nmessage:Interrupted\nkilled:1\n"
				  "time:0.004\ntime-wall:0.005\n" RUSAGE_KEYS "cg-mem:540\n");
	assert_string_equal(line, "Interrupted\n");
	r.interrupt = 0;
	/* -s silences the line but for XX; without --cg, no cg-mem */
	parse_ok(PARSE("-s", "--run", "--", "x"));
	r.head = HEAD_EXITED;
	r.exit_code = 3;
	r.oom_kills = 0;
	assert_int_equal(meta_of(&r, meta, line), 1);
	assert_string_equal(meta, "time:0.004\ntime-wall:0.005\n" RUSAGE_KEYS "exitcode:3\nstatus:RE\n"
				  "message:Exited with error status 3\n");
	assert_string_equal(line, "");
}

static void exec_failure_is_re_127_in_2x_and_xx_in_1x(void **state)
{
	struct iso_outcome r = {
	    .head = HEAD_FAILED, .stage = STAGE_EXEC, .cpu_us = 1000, .wall_us = 2000,
	    .max_rss_bytes = 2000LL * 1024, .csw_voluntary = 7, .csw_forced = 3};
	char meta[1024], line[256];

	(void)state;
	snprintf(r.text, sizeof r.text, "./a.out: No such file or directory");
	parse_ok(PARSE("-s", "--run", "--", "./a.out"));
	assert_int_equal(meta_of(&r, meta, line), 1);
	assert_string_equal(meta, "time:0.001\ntime-wall:0.002\n" RUSAGE_KEYS "exitcode:127\nstatus:RE\n"
				  "message:Exited with error status 127\n");
	parse_ok(PARSE("--cg-timing", "-s", "--run", "--", "./a.out"));
	assert_int_equal(meta_of(&r, meta, line), 2);
	assert_string_equal(meta, "status:XX\n"
				  "message:execve(\"./a.out\"): No such file or directory\n");
	assert_string_equal(line, "execve(\"./a.out\"): No such file or directory\n");
}

static void report_is_read_with_its_signal_number(void **state)
{
	static const char json[] =
	    "{\"version\":2,\"type\":\"report\",\"cpu_us\":2500,\"wall_us\":9000,"
	    "\"peak_memory_bytes\":1048576,\"max_rss_bytes\":2097152,\"csw_voluntary\":4,"
	    "\"csw_forced\":5,\"oom_kills\":0,\"status\":{\"kind\":\"signaled\","
	    "\"signal\":\"SIGSEGV\",\"exit_code\":null,\"reason\":null,\"stage\":null}}";
	struct iso_outcome r;

	(void)state;
	assert_int_equal(iso_outcome_read(json, strlen(json), &r), 0);
	assert_int_equal(r.head, HEAD_SIGNALED);
	assert_int_equal(r.signo, 11);
	assert_int_equal(r.cpu_us, 2500);
	assert_int_equal(r.peak_bytes, 1048576);
	assert_int_equal(r.max_rss_bytes, 2097152);
	assert_int_equal(r.csw_voluntary, 4);
	assert_int_equal(r.csw_forced, 5);
	assert_int_equal(iso_outcome_read("{\"status\":{\"kind\":\"running\"}}", 30, &r), -1);
	assert_int_equal(iso_outcome_read("not json", 8, &r), -1);
}

static void redirects_map_through_box_and_rules(void **state)
{
	char out[4200], err[256];

	(void)state;
	parse_ok(PARSE("-c", "/tmp", "-d", "/tmp=/cms/home:rw", "-d", "/tmp/sub=/other", "--run",
		       "--", "x"));
	assert_int_equal(
	    iso_map_path(&opts, "/r/7/box", "/tmp/in.txt", out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, "/cms/home/in.txt");
	assert_int_equal(
	    iso_map_path(&opts, "/r/7/box", "out.txt", out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, "/cms/home/out.txt");
	assert_int_equal(iso_map_path(&opts, "/r/7/box", "sub/a", out, sizeof out, err, sizeof err),
			 0);
	assert_string_equal(out, "/other/a");
	assert_int_equal(
	    iso_map_path(&opts, "/r/7/box", "/box/./a", out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, "/r/7/box/a");
	assert_int_equal(
	    iso_map_path(&opts, "/r/7/box", "/dev/null", out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, "/dev/null");
	assert_int_equal(
	    iso_map_path(&opts, "/r/7/box", "../etc/passwd", out, sizeof out, err, sizeof err), -1);
	assert_int_equal(
	    iso_map_path(&opts, "/r/7/box", "/etc/passwd", out, sizeof out, err, sizeof err), -1);
	parse_ok(PARSE("-c", "x", "--run", "--", "x"));
	assert_int_equal(iso_map_path(&opts, "/r/7/box", "f", out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, "/r/7/box/x/f");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(meta_files_are_isolates_for_each_outcome),
	    cmocka_unit_test(exec_failure_is_re_127_in_2x_and_xx_in_1x),
	    cmocka_unit_test(report_is_read_with_its_signal_number),
	    cmocka_unit_test(redirects_map_through_box_and_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
