// SPDX-License-Identifier: ISC
// Unit tests for proctor-isolate's parser: each judge's isolate command line, glued and separate
// options.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "isoopt.h"
#include "isoparse.h"

static void cms_evaluation_line_parses(void **state)
{
	(void)state;
	parse_ok(PARSE("--cg", "--box-id=0", "--chdir=/tmp", "--dir=/tmp=/var/cms/home:rw",
		       "--dir=/dev/shm:tmp", "--dir=/etc/alternatives=/etc/alternatives",
		       "--env=HOME=/tmp", "--fsize=1048576", "--stdin=/tmp/input.txt",
		       "--cg-mem=131072", "--stdout=/tmp/output.txt", "--processes=1",
		       "--stderr=/tmp/stderr.txt", "--time=0.5", "--wall-time=2",
		       "--meta=/var/cms/run.meta.0", "--run", "--", "./batchstdio"));
	assert_int_equal(opts.cmd, ISO_RUN);
	assert_true(opts.cg);
	assert_int_equal(opts.box_id, 0);
	assert_string_equal(opts.chdir, "/tmp");
	assert_int_equal(opts.ndirs, 3);
	assert_string_equal(opts.dirs[0].in, "/tmp");
	assert_string_equal(opts.dirs[0].out, "/var/cms/home");
	assert_int_equal(opts.dirs[0].flags, ISO_DIR_RW);
	assert_string_equal(opts.dirs[1].in, "/dev/shm");
	assert_int_equal(opts.dirs[1].flags, ISO_DIR_TMP);
	assert_string_equal(opts.dirs[2].out, "/etc/alternatives");
	assert_int_equal(opts.dirs[2].flags, 0);
	assert_int_equal(opts.nenv, 1);
	assert_int_equal(opts.env[0].op, ISO_ENV_SET);
	assert_int_equal(opts.fsize, 1048576);
	assert_int_equal(opts.cg_mem, 131072);
	assert_int_equal(opts.processes, 1);
	assert_int_equal(opts.time_ms, 500);
	assert_int_equal(opts.wall_ms, 2000);
	assert_int_equal(opts.extra_ms, 0);
	assert_string_equal(opts.in, "/tmp/input.txt");
	assert_string_equal(opts.out, "/tmp/output.txt");
	assert_string_equal(opts.err, "/tmp/stderr.txt");
	assert_string_equal(opts.meta, "/var/cms/run.meta.0");
	assert_int_equal(opts.argc, 1);
	assert_string_equal(opts.argv[0], "./batchstdio");
}

static void cms_compilation_line_keeps_the_compilers_options(void **state)
{
	(void)state;
	parse_ok(PARSE("--cg", "--box-id=0", "--chdir=/tmp", "--dir=/etc=/etc", "--full-env",
		       "--env=HOME=/tmp", "--cg-mem=524288", "--processes=1000", "--time=10",
		       "--wall-time=21", "--meta=/o/run.meta.0", "--run", "--", "/usr/bin/gcc",
		       "-DEVAL", "-std=gnu11", "-O2", "-s", "-o", "batch", "batch.c", "-lm"));
	assert_true(opts.full_env);
	assert_int_equal(opts.processes, 1000);
	assert_int_equal(opts.argc, 9);
	assert_string_equal(opts.argv[1], "-DEVAL");
	assert_string_equal(opts.argv[8], "-lm");
	/* CMS 1.5.1: --box-id first, --cleanup and --init. */
	parse_ok(PARSE("--box-id=12", "--cg", "--cleanup"));
	assert_int_equal(opts.cmd, ISO_CLEANUP);
	assert_int_equal(opts.box_id, 12);
	parse_ok(PARSE("--box-id=0", "--cg", "--init"));
	assert_int_equal(opts.cmd, ISO_INIT);
}

