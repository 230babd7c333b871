// SPDX-License-Identifier: ISC
// The configuration: built-in defaults, proctor.conf profiles and options, and where each value came from.
//
// Options and the file go through the same table and the same parsers, so
// "memory_max = 256MiB" in a file and "--memory-max 256MiB" on the command
// line accept exactly the same text.
#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <strings.h>

#include "cgroup.h"
#include "config.h"
#include "units.h"
#include "util.h"

#define OFF(field) offsetof(struct config, field)

const struct config_key config_keys[] = {
	{"cpu_time", CONFIG_DURATION, OFF(limits.cpu_time_us), "DURATION",
	 "deadline timer on the tree's CPU time; RLIMIT_CPU per process as a backstop", 0},
	{"wall_time", CONFIG_DURATION, OFF(limits.wall_time_us), "DURATION",
	 "timer from the start of the program", 0},
	{"address_space", CONFIG_SIZE, OFF(limits.address_space), "SIZE", "RLIMIT_AS, per process",
	 0},
	{"fsize", CONFIG_SIZE, OFF(limits.fsize), "SIZE", "RLIMIT_FSIZE, per process", 0},
	{"nofile", CONFIG_COUNT, OFF(limits.nofile), "N", "RLIMIT_NOFILE, soft = hard, per process",
	 0},
	{"stack", CONFIG_SIZE, OFF(limits.stack), "SIZE", "RLIMIT_STACK, per process", 0},
	{"output_limit", CONFIG_SIZE, OFF(limits.output_limit), "SIZE",
	 "stdout and stderr pass through pipes that proctord drains and counts; the tree is "
	 "killed at the limit (truncate_output: the rest is discarded)",
	 0},
	{"stdout_limit", CONFIG_SIZE, OFF(limits.stdout_limit), "SIZE",
	 "stdout passes through a pipe that proctord drains and counts; the tree is killed at "
	 "the limit (truncate_output: the rest is discarded)",
	 0},
	{"stderr_limit", CONFIG_SIZE, OFF(limits.stderr_limit), "SIZE",
	 "stderr passes through a pipe that proctord drains and counts; the tree is killed at "
	 "the limit (truncate_output: the rest is discarded)",
	 0},
	{"truncate_output", CONFIG_BOOL, OFF(limits.truncate_output), NULL, NULL, 0},
	{"memory_max", CONFIG_SIZE, OFF(limits.memory_max), "SIZE", NULL, 1},
	{"memory_high", CONFIG_SIZE, OFF(limits.memory_high), "SIZE", NULL, 1},
	{"pids", CONFIG_COUNT, OFF(limits.pids), "N", NULL, 1},
	{"cpus", CONFIG_CPUS, OFF(limits.cpus_milli), "CPUS", NULL, 1},
	{"cpuset", CONFIG_CPUSET, OFF(limits.cpuset), "CPUS", NULL, 1},
	{"grace", CONFIG_DURATION, OFF(limits.grace_us), "DURATION",
	 "timer after a terminating wait; then the tree is killed", 0},
	{"dir", CONFIG_PATH, OFF(dir), "DIR", NULL, 0},
	{"dir_mode", CONFIG_MODE, OFF(dir_mode), "MODE", NULL, 0},
	{"stdin", CONFIG_PATH, OFF(stdin_path), "FILE", NULL, 0},
	{"stdout", CONFIG_PATH, OFF(stdout_path), "FILE", NULL, 0},
	{"stderr", CONFIG_PATH, OFF(stderr_path), "FILE", NULL, 0},
	{"stderr_to_stdout", CONFIG_BOOL, OFF(stderr_to_stdout), NULL, NULL, 0},
	{"chdir", CONFIG_PATH, OFF(chdir), "DIR", NULL, 0},
	{"env", CONFIG_ENV, OFF(env), "NAME=VALUE", NULL, 0},
	{"clear_env", CONFIG_BOOL, OFF(clear_env), NULL, NULL, 0},
	{"cgroup", CONFIG_CGROUP, OFF(cgroup_mode), "auto|v2|v1|none", NULL, 0},
	{"user", CONFIG_USER, OFF(user), "USER", NULL, 0},
	{"group", CONFIG_GROUP, OFF(group), "GROUP", NULL, 0},
	{"no_root", CONFIG_BOOL, OFF(no_root), NULL, NULL, 0},
	{"new_session", CONFIG_BOOL, OFF(new_session), NULL, NULL, 0},
	{"unshare_net", CONFIG_BOOL, OFF(unshare_net), NULL, NULL, 0},
	{"unshare_ipc", CONFIG_BOOL, OFF(unshare_ipc), NULL, NULL, 0},
	{"box", CONFIG_PATH, OFF(box), "DIR", NULL, 0},
	{"tmp_size", CONFIG_SIZE, OFF(tmp_size), "SIZE", "size of the box's /tmp tmpfs", 0},
	{"ro_bind", CONFIG_BINDS, OFF(ro_bind), "SRC[:DST]", NULL, 0},
	{"bind", CONFIG_BINDS, OFF(bind), "SRC[:DST]", NULL, 0},
	{"dev_bind", CONFIG_BINDS, OFF(dev_bind), "SRC[:DST]", NULL, 0},
	{"box_omit", CONFIG_BINDS, OFF(box_omit), "PATH", NULL, 0},
	{"share_net", CONFIG_BOOL, OFF(share_net), NULL, NULL, 0},
	{"loopback", CONFIG_BOOL, OFF(loopback), NULL, NULL, 0},
	{"seccomp", CONFIG_BOOL, OFF(seccomp), NULL, NULL, 0},
	{"seccomp_errno", CONFIG_BOOL, OFF(seccomp_errno), NULL, NULL, 0},
	{"report", CONFIG_PATH, OFF(report), "FILE", NULL, 0},
	{"strict", CONFIG_BOOL, OFF(strict), NULL, NULL, 0},
	{NULL, 0, 0, NULL, NULL, 0},
};

