// SPDX-License-Identifier: ISC
// Cgroup discovery as pure functions: the text of /proc/self/mountinfo and
// /proc/self/cgroup in, the hierarchies proctord is in out. No I/O here.
#ifndef PROCTOR_CGDISCOVER_H
#define PROCTOR_CGDISCOVER_H

#include <stddef.h>

/* A cgroup or cgroup2 mount: the cgroup shown at its root (not "/" in a
 * cgroup namespace or a bind mount), where it is mounted, its options. */
struct cgd_mount {
	int version; /* 1 or 2 */
	char root[512], point[512], opts[256];
};

/* A hierarchy proctord is in, found by cgd_match. */
struct cgd_hier {
	int version;    /* 1 or 2 */
	char ctrls[96]; /* v1: the hierarchy's controllers ("cpu,cpuacct"); v2: "" */
	char *parent;   /* proctord's cgroup directory in it (malloc'd) */
};

/* Whether the word w is in the space- or comma-separated list. */
int cgd_has_word(const char *list, const char *w);
/* Undo mountinfo's octal escapes (\040 for a space) in place. */
void cgd_unescape(char *s);
/* The cgroup and cgroup2 mounts of mountinfo text (cut up in place), at most
 * max of them, in their order. */
size_t cgd_parse_mountinfo(char *text, struct cgd_mount *mv, size_t max);
/* The directory of cgroup path (as /proc/PID/cgroup gives it) under mount
 * m (malloc'd); NULL if that mount does not show it. */
char *cgd_dir_under(const struct cgd_mount *m, const char *path);
/* The hierarchies of /proc/PID/cgroup text (cut up in place) that serve a
 * controller proctord uses (v2 always; v1 memory, pids, cpu, cpuacct,
 * freezer, cpuset) and that one of the nm mounts shows: at most max, in the text's
 * order, each under the first such mount. Returns how many. */
size_t cgd_match(char *proc_cgroup, const struct cgd_mount *mv, size_t nm, struct cgd_hier *out,
		 size_t max);
/* Whether a mount's root (struct cgd_mount root) lies outside the reader's
 * cgroup namespace ("/.." or below it): a mount made before the namespace,
 * where the reader's own cgroup cannot be found; a fresh mount inside the
 * namespace shows it. */
int cgd_outside_ns(const char *root);
/* Whether /proc/PID/uid_map text is the initial user namespace's (every uid
 * mapped to itself): 0 in a user namespace, where owning a cgroup is what
 * delegation means. */
int cgd_uidmap_initial(const char *uid_map);

#endif