static void judge0_run_line_parses_separate_and_glued_short_options(void **state)
{
	(void)state;
	parse_ok(PARSE("--cg", "-s", "-b", "2147483646", "-M", "/w/metadata.txt",
		       "--stderr-to-stdout", "-i", "/dev/null", "-t", "15.0", "-x", "0", "-w",
		       "20.0", "-k", "128000", "-p120", "--cg-timing", "--cg-mem=512000", "-f",
		       "4096", "-E", "HOME=/tmp", "-E",
		       "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "-E",
		       "LANG", "-d", "/etc:noexec", "--run", "--", "/bin/bash", "compile.sh"));
	assert_true(opts.silent);
	assert_int_equal(opts.box_id, 2147483646);
	assert_string_equal(opts.meta, "/w/metadata.txt");
	assert_true(opts.stderr_to_stdout);
	assert_string_equal(opts.in, "/dev/null");
	assert_int_equal(opts.time_ms, 15000);
	assert_int_equal(opts.extra_ms, 0);
	assert_int_equal(opts.wall_ms, 20000);
	assert_int_equal(opts.stack, 128000);
	assert_int_equal(opts.processes, 120);
	assert_int_equal(opts.cg_mem, 512000);
	assert_int_equal(opts.fsize, 4096);
	assert_int_equal(opts.nenv, 3);
	assert_int_equal(opts.env[2].op, ISO_ENV_INHERIT);
	assert_string_equal(opts.dirs[0].in, "/etc");
	assert_string_equal(opts.dirs[0].out, "/etc");
	assert_int_equal(opts.dirs[0].flags, ISO_DIR_NOEXEC);
	assert_int_equal(opts.argc, 2);
}

static void judge0_per_process_variant_takes_mem_and_share_net(void **state)
{
	(void)state;
	parse_ok(PARSE("-s", "-b", "5", "-M", "/w/m", "--share-net", "-t", "5.0", "-x", "1.0", "-w",
		       "10.0", "-k", "64000", "-p60", "-m", "128000", "-f", "1024", "--run", "--",
		       "/bin/bash", "run.sh"));
	assert_false(opts.cg);
	assert_true(opts.share_net);
	assert_int_equal(opts.mem, 128000);
	assert_int_equal(opts.cg_mem, ISO_UNSET);
	assert_int_equal(opts.extra_ms, 1000);
	/* --no-cg-timing (judge0's per-process time limit) is 1.x's: taken,
	 * and the tree timed anyway. */
	parse_ok(PARSE("--cg", "--no-cg-timing", "-b", "1", "--run", "--", "x"));
	assert_true(opts.v1);
}

static void judgels_glued_short_options_parse(void **state)
{
	(void)state;
	parse_ok(PARSE("-b17", "--dir=/etc", "--dir=/judge/a:rw", "-e", "--cg", "--cg-timing",
		       "-p4", "-t1.0", "-x0.5", "-w3.5", "--cg-mem=65536", "-k65536", "-f1024",
		       "-i_in", "-o_out", "-r_err", "-M/b/box/_isolate.meta", "--run", "--",
		       "./prog"));
	assert_int_equal(opts.box_id, 17);
	assert_int_equal(opts.ndirs, 2);
	assert_string_equal(opts.dirs[0].out, "/etc");
	assert_string_equal(opts.dirs[1].in, "/judge/a");
	assert_int_equal(opts.dirs[1].flags, ISO_DIR_RW);
	assert_true(opts.full_env);
	assert_int_equal(opts.processes, 4);
	assert_int_equal(opts.time_ms, 1000);
	assert_int_equal(opts.extra_ms, 500);
	assert_int_equal(opts.wall_ms, 3500);
	assert_string_equal(opts.in, "_in");
	assert_string_equal(opts.err, "_err");
	assert_string_equal(opts.meta, "/b/box/_isolate.meta");
	parse_ok(PARSE("-b17", "--cleanup"));
	assert_int_equal(opts.cmd, ISO_CLEANUP);
}