/* Appends to buf, which holds used characters, and returns the new length:
 * at most len - 1, so a truncated text never moves the end past the buffer
 * (snprintf's return value, added up unchecked, did). */
__attribute__((format(printf, 4, 5))) static size_t config_append(char *buf, size_t len,
								  size_t used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (used >= len)
		return used;
	va_start(ap, fmt);
	n = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return used;
	return (size_t)n >= len - used ? len - 1 : used + (size_t)n;
}

void config_init(struct config *c)
{
	memset(c, 0, sizeof *c);
	limits_init(&c->limits);
	c->dir_mode = 0700;
	c->tmp_size = (uint64_t)64 << 20;
}

static void config_list_free(struct config_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

void config_free(struct config *c)
{
	free(c->dir);
	free(c->stdin_path);
	free(c->stdout_path);
	free(c->stderr_path);
	free(c->chdir);
	free(c->report);
	free(c->user);
	free(c->group);
	for (size_t i = 0; i < c->n_env; i++)
		free(c->env[i]);
	free(c->env);
	free(c->box);
	config_list_free(&c->ro_bind);
	config_list_free(&c->bind);
	config_list_free(&c->box_omit);
	config_list_free(&c->dev_bind);
	memset(c, 0, sizeof *c);
}

const struct config_key *config_key_find(const char *name)
{
	for (const struct config_key *k = config_keys; k->name; k++) {
		size_t i;

		/* "memory-max" names the same key as "memory_max". */
		for (i = 0; k->name[i] && name[i]; i++)
			if (k->name[i] != name[i] && !(k->name[i] == '_' && name[i] == '-'))
				break;
		if (!k->name[i] && !name[i])
			return k;
	}
	return NULL;
}

size_t config_key_index(const struct config_key *k)
{
	return (size_t)(k - config_keys);
}

static uint64_t *config_u64(struct config *c, const struct config_key *k)
{
	return (uint64_t *)(void *)((char *)c + k->offset);
}

static const uint64_t *config_cu64(const struct config *c, const struct config_key *k)
{
	return (const uint64_t *)(const void *)((const char *)c + k->offset);
}

static char **config_str(struct config *c, const struct config_key *k)
{
	return (char **)(void *)((char *)c + k->offset);
}

static struct config_list *config_lst(struct config *c, const struct config_key *k)
{
	return (struct config_list *)(void *)((char *)c + k->offset);
}

static const struct config_list *config_clst(const struct config *c, const struct config_key *k)
{
	return (const struct config_list *)(const void *)((const char *)c + k->offset);
}

static int *config_int(struct config *c, const struct config_key *k)
{
	return (int *)(void *)((char *)c + k->offset);
}

static const char *config_parse_bool(const char *v, int *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = 1;
			return NULL;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = 0;
			return NULL;
		}
	}
	return "expected true or false (also yes/no, on/off, 1/0)";
}

