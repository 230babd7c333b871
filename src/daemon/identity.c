// SPDX-License-Identifier: ISC
// The program's identity and namespaces: user and group, session, network and IPC isolation
// (struct identity, identity_*).
//
// The child calls these between clone and execve, so they make system calls
// only. Names are looked up in proctord beforehand: NSS may load modules and
// open sockets, which has no place in a half-made child.
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgdiscover.h"
#include "config.h"
#include "identity.h"

/* Whether each capability of the mask (bits below 64) is in proctord's
 * effective set. */
int identity_has_caps(uint64_t mask)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	uint64_t eff;

	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) < 0)
		return 0;
	eff = (uint64_t)d[0].effective | (uint64_t)d[1].effective << 32;
	return (eff & mask) == mask;
}

/* What root's ways take: ids for the program and its box's uid 0 mapped to
 * nobody, DIR lent to that uid; namespaces and mounts without a user
 * namespace of the program's own. */
#define IDENTITY_MAP_CAPS                                                                          \
	(IDENTITY_BIT(CAP_SETUID) | IDENTITY_BIT(CAP_SETGID) | IDENTITY_BIT(CAP_CHOWN))
#define IDENTITY_ROOT_CAPS (IDENTITY_MAP_CAPS | IDENTITY_BIT(CAP_SYS_ADMIN))

/* Whether proctord's user namespace is the host's: uid 0 of any other one
 * (a rootless container's root, `unshare --user --map-root-user`) has its
 * capabilities over that namespace's own objects only, not the host's
 * mounts, and maps few uids. An unreadable map is taken for the host's. */
int identity_host_userns(void)
{
	char buf[256];
	FILE *f = fopen("/proc/self/uid_map", "re");
	size_t n;

	if (!f)
		return 1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return cgd_uidmap_initial(buf);
}

/* Whether id is mapped in proctord's user namespace (file: uid_map or
 * gid_map): root of a user namespace (a container's, `unshare --user
 * --map-root-user`) can take only those. An unreadable map is the host's. */
static int identity_mapped(const char *file, uint32_t id)
{
	char path[64];
	unsigned long inside, outside, count;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/self/%s", file);
	f = fopen(path, "re");
	if (!f)
		return 1;
	while (!found && fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3)
		found = id >= inside && id - inside < count;
	fclose(f);
	return found;
}

int identity_root(void)
{
	return geteuid() == 0 && identity_has_caps(IDENTITY_ROOT_CAPS);
}

void identity_root_why(char *buf, size_t len)
{
	if (geteuid() != 0)
		snprintf(buf, len, "proctord runs as uid %u", (unsigned)geteuid());
	else if (!identity_has_caps(IDENTITY_BIT(CAP_SYS_ADMIN)))
		snprintf(buf, len, "proctord is uid 0 without CAP_SYS_ADMIN");
	else if (!identity_has_caps(IDENTITY_MAP_CAPS))
		snprintf(buf, len, "proctord is uid 0 without CAP_SETUID, CAP_SETGID or CAP_CHOWN");
	else
		snprintf(buf, len, "proctord is root");
}

/* user or group set where proctord is not root: refused, saying where the
 * key came from and why it cannot be honoured, in a box too. */
static void identity_refuse_rootless(const struct config *c, uid_t euid, char *err, size_t errlen)
{
	const char *key = c->user ? "user" : "group";
	const char *value = c->user ? c->user : c->group;
	const struct config_source *src = &c->source[config_key_index(config_key_find(key))];
	char where[320], what[400], why[128];

	config_source_text(src, where, sizeof where);
	if (strcmp(where, "command line") == 0)
		snprintf(what, sizeof what, "--%s %s", key, value);
	else
		snprintf(what, sizeof what, "%s = %s (%s)", key, value, where);
	identity_root_why(why, sizeof why);
	if (!c->box) {
		snprintf(err, errlen,
			 "%s: only root can run the program as another %s (%s); remove user and "
			 "group for a proctord that is not root, or run it as root",
			 what, key, why);
		return;
	}
	/* A mapped uid in the box would only be a name: the program's files,
	 * signals and limits would still be those of proctord's uid. */
	snprintf(err, errlen,
		 "%s: only root can run the program as another %s (%s): "
		 "the user namespace of a box that is not root's maps one uid, proctord's own, "
		 "so its program is uid %u on the host whatever it is called inside; it "
		 "already has no capability and sees nothing of the host but the box; remove "
		 "user and group for a proctord that is not root, or run it as root",
		 what, key, why, (unsigned)euid);
}

/* --user or --group naming an id that proctord's user namespace does not
 * map (root of a user namespace maps few): refused, as setresuid would. */
static int identity_unmapped(const struct identity *i, const struct config *c, char *err,
			     size_t errlen)
{
	int uid_bad = i->set_uid && !identity_mapped("uid_map", i->uid);
	const char *opt = uid_bad || !c->group ? "user" : "group";

	if (!uid_bad && !(i->set_gid && !identity_mapped("gid_map", i->gid)))
		return 0;
	snprintf(err, errlen,
		 "--%s %s: %s %u is not mapped in proctord's user namespace (/proc/self/%s): only "
		 "the ids it maps can be taken",
		 opt, opt[0] == 'u' ? c->user : c->group, uid_bad ? "uid" : "gid",
		 uid_bad ? (unsigned)i->uid : (unsigned)i->gid, uid_bad ? "uid_map" : "gid_map");
	return -1;
}