static void recodex_numbers_and_relative_rules_parse(void **state)
{
	(void)state;
	parse_ok(PARSE("--cg", "--cg-timing", "--box-id=34", "--cg-mem=65536", "--time=2.000000",
		       "--wall-time=1e+01", "--extra-time=0.100000", "--processes", "--chdir=../x",
		       "--dir=etc/alternatives=/etc/alternatives:maybe", "--meta=/m", "--run", "--",
		       "/bin/x"));
	assert_int_equal(opts.time_ms, 2000);
	assert_int_equal(opts.wall_ms, 10000);
	assert_int_equal(opts.extra_ms, 100);
	assert_int_equal(opts.processes, 0); /* bare: no limit */
	assert_string_equal(opts.dirs[0].in, "/etc/alternatives");
	assert_int_equal(opts.dirs[0].flags, ISO_DIR_MAYBE);
}

static void processes_argument_is_only_glued(void **state)
{
	(void)state;
	parse_ok(PARSE("-p", "60", "--run"));
	assert_int_equal(opts.processes, 0);
	assert_int_equal(opts.argc, 1);
	assert_string_equal(opts.argv[0], "60"); /* a stray word: the program */
	parse_ok(PARSE("--run", "--", "x"));
	assert_int_equal(opts.processes, 1); /* absent: 1 */
	parse_ok(PARSE("--processes=60", "--run", "--", "x"));
	assert_int_equal(opts.processes, 60);
}

static void separate_and_glued_forms_agree(void **state)
{
	(void)state;
	parse_ok(PARSE("-b0", "-M", "file", "-t", "1.5", "-E", "VAR=val", "-d", "/a=/b:rw", "--run",
		       "--", "x"));
	assert_int_equal(opts.box_id, 0);
	assert_string_equal(opts.meta, "file");
	assert_int_equal(opts.time_ms, 1500);
	assert_string_equal(opts.env[0].arg, "VAR=val");
	assert_string_equal(opts.dirs[0].in, "/a");
	assert_string_equal(opts.dirs[0].out, "/b");
	parse_ok(PARSE("-b", "0", "--meta=file", "--time=1.5", "--env=VAR=val", "--dir=/a=/b:rw",
		       "--run", "--", "x"));
	assert_int_equal(opts.time_ms, 1500);
	assert_string_equal(opts.dirs[0].out, "/b");
	/* GNU permutation: an option after the program, before "--"... */
	parse_ok(PARSE("--run", "prog", "-b3"));
	assert_int_equal(opts.box_id, 3);
	assert_int_equal(opts.argc, 1);
	/* ... but not after it. */
	parse_ok(PARSE("--run", "--", "prog", "-b3"));
	assert_int_equal(opts.box_id, 0);
	assert_int_equal(opts.argc, 2);
}

static void env_rules_keep_their_order_and_kind(void **state)
{
	(void)state;
	parse_ok(PARSE("-E", "A", "-E", "B=1", "-E", "C=", "--init"));
	assert_int_equal(opts.nenv, 3);
	assert_int_equal(opts.env[0].op, ISO_ENV_INHERIT);
	assert_int_equal(opts.env[1].op, ISO_ENV_SET);
	assert_int_equal(opts.env[2].op, ISO_ENV_REMOVE);
	assert_int_equal(PARSE("-E", "=x", "--init"), -1);
	assert_string_equal(opts.error, "Invalid environment specified: =x");
}

