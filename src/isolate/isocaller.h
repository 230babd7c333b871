// SPDX-License-Identifier: ISC
// The caller: root through sudo, or a member of one group through the set-user-ID bit; what it names, opened with its rights.
#ifndef PROCTOR_ISOCALLER_H
#define PROCTOR_ISOCALLER_H

#include <stddef.h>
#include <sys/types.h>

struct iso_caller {
	uid_t uid; /* the real uid: who ran us */
	gid_t gid;
	int setuid; /* set-user-ID root, run by another user than root */
};

/* Who runs us. In set-user-ID mode the effective gid becomes root's (what
 * we create is root's); nothing else changes yet. Returns 0, or -1 when we
 * are not root at all (err set). */
int iso_caller_init(struct iso_caller *c, char *err, size_t errlen);

/* In set-user-ID mode, whether the caller is in group (a name or a gid;
 * NULL or empty: none configured, which refuses every caller). 0 or -1
 * with err set. Root (sudo) always may. */
int iso_caller_allowed(const struct iso_caller *c, const char *group, const char *config,
		       char *err, size_t errlen);

/* open(2) with the caller's rights (its uid and gid as our effective
 * ones, with no capability; its groups are ours already): in sudo mode a
 * plain open. Returns the descriptor,
 * or -1 with errno. */
int iso_caller_open(const struct iso_caller *c, const char *path, int flags, mode_t mode);

/* A file we trust in set-user-ID mode (the configuration, proctord): it
 * and every directory above it root's, writable by no group or other
 * (a sticky directory of root's, /tmp, may be: others cannot replace
 * root's entries in it), no symbolic link on the way; all looked at with
 * root's eyes. With missing not NULL, the file itself may be missing
 * (*missing set then). 0, or -1 with err. */
int iso_caller_trusted(const char *path, int *missing, char *err, size_t errlen);

/* In the child that becomes proctord, in set-user-ID mode: root wholly
 * (real, effective and saved ids, no supplementary groups), the signal
 * mask and dispositions and the limits that could kill it reset, / as
 * the working directory. Returns 0, or -1 with errno. Nothing in sudo
 * mode. */
int iso_caller_become_root(const struct iso_caller *c);

#endif