int identity_prepare(struct identity *i, const struct config *c, char *err, size_t errlen)
{
	uid_t euid = geteuid();

	memset(i, 0, sizeof *i);
	/* A box's program never shares the caller's session: with a
	 * controlling terminal of the caller's, it could type into it
	 * (TIOCSTI, denied by the box's filter too) or take its foreground. */
	i->new_session = c->new_session || c->box;
	i->unshare_net = c->unshare_net;
	i->unshare_ipc = c->unshare_ipc;
	if ((c->user || c->group) && !identity_root()) {
		identity_refuse_rootless(c, euid, err, errlen);
		return -1;
	}
	if (c->user) {
		struct passwd *pw;
		uint32_t id;

		if (config_parse_id(c->user, &id) == 0) {
			pw = getpwuid((uid_t)id);
			i->uid = (uid_t)id;
		} else {
			pw = getpwnam(c->user);
			if (!pw) {
				snprintf(err, errlen, "--user %s: no such user", c->user);
				return -1;
			}
			i->uid = pw->pw_uid;
		}
		i->set_uid = 1;
		/* The user's own group, unless --group says otherwise; never
		 * proctord's (root's) group by default. */
		if (!c->group) {
			if (!pw) {
				snprintf(err, errlen,
					 "--user %s: uid %u has no entry in the user database, so "
					 "no group to go with it: give --group as well",
					 c->user, (unsigned)i->uid);
				return -1;
			}
			i->gid = pw->pw_gid;
			i->set_gid = 1;
		}
	}
	if (c->group) {
		uint32_t id;

		if (config_parse_id(c->group, &id) == 0) {
			i->gid = (gid_t)id;
		} else {
			struct group *gr = getgrnam(c->group);

			if (!gr) {
				snprintf(err, errlen, "--group %s: no such group", c->group);
				return -1;
			}
			i->gid = gr->gr_gid;
		}
		i->set_gid = 1;
	}
	if (identity_unmapped(i, c, err, errlen) < 0)
		return -1;
	if (c->no_root && (i->set_uid ? i->uid : euid) == 0) {
		snprintf(err, errlen,
			 "--no-root: the program would run as root; give --user with another user");
		return -1;
	}
	return 0;
}

int identity_child_session(const struct identity *i, const char **what)
{
	/* Its own process group either way: a terminal's ^C to proctord is not
	 * the program's, and proctord decides when it ends. A session of its
	 * own also leaves the caller's controlling terminal behind, so the
	 * program cannot push input into it with TIOCSTI. */
	if (i->new_session) {
		*what = "setsid";
		return setsid() < 0 ? -1 : 0;
	}
	*what = "setpgid";
	return setpgid(0, 0);
}

int identity_child_namespaces(const struct identity *i, const char **what)
{
	int flags = 0;

	/* A fresh network namespace holds one loopback interface, down: no
	 * address at all, so every connect() fails, 127.0.0.1 included. */
	if (i->unshare_net)
		flags |= CLONE_NEWNET;
	if (i->unshare_ipc)
		flags |= CLONE_NEWIPC;
	if (!flags)
		return 0;
	*what = i->unshare_net && i->unshare_ipc ? "unshare(CLONE_NEWNET | CLONE_NEWIPC)"
		: i->unshare_net		  ? "unshare(CLONE_NEWNET)"
						  : "unshare(CLONE_NEWIPC)";
	return unshare(flags);
}

int identity_child_ids(const struct identity *i, const char **what)
{
	if (!i->set_uid && !i->set_gid)
		return 0;
	/* Groups first, while still root: root's supplementary groups must not
	 * come along, and after setresuid nothing can be dropped any more. */
	*what = "setgroups";
	if (setgroups(0, NULL) < 0)
		return -1;
	if (i->set_gid) {
		*what = "setresgid";
		if (setresgid(i->gid, i->gid, i->gid) < 0)
			return -1;
	}
	if (i->set_uid) {
		/* All three ids: a saved uid of 0 would let it switch back. */
		*what = "setresuid";
		if (setresuid(i->uid, i->uid, i->uid) < 0)
			return -1;
	}
	return 0;
}

int identity_box_root(const struct identity *i, int box, uid_t *uid, gid_t *gid)
{
	const struct passwd *pw;
	const struct group *gr;
	uid_t u;
	gid_t g;

	/* Without CAP_SYS_ADMIN too (a container's root): mapping and lending
	 * take only the ids' capabilities, and ids its namespace maps. */
	if (!box || geteuid() != 0 || (i->set_uid && i->uid != 0) ||
	    !identity_has_caps(IDENTITY_MAP_CAPS))
		return 0;
	pw = getpwnam("nobody");
	u = pw ? pw->pw_uid : 65534;
	/* --group G (not 0) stands for gid 0 there. */
	if (i->set_gid && i->gid != 0) {
		g = i->gid;
	} else {
		gr = getgrnam("nogroup");
		if (!gr)
			gr = getgrnam("nobody");
		g = gr ? gr->gr_gid : 65534;
	}
	if (!identity_mapped("uid_map", u) || !identity_mapped("gid_map", g))
		return 0;
	*uid = u;
	*gid = g;
	return 1;
}
