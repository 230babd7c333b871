// SPDX-License-Identifier: ISC
// Starting the program: clone3 with a pidfd, and the child's set-up up to execve.
#ifndef PROCTOR_SPAWN_H
#define PROCTOR_SPAWN_H

#include <sched.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "box.h"
#include "identity.h"
#include "sblimits.h"
#include "status.h"
#include "sysfilter.h"

/* Where the program runs: a new PID namespace whose init (PID 1) is
 * proctord's code and dies with it, made by root, or by anybody else in a
 * user namespace that maps only their own ids; or none (the program is
 * proctord's child, and may outlive a SIGKILLed proctord). */
enum spawn_pidns {
	SPAWN_PIDNS_NONE,
	SPAWN_PIDNS,
	SPAWN_PIDNS_USER,
	/* Root's box without --user: a user namespace whose uid and gid 0
	 * are map_uid and map_gid of the host (nobody's), which proctord
	 * writes; so nothing the program makes or touches is root's. */
	SPAWN_PIDNS_USER_ROOT,
};

struct spawn_config {
	char *const *argv;
	char **envp;
	const char *stdin_path;  /* NULL: inherit, or /dev/null with null_stdio */
	const char *stdout_path;
	const char *stderr_path;
	/* A descriptor to use as it is instead of a path (an inherited
	 * /dev/fd/N, or the pipe of an output limit); -1 if none. */
	int stdin_fd, stdout_fd, stderr_fd;
	/* The destination proctord opened for the stream failed with this
	 * errno: the child reports it as "failed stdout" or "failed stderr". */
	int stdout_err, stderr_err;
	int null_stdio;
	int stderr_to_stdout; /* descriptor 2 is a copy of 1, once 1 is set up */
	/* In a box: the path of stdin, stdout, stderr lies where the program
	 * could have made it (box_reaches): a FIFO there is refused. */
	int stdio_reached[3];
	const char *chdir;
	const struct limits *limits;
	/* RLIMIT_NPROC of the program, set only where it runs in a user
	 * namespace of its own: the kernel counts there the namespace's
	 * processes and threads of its uid, the init's included, and nothing
	 * of the host's. 0: none. */
	uint64_t nproc;
	int nice; /* the program's nice value (proctord may run at a higher priority) */
	/* cgroups: the v2 directory to start in (CLONE_INTO_CGROUP), -1 for
	 * none; cgroup_procs_fd/path is its cgroup.procs, joined by the child
	 * when the kernel cannot clone into it. The child joins the others
	 * (v1 hierarchies) itself, before anything else. */
	int cgroup_fd;
	int cpu_in_v2; /* the CPU figure is cgroup_fd's (the set-up baseline) */
	int cgroup_procs_fd;
	const char *cgroup_path;
	const int *join_fds;
	const char *const *join_paths;
	size_t n_join;
	/* --cpuset without a cpuset cgroup: the CPUs the child pins itself
	 * to as it joins the cgroups (inherited by all it starts); NULL. */
	const cpu_set_t *affinity;
	const struct identity *identity;
	const struct sysfilter *filter; /* NULL: no system call filter */
	int filter_sock; /* the child's end of the socket for the filter's listener */
	/* 0, or the descriptor + 1 of the terminal whose foreground group
	 * the program's process group becomes (proctord checked that it is
	 * one, and that proctord's group holds it now). */
	int tty_foreground;
	/* The box (box.c), or NULL: its init builds the root before it starts
	 * the program, after opening the program's stdio on the host's paths.
	 * A box needs the PID namespace (pidns_required). */
	const struct box *box;
	enum spawn_pidns pidns; /* asked for (spawn_pidns_wanted) */
	uid_t map_uid;          /* SPAWN_PIDNS_USER_ROOT: the host's ids of uid and gid 0 */
	gid_t map_gid;
	int pidns_required;     /* no namespace is an error, not a fall back to none */
	/* Called before the program is started without the namespace asked
	 * for (the fall back), while no process of the sandbox exists yet:
	 * limits set for a tree with an init are set again for one without.
	 * A return below 0 fails the start (errno says why). */
	int (*pidns_fallback)(void *ctx);
	void *pidns_fallback_ctx;
};

/* A spawn_config with no descriptors given: set the fields above to -1. */
void spawn_config_init(struct spawn_config *c);

/* One resource limit of the program, set between clone and execve. */
struct spawn_rlimit {
	int resource;
	uint64_t soft, hard; /* UNITS_UNLIMITED: RLIM_INFINITY */
	const char *name;    /* "RLIMIT_NOFILE": what the child's failure names */
	const char *key;     /* the configuration's key ("nofile"), for proctord's refusal */
	int userns_only;     /* set only in a user namespace of the program's own */
};
#define SPAWN_MAX_RLIMITS 7

/* One of the program's stdin, stdout, stderr (see spawn_config). */
struct spawn_stdio {
	const char *path;
	int fd;
	int err;
	int reached;
};

/* Everything the child and the init read, resolved and checked by
 * proctord before the clone (spawn_plan_build): what the child has left to
 * do is what only it can do (open its stdio with the program's rights, join
 * its cgroups, its namespaces and mounts, its ids, execve), with no
 * file-level variable and nothing to look up. */