int config_parse_id(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		/* (uid_t)-1 means "unchanged" to setresuid: never an identity. */
		if (v >= UINT32_MAX)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* A user or group that exists here, by name or number: a typo must stop
 * proctord before anything runs, not make the program run as someone else. */
static const char *config_check_id(enum config_type type, const char *v)
{
	uint32_t id;

	if (!v[0])
		return type == CONFIG_USER ? "expected a user name or uid" : "expected a group name or gid";
	if (config_parse_id(v, &id) == 0)
		return NULL; /* a number needs no entry in the database */
	if (type == CONFIG_USER)
		return getpwnam(v) ? NULL : "no such user (give a name from the user database, or a uid)";
	return getgrnam(v) ? NULL : "no such group (give a name from the group database, or a gid)";
}

/* Limits at which the program cannot even start, or dies at once: 0 is
 * refused there, since people who mean "no limit" write it (as isolate and
 * docker take it). 0 is kept where it makes sense: grace (kill at once on a
 * terminating wait), fsize (no file may be written), output_limit (no
 * output allowed), nofile (no descriptor beyond those inherited). */
static const char *const config_nonzero[] = {
	"cpu_time", "wall_time", "memory_max", "memory_high", "address_space", "stack", "pids",
	"tmp_size", NULL,
};

static int config_in(const char *const *names, const char *name)
{
	for (size_t i = 0; names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

/* The keys that are not numbers: a path, a name, a mode, a list entry. */
static const char *config_set_text(struct config *c, const struct config_key *k, const char *value)
{
	const char *err;

	switch (k->type) {
	case CONFIG_PATH:
		if (!value[0])
			return "expected a path";
		free(*config_str(c, k));
		*config_str(c, k) = xstrdup(value);
		return NULL;
	case CONFIG_USER:
	case CONFIG_GROUP:
		err = config_check_id(k->type, value);
		if (err)
			return err;
		free(*config_str(c, k));
		*config_str(c, k) = xstrdup(value);
		return NULL;
	case CONFIG_MODE: {
		char *end;
		long m;

		errno = 0;
		m = strtol(value, &end, 8);
		if (errno || end == value || *end || m < 0 || m > 07777)
			return "expected an octal mode such as 0700";
		c->dir_mode = (mode_t)m;
		return NULL;
	}
	case CONFIG_BOOL:
		return config_parse_bool(value, config_int(c, k));
	case CONFIG_CGROUP: {
		int m = cgroup_mode_parse(value);

		if (m < 0)
			return "expected auto, v2, v1 or none";
		*config_int(c, k) = m;
		return NULL;
	}
	case CONFIG_ENV:
		if (value[0] == '=' || value[0] == '\0')
			return "expected NAME=VALUE or NAME";
		c->env = xreallocarray(c->env, c->n_env + 1, sizeof *c->env);
		c->env[c->n_env++] = xstrdup(value);
		return NULL;
	case CONFIG_BINDS: {
		struct config_list *l = config_lst(c, k);

		const char *colon = strchr(value, ':');

		if (value[0] != '/')
			return "expected an absolute path SRC, or SRC:DST with DST absolute too";
		/* The box would not bind it anywhere: say so now, not never. */
		if (colon && colon[1] != '/')
			return "the destination after ':' must be an absolute path inside the "
			       "box, such as /data";
		l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
		l->v[l->n++] = xstrdup(value);
		return NULL;
	}
	default:
		return "not a text key";
	}
}

const char *config_set(struct config *c, const struct config_key *k, const char *value,
		       const struct config_source *src)
{
	const char *err = NULL;
	uint64_t v = 0;

	switch (k->type) {
	case CONFIG_DURATION:
		/* A grace period is always finite: the terminating wait ends. */
		err = units_parse_duration(value, strcmp(k->name, "grace") != 0, &v);
		break;
	case CONFIG_SIZE:
		err = units_parse_size(value, 1, &v);
		break;
	case CONFIG_COUNT:
		err = units_parse_count(value, 1, &v);
		break;
	case CONFIG_CPUS:
		err = units_parse_cpus(value, 1, &v);
		break;
	case CONFIG_CPUSET:
		err = units_parse_cpuset(value, &c->limits.cpuset);
		break;
	default:
		err = config_set_text(c, k, value);
		break;
	}
	if (err)
		return err;
	if (v == 0 && config_in(config_nonzero, k->name))
		return "must be above 0 (0 would stop the program at once; for no limit, give "
		       "\"unlimited\")";
	if (k->type == CONFIG_DURATION || k->type == CONFIG_SIZE || k->type == CONFIG_COUNT ||
	    k->type == CONFIG_CPUS)
		*config_u64(c, k) = v;
	if (src)
		c->source[config_key_index(k)] = *src;
	return NULL;
}

int config_is_set(const struct config *c, const struct config_key *k)
{
	struct config d;

	switch (k->type) {
	case CONFIG_PATH:
	case CONFIG_USER:
	case CONFIG_GROUP:
		return *(char *const *)(const void *)((const char *)c + k->offset) != NULL;
	case CONFIG_ENV:
		return c->n_env > 0;
	case CONFIG_BINDS:
		return config_clst(c, k)->n > 0;
	case CONFIG_BOOL:
	case CONFIG_CGROUP:
		return *(const int *)(const void *)((const char *)c + k->offset) != 0;
	case CONFIG_MODE:
		return c->dir_mode != 0700;
	case CONFIG_CPUSET:
		return !units_cpuset_empty(&c->limits.cpuset);
	default:
		config_init(&d);
		return *config_cu64(c, k) != *config_cu64(&d, k);
	}
}

/* The values of a repeatable key, separated by spaces, or "unset". */
static void config_format_list(char *const *v, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used + 1 < len; i++)
		used = config_append(buf, len, used, "%s%s", i ? " " : "", v[i]);
	if (n == 0)
		snprintf(buf, len, "unset");
}

void config_format(const struct config *c, const struct config_key *k, char *buf, size_t len)
{
	const char *s;

	switch (k->type) {
	case CONFIG_DURATION:
		units_format_duration(*config_cu64(c, k), buf, len);
		break;
	case CONFIG_SIZE:
		units_format_size(*config_cu64(c, k), buf, len);
		break;
	case CONFIG_COUNT:
		if (*config_cu64(c, k) == UNITS_UNLIMITED)
			snprintf(buf, len, "unlimited");
		else
			snprintf(buf, len, "%llu", (unsigned long long)*config_cu64(c, k));
		break;
	case CONFIG_CPUS:
		units_format_cpus(*config_cu64(c, k), buf, len);
		break;
	case CONFIG_CPUSET:
		units_format_cpuset(&c->limits.cpuset, buf, len);
		if (!buf[0])
			snprintf(buf, len, "any");
		break;
	case CONFIG_PATH:
	case CONFIG_USER:
	case CONFIG_GROUP:
		s = *(char *const *)(const void *)((const char *)c + k->offset);
		snprintf(buf, len, "%s", s ? s : "unset");
		break;
	case CONFIG_MODE:
		snprintf(buf, len, "%04o", (unsigned)c->dir_mode);
		break;
	case CONFIG_BOOL:
		snprintf(buf, len, "%s",
			 *(const int *)(const void *)((const char *)c + k->offset) ? "true" : "false");
		break;
	case CONFIG_CGROUP:
		snprintf(buf, len, "%s",
			 cgroup_mode_name(*(const int *)(const void *)((const char *)c + k->offset)));
		break;
	case CONFIG_ENV:
		config_format_list(c->env, c->n_env, buf, len);
		break;
	case CONFIG_BINDS:
		config_format_list(config_clst(c, k)->v, config_clst(c, k)->n, buf, len);
		break;
	}
}

void config_source_text(const struct config_source *s, char *buf, size_t len)
{
	switch (s->origin) {
	case CONFIG_DEFAULT:
		snprintf(buf, len, "default");
		break;
	case CONFIG_CMDLINE:
		snprintf(buf, len, "command line");
		break;
	case CONFIG_FILE:
		if (s->profile[0])
			snprintf(buf, len, "%s:%u [%s]", s->file, s->line, s->profile);
		else
			snprintf(buf, len, "%s:%u", s->file, s->line);
		break;
	}
}

/* stderr_to_stdout gives standard error no destination nor count of its
 * own: a key that would is a contradiction, said with where both came from. */
static int config_validate_stderr(const struct config *c, char *err, size_t errlen)
{
	const char *other = c->stderr_path			      ? "stderr"
			    : c->limits.stderr_limit != UNITS_UNLIMITED ? "stderr_limit"
									: NULL;
	char s1[300], s2[300];

	if (!c->stderr_to_stdout || !other)
		return 0;
	config_source_text(&c->source[config_key_index(config_key_find("stderr_to_stdout"))], s1,
			   sizeof s1);
	config_source_text(&c->source[config_key_index(config_key_find(other))], s2, sizeof s2);
	snprintf(err, errlen,
		 "stderr_to_stdout (%s) and %s (%s): with stderr_to_stdout standard error goes "
		 "where standard output goes and counts in stdout_limit; give one of them",
		 s1, other, s2);
	return -1;
}

int config_validate(const struct config *c, char *err, size_t errlen)
{
	if (config_validate_stderr(c, err, errlen) < 0)
		return -1;
	if (c->limits.memory_high != UNITS_UNLIMITED && c->limits.memory_max != UNITS_UNLIMITED &&
	    c->limits.memory_high > c->limits.memory_max) {
		char hi[32], max[32], s1[300], s2[300];

		units_format_size(c->limits.memory_high, hi, sizeof hi);
		units_format_size(c->limits.memory_max, max, sizeof max);
		config_source_text(&c->source[config_key_index(config_key_find("memory_high"))], s1,
				   sizeof s1);
		config_source_text(&c->source[config_key_index(config_key_find("memory_max"))], s2,
				   sizeof s2);
		snprintf(err, errlen,
			 "memory_high = %s (%s) is above memory_max = %s (%s): the soft limit "
			 "must not exceed the hard one",
			 hi, s1, max, s2);
		return -1;
	}
	return 0;
}

/* --- the file --- */

struct ini_entry {
	char *section;
	char *key;
	char *value;
	unsigned line;
};

struct ini_state {
	FILE *f;
	unsigned line;
	unsigned long_line; /* first line longer than inih reads at once */
	unsigned nul_line;  /* first line with a NUL byte, which inih would cut */
	int read_errno;     /* the file could not be read (a directory: EISDIR) */
	struct ini_entry *v;
	size_t n, cap;
};

/* inih as Debian builds it does not pass line numbers to the handler: count
 * them here, since the handler runs right after its line was read. */
static char *config_reader(char *str, int num, void *stream)
{
	struct ini_state *st = stream;
	int c = EOF, n = 0;

	/* fgets, but one that sees a NUL byte in the line. */
	while (n < num - 1 && (c = getc(st->f)) != EOF) {
		str[n++] = (char)c;
		if (c == '\0' && !st->nul_line)
			st->nul_line = st->line + 1;
		if (c == '\n')
			break;
	}
	if (c == EOF && ferror(st->f))
		st->read_errno = errno;
	if (n == 0)
		return NULL;
	str[n] = '\0';
	st->line++;
	if (str[n - 1] != '\n' && c != EOF && !st->long_line) {
		/* Cut at num - 1 bytes, unless that was the end of the file. */
		c = getc(st->f);
		if (c != EOF)
			st->long_line = st->line;
		ungetc(c, st->f);
	}
	return str;
}

static int config_handler(void *user, const char *section, const char *name, const char *value)
{
	struct ini_state *st = user;
	struct ini_entry *e;
	size_t n = strlen(value);

	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 32;
		st->v = xreallocarray(st->v, st->cap, sizeof *st->v);
	}
	e = &st->v[st->n++];
	e->section = xstrdup(section);
	e->key = xstrdup(name);
	/* "12 GiB" as the seed documents wrote it: quotes are a convenience. */
	if (n >= 2 && value[0] == '"' && value[n - 1] == '"') {
		e->value = xstrdup(value + 1);
		e->value[n - 2] = '\0';
	} else {
		e->value = xstrdup(value);
	}
	e->line = st->line;
	return 1;
}

static void config_free_entries(struct ini_state *st)
{
	for (size_t i = 0; i < st->n; i++) {
		free(st->v[i].section);
		free(st->v[i].key);
		free(st->v[i].value);
	}
	free(st->v);
}

/* The entry that names profile p's parent, or NULL. */
static const struct ini_entry *config_inherit_of(const struct ini_state *st, const char *p)
{
	const struct ini_entry *found = NULL;

	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->v[i].section, p) == 0 && strcmp(st->v[i].key, "inherit") == 0)
			found = &st->v[i];
	return found;
}

