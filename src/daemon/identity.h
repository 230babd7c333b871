// SPDX-License-Identifier: ISC
// The program's identity and namespaces: user and group, session, network and IPC isolation.
#ifndef PROCTOR_IDENTITY_H
#define PROCTOR_IDENTITY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct config;

/* What the child does to itself before execve, resolved before it starts. */
struct identity {
	int set_uid, set_gid; /* switch to uid / gid, supplementary groups cleared */
	uid_t uid;
	gid_t gid;
	int new_session;      /* setsid() rather than setpgid() */
	int unshare_net;      /* a network namespace of its own: only a loopback, down */
	int unshare_ipc;      /* System V IPC and POSIX message queues of its own */
};

/* Whether proctord takes root's ways: uid 0 with CAP_SYS_ADMIN, CAP_SETUID,
 * CAP_SETGID and CAP_CHOWN in its effective set (in a user namespace, only
 * for the ids it maps). Otherwise (any other uid, a container's root
 * without CAP_SYS_ADMIN) it takes the rootless ones: the program in a user
 * namespace of its own mapping proctord's ids only. */
int identity_root(void);
/* Whether every capability of mask (IDENTITY_BIT(CAP_...) ored) is in
 * proctord's effective set. */
#define IDENTITY_BIT(c) ((uint64_t)1 << (c))
int identity_has_caps(uint64_t mask);
/* Whether proctord's user namespace is the host's (its uid_map the
 * identity; an unreadable one is taken for it). */
int identity_host_userns(void);
/* Why proctord does or does not take root's ways, for a message. */
void identity_root_why(char *buf, size_t len);

/* Resolve the configuration's user and group and check what needs root.
 * Returns 0, or -1 with a one-line reason in err. */
int identity_prepare(struct identity *i, const struct config *c, char *err, size_t errlen);

/* Child side: each returns 0, or -1 with errno set and *what naming the step. */

/* Its own process group, and with new_session its own session. */
int identity_child_session(const struct identity *i, const char **what);
/* New network and IPC namespaces (needs CAP_SYS_ADMIN, so before the ids). */
int identity_child_namespaces(const struct identity *i, const char **what);
/* Drop supplementary groups, then switch gid, then uid (the last thing that
 * needs root). */
int identity_child_ids(const struct identity *i, const char **what);

/* Root's box whose program would be uid 0 (no --user, or --user 0): its
 * uid and gid 0 are a user namespace's, mapped to the host's nobody and
 * nogroup, or --group's gid if it names another (their ids in *uid and
 * *gid, 65534 where the names are missing), so that nothing the program
 * makes or touches is root's on the host. It takes CAP_SETUID, CAP_SETGID
 * and CAP_CHOWN (not CAP_SYS_ADMIN), and both ids mapped in proctord's user
 * namespace. Returns 1 if so, 0 otherwise (*uid and *gid untouched). */
int identity_box_root(const struct identity *i, int box, uid_t *uid, gid_t *gid);

#endif
