// SPDX-License-Identifier: ISC
// The configuration: built-in defaults, proctor.conf profiles and options, and where each value came from.
#ifndef PROCTOR_CONFIG_H
#define PROCTOR_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "sblimits.h"

enum config_type {
	CONFIG_DURATION,
	CONFIG_SIZE,
	CONFIG_COUNT,
	CONFIG_CPUS,
	CONFIG_CPUSET, /* a CPU list, struct units_cpuset */
	CONFIG_PATH,
	CONFIG_MODE,
	CONFIG_BOOL,
	CONFIG_ENV,
	CONFIG_CGROUP, /* enum cg_mode */
	CONFIG_USER,  /* a user name or uid, checked against the user database */
	CONFIG_GROUP, /* a group name or gid */
	CONFIG_BINDS, /* SRC[:DST], repeatable (struct config_list) */
};

enum config_origin {
	CONFIG_DEFAULT,
	CONFIG_FILE,
	CONFIG_CMDLINE,
};

struct config_source {
	enum config_origin origin;
	const char *file;  /* CONFIG_FILE: the file's name as given */
	unsigned line;
	char profile[64];  /* "" for the global keys */
};

struct config_key {
	const char *name;      /* "memory_max"; the option is "--memory-max" */
	enum config_type type;
	size_t offset;         /* into struct config */
	const char *arg;       /* "SIZE", for --help */
	const char *mechanism; /* what enforces it (NULL: not a limit, or a cgroup's) */
	int needs_cgroups;     /* enforced by a cgroup, when there is one */
};

/* Keys, in the order --check prints them; terminated by a NULL name. */
extern const struct config_key config_keys[];
#define CONFIG_MAX_KEYS 48

/* A repeatable key's values, in order. */
struct config_list {
	char **v;
	size_t n;
};

struct config {
	struct limits limits;
	char *dir;
	mode_t dir_mode;
	char *stdin_path, *stdout_path, *stderr_path;
	int stderr_to_stdout; /* descriptor 2 is a copy of descriptor 1 */
	char *chdir;
	char *report;
	int clear_env;
	int cgroup_mode; /* enum cg_mode */
	int strict;
	/* The program's identity and isolation (identity.c, sysfilter.c). */
	char *user, *group;
	int no_root;
	int new_session;
	int unshare_net, unshare_ipc;
	int seccomp, seccomp_errno;
	char **env; /* --env / env = arguments in order */
	size_t n_env;
	/* The box (box.c): its directory, its /tmp, more of the host in it. */
	char *box;
	uint64_t tmp_size;
	struct config_list ro_bind, bind, dev_bind;
	struct config_list box_omit; /* paths the box leaves out (--box-omit) */
	int share_net;
	int loopback; /* the box's own network: its loopback up */
	struct config_source source[CONFIG_MAX_KEYS];
};

/* A decimal uid or gid, as the keys user and group take it (digits only,
 * below 2^32 - 1). Returns 0, or -1. */
int config_parse_id(const char *s, uint32_t *out);

void config_init(struct config *c);
void config_free(struct config *c);

/* "memory_max" or "memory-max"; NULL if there is no such key. */
const struct config_key *config_key_find(const char *name);
size_t config_key_index(const struct config_key *k);

/* Parse value for key k into c and record where it came from. Returns NULL,
 * or a text saying what is wrong and what is accepted. */
const char *config_set(struct config *c, const struct config_key *k, const char *value,
		       const struct config_source *src);

/* Read FILE (INI) and apply the global keys, then profile's chain of
 * inherited profiles, farthest first, then the profile itself. profile NULL:
 * "default" if the file has it. Every line of the file is checked, whatever
 * the profile. Returns 0, or -1 with "FILE:LINE: ..." in err. */
int config_load(struct config *c, const char *file, const char *profile, char *err,
		size_t errlen);

/* Checks across keys (memory_high <= memory_max). Returns 0 or -1 with err. */
int config_validate(const struct config *c, char *err, size_t errlen);

/* The value of key k as text ("2.000s", "256MiB", "unlimited", "unset"). */
void config_format(const struct config *c, const struct config_key *k, char *buf, size_t len);
/* Whether key k holds anything but its built-in default. */
int config_is_set(const struct config *c, const struct config_key *k);
/* "default", "FILE:LINE [profile]" or "command line". */
void config_source_text(const struct config_source *s, char *buf, size_t len);

/* The --check table of keys; mechanism() says what enforces a cgroup key. */
void config_print_check(const struct config *c, FILE *out,
			void (*mechanism)(void *ctx, const struct config_key *k, char *buf, size_t len),
			void *ctx);

#endif