static int config_has_profile(const struct ini_state *st, const char *p)
{
	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->v[i].section, p) == 0)
			return 1;
	return 0;
}

static void config_list_profiles(const struct ini_state *st, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < st->n && used + 1 < len; i++) {
		const char *p = st->v[i].section;
		int seen = 0;

		if (!p[0])
			continue;
		for (size_t j = 0; j < i; j++)
			if (strcmp(st->v[j].section, p) == 0)
				seen = 1;
		if (!seen)
			used = config_append(buf, len, used, "%s%s", used ? ", " : "", p);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

static void config_list_keys(char *buf, size_t len)
{
	size_t used = 0;

	for (const struct config_key *k = config_keys; k->name && used + 1 < len; k++)
		used = config_append(buf, len, used, "%s, ", k->name);
	config_append(buf, len, used, "inherit (in a profile)");
}

/* Every line is checked, for every profile: a typo in [java] is an error when
 * running [c] too. */
static int config_check_entries(const struct ini_state *st, const char *file, char *err,
				size_t errlen)
{
	for (size_t i = 0; i < st->n; i++) {
		const struct ini_entry *e = &st->v[i];
		const struct config_key *k;
		struct config scratch;
		const char *why;

		/* A section that comes back after another one was split. */
		if (i > 0 && strcmp(st->v[i - 1].section, e->section) != 0) {
			for (size_t j = 0; j < i; j++) {
				if (strcmp(st->v[j].section, e->section) == 0) {
					snprintf(err, errlen,
						 "%s:%u: [%s] appears a second time; put each "
						 "profile's keys in one section",
						 file, e->line, e->section);
					return -1;
				}
			}
		}
		if (strcmp(e->key, "inherit") == 0) {
			if (!e->section[0]) {
				snprintf(err, errlen,
					 "%s:%u: inherit = %s: inherit belongs in a [profile], "
					 "not before the first section",
					 file, e->line, e->value);
				return -1;
			}
			if (!config_has_profile(st, e->value)) {
				char profiles[512];

				config_list_profiles(st, profiles, sizeof profiles);
				snprintf(err, errlen,
					 "%s:%u: inherit = %s: no such profile (profiles: %s)", file,
					 e->line, e->value, profiles);
				return -1;
			}
			continue;
		}
		k = config_key_find(e->key);
		if (!k || strchr(e->key, '-')) {
			char keys[1024];

			config_list_keys(keys, sizeof keys);
			snprintf(err, errlen, "%s:%u: unknown key \"%s\" (keys: %s)", file, e->line,
				 e->key, keys);
			return -1;
		}
		config_init(&scratch);
		why = config_set(&scratch, k, e->value, NULL);
		config_free(&scratch);
		if (why) {
			snprintf(err, errlen, "%s:%u: %s = %s: %s", file, e->line, e->key, e->value,
				 why);
			return -1;
		}
	}
	return 0;
}

static void config_apply_section(struct config *c, const struct ini_state *st, const char *file,
				 const char *section)
{
	for (size_t i = 0; i < st->n; i++) {
		const struct ini_entry *e = &st->v[i];
		struct config_source src = {.origin = CONFIG_FILE, .file = file, .line = e->line};

		if (strcmp(e->section, section) != 0 || strcmp(e->key, "inherit") == 0)
			continue;
		strlcpy(src.profile, section, sizeof src.profile);
		config_set(c, config_key_find(e->key), e->value, &src);
	}
}

/* Read and parse file into st (memset to 0 by the caller; its entries are
 * the caller's to free, also on failure). Returns 0, or -1 with err. */
static int config_read_file(struct ini_state *st, const char *file, char *err, size_t errlen)
{
	int rc;

	st->f = fopen(file, "re");
	if (!st->f) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -1;
	}
	rc = ini_parse_stream(config_reader, st, config_handler, st);
	fclose(st->f);
	if (st->read_errno) {
		snprintf(err, errlen, "%s: cannot read it: %s", file, strerror(st->read_errno));
		return -1;
	}
	if (st->nul_line && (rc == 0 || (unsigned)rc >= st->nul_line) &&
	    (!st->long_line || st->nul_line <= st->long_line)) {
		snprintf(err, errlen, "%s:%u: a NUL byte in the line (the file must be text)", file,
			 st->nul_line);
		return -1;
	}
	if (st->long_line && (rc == 0 || (unsigned)rc > st->long_line)) {
		snprintf(err, errlen, "%s:%u: line too long (at most %d characters)", file,
			 st->long_line, INI_MAX_LINE - 2);
		return -1;
	}
	if (rc != 0) {
		snprintf(err, errlen,
			 rc > 0 ? "%s:%d: syntax error: expected [profile], key = value, or a "
				  "comment starting with ; or #"
				: "%s: cannot read the file (%d)",
			 file, rc);
		return -1;
	}
	return 0;
}