static void dir_rules_replace_and_refuse_what_proctor_cannot_do(void **state)
{
	(void)state;
	parse_ok(PARSE("-d", "/a=/x", "-d", "a/=/y:rw", "--init"));
	assert_int_equal(opts.ndirs, 1);
	assert_string_equal(opts.dirs[0].out, "/y");
	assert_int_equal(PARSE("-d", "/a/../b=/x", "--init"), -1);
	assert_int_equal(PARSE("-d", "/a=x", "--init"), -1);
	assert_int_equal(PARSE("-d", "/a=/x:bogus", "--init"), -1);
	assert_non_null(strstr(opts.error, "Unknown option 'bogus'"));
	assert_int_equal(PARSE("-d", "/d=/x:dev:rw", "--init"), -1);
	assert_non_null(strstr(opts.error, "read-only only"));
	parse_ok(PARSE("-d", "/d=/x:dev", "--init"));
	assert_int_equal(opts.dirs[0].flags, ISO_DIR_DEV);
	/* fs: the box's own proc at /proc and tmpfs at /tmp or /dev/shm */
	parse_ok(PARSE("-d", "/proc=proc:fs", "-d", "/dev/shm=tmpfs:fs", "-D", "--init"));
	assert_int_equal(opts.dirs[0].flags, ISO_DIR_FS);
	assert_string_equal(opts.dirs[0].out, "proc");
	assert_int_equal(opts.dirs[1].flags, ISO_DIR_FS);
	assert_true(opts.no_default_dirs);
	assert_int_equal(PARSE("-d", "/sys=sysfs:fs", "--init"), -1);
	assert_non_null(strstr(opts.error, "proc at /proc and tmpfs at"));
	assert_int_equal(PARSE("-d", "/x=proc:fs", "--init"), -1);
	assert_int_equal(PARSE("-d", "/proc:fs", "--init"), -1);
	assert_int_equal(PARSE("-d", "/opt:tmp", "--init"), -1);
	/* norec is what proctord's binds are; IN= removes the rule (an
	 * earlier one, or the box's default there), but not /box */
	parse_ok(PARSE("-d", "/a=/x:norec", "-d", "/b=/y", "-d", "/a=", "-d", "/proc=", "--init"));
	assert_int_equal(opts.ndirs, 3);
	assert_string_equal(opts.dirs[0].in, "/a");
	assert_int_equal(opts.dirs[0].flags, ISO_DIR_REMOVE);
	assert_int_equal(opts.dirs[1].flags, 0);
	assert_int_equal(opts.dirs[2].flags, ISO_DIR_REMOVE);
	parse_ok(PARSE("-d", "/a=", "-d", "/a=/z:rw", "--init"));
	assert_int_equal(opts.dirs[0].flags, ISO_DIR_RW);
	assert_int_equal(PARSE("-d", "/box=", "--init"), -1);
	assert_non_null(strstr(opts.error, "always has /box"));
}

static void bad_lines_are_usage_errors(void **state)
{
	(void)state;
	assert_int_equal(PARSE("-b", "x", "--init"), -1);
	assert_string_equal(opts.error, "Invalid numeric parameter: x");
	assert_int_equal(PARSE("-b", "2147483648", "--init"), -1);
	assert_string_equal(opts.error, "Numeric parameter out of range: 2147483648");
	assert_int_equal(PARSE("-t", "1s", "--run", "--", "x"), -1);
	assert_int_equal(PARSE("-t", "-1", "--run", "--", "x"), -1);
	assert_int_equal(PARSE("-b", "0"), -1);
	assert_non_null(strstr(opts.error, "Please specify an isolate command"));
	assert_int_equal(PARSE("--init", "--run", "--", "x"), -1);
	assert_string_equal(opts.error, "Only one command is allowed.");
	assert_int_equal(PARSE("--run"), -1);
	assert_int_equal(PARSE("--init", "x"), -1);
	assert_int_equal(PARSE("--cg-mem=1", "--init"), -1);
	assert_int_equal(PARSE("--bogus", "--init"), -1);
	assert_int_equal(PARSE("-t", "--init"), -1); /* -t takes "--init": no command */
	assert_int_equal(PARSE("--init", "-b"), -1);
	assert_int_equal(PARSE("--tty-hack", "--init"), -1);
	assert_non_null(strstr(opts.error, "not supported"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(cms_evaluation_line_parses),
	    cmocka_unit_test(cms_compilation_line_keeps_the_compilers_options),
	    cmocka_unit_test(judge0_run_line_parses_separate_and_glued_short_options),
	    cmocka_unit_test(judge0_per_process_variant_takes_mem_and_share_net),
	    cmocka_unit_test(judgels_glued_short_options_parse),
	    cmocka_unit_test(recodex_numbers_and_relative_rules_parse),
	    cmocka_unit_test(processes_argument_is_only_glued),
	    cmocka_unit_test(separate_and_glued_forms_agree),
	    cmocka_unit_test(env_rules_keep_their_order_and_kind),
	    cmocka_unit_test(dir_rules_replace_and_refuse_what_proctor_cannot_do),
	    cmocka_unit_test(bad_lines_are_usage_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