struct spawn_plan {
	/* The caller's configuration, by value. Its pointers into the
	 * caller's memory (identity, limits, affinity) are NULL here: the
	 * copies below stand for them. box is NULL without an active box. */
	struct spawn_config c;
	struct spawn_stdio stdio[3];
	int null_fd; /* /dev/null, read-write, opened by proctord */
	struct spawn_rlimit rlimits[SPAWN_MAX_RLIMITS];
	size_t n_rlimits;
	int pin; /* sched_setaffinity(affinity) as it joins the cgroups */
	cpu_set_t affinity;
	struct identity iso; /* the ids, the session, the namespaces outside a box */
	/* SPAWN_PIDNS_USER: the lines the init writes to its own uid_map and
	 * gid_map (proctord's ids, each to itself). */
	char uid_map[32], gid_map[32];
	/* The text of proctord's arguments, which the init overwrites
	 * (title_init_process). */
	char *title_args;
	size_t title_len;
};

/* Resolve c into p, in proctord: the limits as the setrlimit calls they
 * become, each checked against what the program can be given (a hard limit
 * above proctord's own that the child could not raise, RLIMIT_NOFILE above
 * fs.nr_open), --unshare-net and --unshare-ipc against proctord's
 * privileges, /dev/null opened, the namespace's maps written out. Returns 0,
 * or -1 with a one-line reason in err (nothing left open). */
int spawn_plan_build(struct spawn_plan *p, const struct spawn_config *c, char *err, size_t errlen);
void spawn_plan_free(struct spawn_plan *p);

/* The pure parts of spawn_plan_build, for the unit tests. */
/* The program's rlimits from l, in the order they are set (RLIMIT_NPROC
 * first, only in its user namespace, with nproc; then RLIMIT_CORE 0, and
 * those of l that are not unlimited). Returns how many (at most
 * SPAWN_MAX_RLIMITS). */
size_t spawn_plan_rlimits(struct spawn_rlimit *out, const struct limits *l, uint64_t nproc);
/* Whether the program can be given rl: a hard limit above proctord's own
 * (cur_hard[i] for rl[i]; UNITS_UNLIMITED for none) only if can_raise (the
 * child keeps CAP_SYS_RESOURCE: not so in a user namespace), RLIMIT_NOFILE
 * never above nr_open (0: unknown). why says why it cannot raise one.
 * Returns 0, or -1 with a one-line reason in err. */
int spawn_plan_check_rlimits(const struct spawn_rlimit *rl, size_t n, const uint64_t *cur_hard,
			     int can_raise, uint64_t nr_open, const char *why, char *err,
			     size_t errlen);

struct spawn_child {
	pid_t pid;
	int pidfd; /* -1 where the kernel gives none */
	int errfd; /* read end of the set-up error pipe, non-blocking */
	/* With a PID namespace, pid is its init's (the program's process
	 * group is the init's too), and the program's end comes on statusfd
	 * (non-blocking; -1 without a namespace). */
	int statusfd;
	enum spawn_pidns pidns; /* what it got */
	int pidns_err;          /* why the namespace asked for was not made, or 0 */
	/* SPAWN_PIDNS_USER_ROOT was asked for, a plain PID namespace made
	 * (uid 0 is the host's): why (ENOSYS: no clone3, as under valgrind). */
	int root_map_err;
};

/* The program's end, from the init: its wait status and its rusage (with
 * what it waited for). */
struct spawn_status {
	int wstatus;
	struct rusage ru;
};

/* The namespace proctord asks for, by its privileges. */
enum spawn_pidns spawn_pidns_wanted(void);
/* Whether that namespace can be made here (--check): 0, or the errno. */
int spawn_pidns_probe(enum spawn_pidns ns);
/* --unshare-net and --unshare-ipc outside a box (box: --box given): the
 * child unshares them itself, which only root (CAP_SYS_ADMIN) can do.
 * Returns 0, or -1 with why in err, as a start (and --check) refuses it. */
int spawn_unshare_refused(int box, int net, int ipc, char *err, size_t errlen);

/* Start the program as p says. Returns 0, or -1 with errno set (fork
 * failed, or the namespace was required and could not be made:
 * out->pidns_err). */
int spawn_start(const struct spawn_plan *p, struct spawn_child *out);

/* The CPU time the set-up took before the program's execve, which the
 * figures leave out (measure.h): the init's and the program's own clocks,
 * read by the init while the program waits at its execve. cg_ns is what of
 * it the sandbox's cgroup counted (the init's time after it joined, the
 * program's all); all_ns the whole (what the rusage and /proc count). */
struct spawn_baseline {
	int known; /* 0: none came (no init, or the set-up failed) */
	uint64_t cg_ns, all_ns;
};

/* Read the child's set-up report: 1 if it failed (o filled in as a
 * "failed STAGE" outcome), 0 if it reached execve (EOF), -1 if nothing is
 * there yet. The init's baseline, which comes first on the same pipe, is
 * stored in *base when read. */
int spawn_read_failure(int errfd, struct outcome *o, struct spawn_baseline *base);

/* Read the init's report of the program's end: 1 if there, 0 if the init
 * ended without one (EOF), -1 if nothing is there yet. */
int spawn_read_status(int statusfd, struct spawn_status *st);

#endif