int config_load(struct config *c, const char *file, const char *profile, char *err,
		size_t errlen)
{
	struct ini_state st;
	const char *chain[64];
	size_t depth = 0;

	memset(&st, 0, sizeof st);
	if (config_read_file(&st, file, err, errlen) < 0)
		goto fail;
	if (config_check_entries(&st, file, err, errlen) < 0)
		goto fail;

	if (!profile && config_has_profile(&st, "default"))
		profile = "default";
	if (profile && !config_has_profile(&st, profile)) {
		char profiles[512];

		config_list_profiles(&st, profiles, sizeof profiles);
		snprintf(err, errlen, "%s: no profile [%s] (profiles: %s)", file, profile, profiles);
		goto fail;
	}
	/* The chain: the profile, its parent, ..., the farthest ancestor. */
	for (const char *p = profile; p;) {
		const struct ini_entry *up;

		for (size_t i = 0; i < depth; i++) {
			if (strcmp(chain[i], p) == 0) {
				char path[1024];
				size_t used = 0;

				for (size_t j = i; j < depth; j++)
					used = config_append(path, sizeof path, used, "%s -> ",
							     chain[j]);
				config_append(path, sizeof path, used, "%s", p);
				up = config_inherit_of(&st, chain[depth - 1]);
				snprintf(err, errlen, "%s:%u: inherit cycle: %s", file,
					 up ? up->line : 0, path);
				goto fail;
			}
		}
		if (depth == sizeof chain / sizeof chain[0]) {
			snprintf(err, errlen, "%s: profiles inherit more than %zu deep", file,
				 depth);
			goto fail;
		}
		chain[depth++] = p;
		up = config_inherit_of(&st, p);
		p = up ? up->value : NULL;
	}
	config_apply_section(c, &st, file, "");
	while (depth > 0)
		config_apply_section(c, &st, file, chain[--depth]);
	config_free_entries(&st);
	return 0;
fail:
	config_free_entries(&st);
	return -1;
}

