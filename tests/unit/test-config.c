// SPDX-License-Identifier: ISC
// Unit tests for the configuration: profiles, inheritance, precedence, sources and every error.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgroup.h"
#include "config.h"

static char path[4096];

static const char *write_conf(const char *text)
{
	/* Under the test's own TMPDIR when it has one, like mktemp(1). */
	const char *base = getenv("TMPDIR");
	FILE *f;
	int fd;

	snprintf(path, sizeof path, "%s/proctor-test-conf.XXXXXX", base && *base ? base : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* Load text with profile; returns the error text ("" on success). */
static const char *load(struct config *c, const char *text, const char *profile)
{
	static char err[2048];

	config_init(c);
	err[0] = '\0';
	if (config_load(c, write_conf(text), profile, err, sizeof err) < 0 && !err[0])
		strcpy(err, "error without a message");
	unlink(path);
	return err;
}

static const char *source_of(const struct config *c, const char *key)
{
	static char buf[320];

	config_source_text(&c->source[config_key_index(config_key_find(key))], buf, sizeof buf);
	/* Drop the temporary file's name: "FILE:12 [c]" -> ":12 [c]". */
	return strchr(buf, ':') ? strchr(buf, ':') : buf;
}

static const char conf[] = "; a comment\n"
			   "# another\n"
			   "grace = 100ms\n"
			   "cpu_time = 5s\n"
			   "\n"
			   "[c]\n"
			   "cpu_time = 1s\n"
			   "nofile = 64\n"
			   "\n"
			   "[cpp]\n"
			   "inherit = c\n"
			   "wall_time = 3s\n"
			   "\n"
			   "[java]\n"
			   "inherit = cpp\n"
			   "cpu_time = 2s\n"
			   "memory_max = \"12 GiB\"\n"
			   "env = A=1\n"
			   "env = B=2\n"
			   "clear_env = yes\n";

static void global_keys_apply_without_a_profile(void **state)
{
	struct config c;

	assert_string_equal(load(&c, conf, NULL), "");
	assert_int_equal(c.limits.cpu_time_us, 5000000);
	assert_int_equal(c.limits.grace_us, 100000);
	assert_true(c.limits.nofile == UNITS_UNLIMITED);
	assert_string_equal(source_of(&c, "cpu_time"), ":4");
	assert_string_equal(source_of(&c, "wall_time"), "default");
	config_free(&c);
}

static void a_profile_overrides_the_global_keys(void **state)
{
	struct config c;

	assert_string_equal(load(&c, conf, "c"), "");
	assert_int_equal(c.limits.cpu_time_us, 1000000);
	assert_int_equal(c.limits.nofile, 64);
	assert_int_equal(c.limits.grace_us, 100000);
	assert_string_equal(source_of(&c, "cpu_time"), ":7 [c]");
	config_free(&c);
}

static void inheritance_is_applied_farthest_first(void **state)
{
	struct config c;

	assert_string_equal(load(&c, conf, "java"), "");
	assert_int_equal(c.limits.cpu_time_us, 2000000);   /* java over c */
	assert_int_equal(c.limits.wall_time_us, 3000000);  /* from cpp */
	assert_int_equal(c.limits.nofile, 64);             /* from c */
	assert_true(c.limits.memory_max == 12ull << 30);   /* quotes stripped */
	assert_string_equal(source_of(&c, "nofile"), ":8 [c]");
	assert_string_equal(source_of(&c, "wall_time"), ":12 [cpp]");
	assert_int_equal(c.n_env, 2);
	assert_string_equal(c.env[0], "A=1");
	assert_string_equal(c.env[1], "B=2");
	assert_int_equal(c.clear_env, 1);
	config_free(&c);
}

static void the_default_profile_is_taken_when_present(void **state)
{
	struct config c;

	assert_string_equal(load(&c, "cpu_time = 5s\n[default]\ncpu_time = 7s\n", NULL), "");
	assert_int_equal(c.limits.cpu_time_us, 7000000);
	config_free(&c);
}

static void options_override_the_file(void **state)
{
	struct config_source cmd = {.origin = CONFIG_CMDLINE};
	struct config c;

	assert_string_equal(load(&c, conf, "cpp"), "");
	assert_null(config_set(&c, config_key_find("cpu-time"), "250ms", &cmd));
	assert_int_equal(c.limits.cpu_time_us, 250000);
	assert_string_equal(source_of(&c, "cpu_time"), "command line");
	config_free(&c);
}

static void errors_name_file_line_and_text(void **state)
{
	struct config c;

	assert_non_null(strstr(load(&c, "cpu_time = 1s\nspeed = 3\n", NULL),
			       ":2: unknown key \"speed\" (keys: cpu_time,"));
	config_free(&c);
	assert_non_null(strstr(load(&c, "[c]\ncpu_time = 5parsecs\n", "c"),
			       ":2: cpu_time = 5parsecs: unknown duration unit"));
	config_free(&c);
	/* Checked even in a profile that is not selected. */
	assert_non_null(strstr(load(&c, "[c]\n[java]\nnofile = lots\n", "c"),
			       ":3: nofile = lots: expected a whole number"));
	config_free(&c);
	assert_non_null(strstr(load(&c, "grace = unlimited\n", NULL), ":1: grace = unlimited:"));
	config_free(&c);
	/* Option spelling is not a key. */
	assert_non_null(strstr(load(&c, "cpu-time = 1s\n", NULL), ":1: unknown key \"cpu-time\""));
	config_free(&c);
}

static void isolation_keys_load_and_check_their_values(void **state)
{
	struct config c;

	assert_string_equal(load(&c,
				 "[judge]\noutput_limit = 64MiB\nuser = nobody\ngroup = 65534\n"
				 "no_root = yes\nnew_session = yes\nunshare_net = on\n"
				 "unshare_ipc = 1\nseccomp = true\nseccomp_errno = no\n",
				 "judge"),
			    "");
	assert_int_equal(c.limits.output_limit, 64u << 20);
	assert_string_equal(c.user, "nobody");
	assert_string_equal(c.group, "65534");
	assert_true(c.no_root && c.new_session && c.unshare_net && c.unshare_ipc && c.seccomp);
	assert_false(c.seccomp_errno);
	config_free(&c);
	/* A user or group that does not exist stops proctord before anything
	 * runs, rather than running the program as someone else. */
	assert_non_null(strstr(load(&c, "user = no-such-user-here\n", NULL),
			       ":1: user = no-such-user-here: no such user"));
	config_free(&c);
	assert_non_null(strstr(load(&c, "group = no-such-group-here\n", NULL),
			       ":1: group = no-such-group-here: no such group"));
	config_free(&c);
	/* 4294967295 is (uid_t)-1, "unchanged" to setresuid: never an id. */
	assert_non_null(strstr(load(&c, "user = 4294967295\n", NULL), ":1: user = 4294967295:"));
	config_free(&c);
	assert_non_null(strstr(load(&c, "output_limit = lots\n", NULL), ":1: output_limit = lots:"));
	config_free(&c);
}

static void inherit_errors(void **state)
{
	struct config c;

	assert_non_null(strstr(load(&c, "[a]\ninherit = b\n[b]\ninherit = a\n", "a"),
			       "inherit cycle: a -> b -> a"));
	config_free(&c);
	assert_non_null(strstr(load(&c, "[a]\ninherit = a\n", "a"), ":2: inherit cycle: a -> a"));
	config_free(&c);
	assert_non_null(strstr(load(&c, "[a]\ninherit = nowhere\n", "a"),
			       ":2: inherit = nowhere: no such profile (profiles: a)"));
	config_free(&c);
	assert_non_null(strstr(load(&c, "inherit = a\n[a]\nnofile = 1\n", NULL),
			       ":1: inherit = a: inherit belongs in a [profile]"));
	config_free(&c);
}

/* Found with fuzz-config: the cycle's path was built with unchecked snprintf
 * offsets, and thirty long profile names overflowed a 1024-byte buffer. */
static void a_long_inherit_cycle_is_cut_not_overflowed(void **state)
{
	char text[4096], name[64];
	size_t used = 0;
	const char *err;
	struct config c;

	for (int i = 0; i < 30; i++) {
		used += (size_t)snprintf(text + used, sizeof text - used,
					 "[p%02d%.44s]\ninherit = p%02d%.44s\n", i,
					 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", (i + 1) % 30,
					 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		assert_true(used < sizeof text);
	}
	snprintf(name, sizeof name, "p00%.44s", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	err = load(&c, text, name);
	assert_non_null(strstr(err, "inherit cycle: p00xxx"));
	assert_true(strlen(err) < 2048);
	assert_null(strchr(err, '\n'));
	config_free(&c);
}

static void a_missing_profile_lists_the_others(void **state)
{
	struct config c;

	assert_non_null(strstr(load(&c, conf, "rust"), ": no profile [rust] (profiles: c, cpp, java)"));
	config_free(&c);
}

static void syntax_and_structure_errors(void **state)
{
	struct config c;
	char longline[400];

	assert_non_null(strstr(load(&c, "cpu_time = 1s\nthis is not ini\n", NULL),
			       ":2: syntax error"));
	config_free(&c);
	assert_non_null(strstr(load(&c, "[a]\nnofile = 1\n[b]\nnofile = 2\n[a]\nstack = 1M\n", "a"),
			       ":6: [a] appears a second time"));
	config_free(&c);
	memset(longline, 'x', sizeof longline);
	memcpy(longline, "dir = /", 7);
	longline[sizeof longline - 2] = '\n';
	longline[sizeof longline - 1] = '\0';
	assert_non_null(strstr(load(&c, longline, NULL), ":1: line too long"));
	config_free(&c);
}

static void memory_high_above_memory_max_is_refused(void **state)
{
	struct config c;
	char err[1024];

	assert_string_equal(load(&c, "memory_max = 1G\n[x]\nmemory_high = 2G\n", "x"), "");
	assert_int_equal(config_validate(&c, err, sizeof err), -1);
	assert_non_null(strstr(err, "memory_high = 2GiB"));
	assert_non_null(strstr(err, "above memory_max = 1GiB"));
	config_free(&c);
	assert_string_equal(load(&c, "memory_max = 2G\nmemory_high = 1G\n", NULL), "");
	assert_int_equal(config_validate(&c, err, sizeof err), 0);
	config_free(&c);
}

/* The output keys load; stderr_to_stdout leaves stderr nothing of its own. */
static void output_keys_load_and_stderr_to_stdout_excludes_stderr(void **state)
{
	struct config c;
	char err[1024];

	assert_string_equal(load(&c,
				 "stdout_limit = 1KiB\nstderr_limit = 0\ntruncate_output = yes\n"
				 "stderr_to_stdout = no\n",
				 NULL),
			    "");
	assert_int_equal(c.limits.stdout_limit, 1024);
	assert_int_equal(c.limits.stderr_limit, 0);
	assert_true(c.limits.truncate_output);
	assert_false(c.stderr_to_stdout);
	assert_int_equal(config_validate(&c, err, sizeof err), 0);
	config_free(&c);
	assert_string_equal(load(&c, "stderr_limit = 1K\n[x]\nstderr_to_stdout = yes\n", "x"), "");
	assert_int_equal(config_validate(&c, err, sizeof err), -1);
	assert_non_null(strstr(err, ":3 [x]) and stderr_limit ("));
	config_free(&c);
	assert_string_equal(load(&c, "stderr = /x\nstderr_to_stdout = yes\n", NULL), "");
	assert_int_equal(config_validate(&c, err, sizeof err), -1);
	assert_non_null(strstr(err, "and stderr ("));
	config_free(&c);
	assert_non_null(strstr(load(&c, "stdout_limit = lots\n", NULL), ":1: stdout_limit = lots:"));
	config_free(&c);
}

static void zero_is_refused_where_it_would_kill_at_once(void **state)
{
	static const char *const refused[] = {"cpu_time", "wall_time", "memory_max",
					      "memory_high", "address_space", "stack", "pids"};
	static const char *const kept[] = {"grace", "fsize", "output_limit", "nofile"};
	struct config c;

	config_init(&c);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		const char *err = config_set(&c, config_key_find(refused[i]), "0", NULL);

		assert_non_null(err);
		assert_non_null(strstr(err, "\"unlimited\""));
	}
	assert_non_null(config_set(&c, config_key_find("wall_time"), "0ms", NULL));
	for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
		assert_null(config_set(&c, config_key_find(kept[i]), "0", NULL));
	config_free(&c);
	assert_non_null(
		strstr(load(&c, "[c]\ncpu_time = 0\n", "c"), ":2: cpu_time = 0: must be above 0"));
	config_free(&c);
}

/* isolate counts KiB: a bare size in the file is an error of the file, with
 * its line, for every size key; 0 alone may be bare. */
static void a_bare_size_is_an_error_of_the_file(void **state)
{
	static const char *const sizes[] = {"memory_max", "memory_high", "address_space", "stack",
					    "fsize", "output_limit", "tmp_size"};
	struct config c;
	char text[64];

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		const char *err;

		snprintf(text, sizeof text, "[c]\n%s = 262144\n", sizes[i]);
		err = load(&c, text, "c");
		if (!strstr(err, ":2: ") || !strstr(err, "= 262144: a size needs its unit"))
			fail_msg("%s = 262144: \"%s\"", sizes[i], err);
		config_free(&c);
	}
	assert_string_equal(load(&c, "fsize = 0\nmemory_max = 262144KiB\nstack = 8M\n", NULL),
			    "");
	assert_int_equal(c.limits.fsize, 0);
	assert_true(c.limits.memory_max == 256u << 20);
	config_free(&c);
	assert_non_null(strstr(load(&c, "memory_max = 256mb\n", NULL), ":1: memory_max = 256mb:"));
	config_free(&c);
}

static void values_format_back(void **state)
{
	struct config c;
	char buf[64];

	assert_string_equal(load(&c, "cpus = 150%\npids = 64\ndir_mode = 0750\n", NULL), "");
	config_format(&c, config_key_find("cpus"), buf, sizeof buf);
	assert_string_equal(buf, "1.5");
	config_format(&c, config_key_find("pids"), buf, sizeof buf);
	assert_string_equal(buf, "64");
	config_format(&c, config_key_find("dir_mode"), buf, sizeof buf);
	assert_string_equal(buf, "0750");
	config_free(&c);
	assert_string_equal(load(&c, "cgroup = v1\n", NULL), "");
	config_format(&c, config_key_find("cgroup"), buf, sizeof buf);
	assert_string_equal(buf, "v1");
	assert_int_equal(c.cgroup_mode, CG_MODE_V1);
	config_free(&c);
	assert_non_null(strstr(load(&c, "cgroup = v3\n", NULL),
			       ":1: cgroup = v3: expected auto, v2, v1 or none"));
	config_free(&c);
}

static void a_missing_file_is_an_error(void **state)
{
	struct config c;
	char err[256];

	config_init(&c);
	assert_int_equal(config_load(&c, "/nonexistent/proctor.conf", NULL, err, sizeof err), -1);
	assert_string_equal(err, "/nonexistent/proctor.conf: No such file or directory");
	config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(global_keys_apply_without_a_profile),
		cmocka_unit_test(output_keys_load_and_stderr_to_stdout_excludes_stderr),
		cmocka_unit_test(a_profile_overrides_the_global_keys),
		cmocka_unit_test(inheritance_is_applied_farthest_first),
		cmocka_unit_test(the_default_profile_is_taken_when_present),
		cmocka_unit_test(options_override_the_file),
		cmocka_unit_test(errors_name_file_line_and_text),
		cmocka_unit_test(isolation_keys_load_and_check_their_values),
		cmocka_unit_test(inherit_errors),
		cmocka_unit_test(a_long_inherit_cycle_is_cut_not_overflowed),
		cmocka_unit_test(a_missing_profile_lists_the_others),
		cmocka_unit_test(syntax_and_structure_errors),
		cmocka_unit_test(memory_high_above_memory_max_is_refused),
		cmocka_unit_test(zero_is_refused_where_it_would_kill_at_once),
		cmocka_unit_test(a_bare_size_is_an_error_of_the_file),
		cmocka_unit_test(values_format_back),
		cmocka_unit_test(a_missing_file_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