/* Whether --check shows key k: limits always, other keys when given. */
static int config_check_shows(const struct config *c, const struct config_key *k)
{
	return k->mechanism || k->needs_cgroups || config_is_set(c, k);
}

/* One cell of the --check table and the space up to the next column, which
 * starts at column next: a cell too long for its column ends its line, and
 * the next cell starts at its column on the line below. */
static void config_check_cell(FILE *out, const char *cell, size_t *col, size_t next)
{
	size_t n = strlen(cell);

	fputs(cell, out);
	*col += n;
	if (*col >= next) {
		fputc('\n', out);
		*col = 0;
	}
	for (; *col < next; (*col)++)
		fputc(' ', out);
}

/* Column widths: the longest value and source, from the old fixed widths up
 * to a cap past which a cell wraps (a long config path must not push the
 * last column out of line). */
#define CHECK_KEY_W 14
#define CHECK_VALUE_W 12
#define CHECK_VALUE_CAP 24
#define CHECK_FROM_W 32
#define CHECK_FROM_CAP 60

static void config_check_widths(const struct config *c, size_t *wv, size_t *wf)
{
	*wv = CHECK_VALUE_W;
	*wf = CHECK_FROM_W;
	for (const struct config_key *k = config_keys; k->name; k++) {
		char v[512], src[320];
		size_t n;

		if (!config_check_shows(c, k))
			continue;
		config_format(c, k, v, sizeof v);
		config_source_text(&c->source[config_key_index(k)], src, sizeof src);
		n = strlen(v);
		if (n > *wv && n <= CHECK_VALUE_CAP)
			*wv = n;
		n = strlen(src);
		if (n > *wf && n <= CHECK_FROM_CAP)
			*wf = n;
	}
}

void config_print_check(const struct config *c, FILE *out,
			void (*mechanism)(void *ctx, const struct config_key *k, char *buf, size_t len),
			void *ctx)
{
	size_t wv, wf, col;

	config_check_widths(c, &wv, &wf);
	col = 0;
	config_check_cell(out, "key", &col, CHECK_KEY_W + 1);
	config_check_cell(out, "value", &col, CHECK_KEY_W + 1 + wv + 1);
	config_check_cell(out, "from", &col, CHECK_KEY_W + 1 + wv + 1 + wf + 1);
	fprintf(out, "enforced by\n");
	for (const struct config_key *k = config_keys; k->name; k++) {
		char v[512], src[320], m[512];
		const char *how;

		if (!config_check_shows(c, k))
			continue;
		config_format(c, k, v, sizeof v);
		config_source_text(&c->source[config_key_index(k)], src, sizeof src);
		col = 0;
		config_check_cell(out, k->name, &col, CHECK_KEY_W + 1);
		config_check_cell(out, v, &col, CHECK_KEY_W + 1 + wv + 1);
		if (!k->mechanism && !k->needs_cgroups) {
			fprintf(out, "%s\n", src);
			continue;
		}
		config_check_cell(out, src, &col, CHECK_KEY_W + 1 + wv + 1 + wf + 1);
		how = "-";
		if (k->needs_cgroups && config_is_set(c, k)) {
			mechanism(ctx, k, m, sizeof m);
			how = m;
		} else if (k->mechanism && (config_is_set(c, k) || strcmp(k->name, "grace") == 0)) {
			how = k->mechanism;
		}
		fprintf(out, "%s\n", how);
	}
}
