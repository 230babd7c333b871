// SPDX-License-Identifier: ISC
// The caller: root through sudo, or a member of one group through the set-user-ID bit; what it names, opened with its rights.
#include "isocaller.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "isobox.h"

int iso_caller_init(struct iso_caller *c, char *err, size_t errlen)
{
	c->uid = getuid();
	c->gid = getgid();
	c->setuid = 0;
	if (geteuid() != 0)
		return iso_box_fail(err, errlen,
				    "proctor-isolate must be run as root: through sudo, or installed "
				    "set-user-ID root for the group setuid_group names");
	if (c->uid == 0)
		return 0;
	c->setuid = 1;
	/* What we create (box_root, the boxes, the locks) is root's alone. */
	if (getegid() != 0 && setegid(0) < 0)
		return iso_box_fail(err, errlen, "Cannot switch to root's group: %s",
				    strerror(errno));
	return 0;
}

static int iso_caller_in_group(const struct iso_caller *c, gid_t g)
{
	gid_t *groups;
	int n, in = c->gid == g;

	n = getgroups(0, NULL);
	if (in || n <= 0)
		return in;
	groups = calloc((size_t)n, sizeof *groups);
	if (!groups)
		return 0;
	n = getgroups(n, groups);
	for (int i = 0; i < n && !in; i++)
		in = groups[i] == g;
	free(groups);
	return in;
}

int iso_caller_allowed(const struct iso_caller *c, const char *group, const char *config,
		       char *err, size_t errlen)
{
	struct group *gr;
	char *end;
	long id;

	if (!c->setuid)
		return 0;
	if (!group || !*group)
		return iso_box_fail(err, errlen,
				    "proctor-isolate is set-user-ID root, but %s names no "
				    "setuid_group: only root may use it",
				    config);
	errno = 0;
	id = strtol(group, &end, 10);
	gr = *end || end == group ? getgrnam(group) : NULL;
	if (*end || end == group) {
		if (!gr)
			return iso_box_fail(err, errlen, "%s: setuid_group %s: no such group",
					    config, group);
		id = gr->gr_gid;
	} else if (errno || id < 0 || id > INT_MAX) {
		return iso_box_fail(err, errlen, "%s: setuid_group %s: no such group", config,
				    group);
	}
	if (!iso_caller_in_group(c, (gid_t)id))
		return iso_box_fail(err, errlen,
				    "You (uid %u) are not in group %s, the only one that may use "
				    "proctor-isolate",
				    (unsigned)c->uid, group);
	return 0;
}

/* Our effective ids made the caller's (on) or root's again (off). Not the
 * file-system ids alone: those leave us CAP_SYS_PTRACE and the like, with
 * which /proc/PID/cwd, root and fd/N of any process (root's, another
 * caller's) would open as links to what the caller cannot reach; an
 * effective uid that is not 0 has no capability at all. Returns 0, or -1
 * when the kernel did not take them. */
static int iso_caller_ids(const struct iso_caller *c, int on)
{
	if (on)
		return setresgid((gid_t)-1, c->gid, (gid_t)-1) < 0 ||
			       setresuid((uid_t)-1, c->uid, (uid_t)-1) < 0
			   ? -1
			   : 0;
	return setresuid((uid_t)-1, 0, (uid_t)-1) < 0 || setresgid((gid_t)-1, 0, (gid_t)-1) < 0
		   ? -1
		   : 0;
}

int iso_caller_open(const struct iso_caller *c, const char *path, int flags, mode_t mode)
{
	int fd = -1, saved;

	if (!c->setuid)
		return open(path, flags, mode);
	if (iso_caller_ids(c, 1) == 0)
		fd = open(path, flags, mode);
	saved = errno;
	if (iso_caller_ids(c, 0) < 0 || geteuid() != 0 || getegid() != 0)
		abort(); /* never go on with the caller's rights half taken */
	errno = saved;
	return fd;
}

/* Root's, and writable by nobody else: a directory may be sticky. */
static int iso_caller_root_only(const struct stat *st)
{
	if (st->st_uid != 0)
		return 0;
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
		return 1;
	return !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int iso_caller_trusted(const char *path, int *missing, char *err, size_t errlen)
{
	char *copy, *part, *save = NULL;
	struct stat st;
	int fd, next, ok = 1;

	if (missing)
		*missing = 0;
	if (path[0] != '/')
		return iso_box_fail(err, errlen, "%s: not an absolute path", path);
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	copy = strdup(path);
	if (fd < 0 || !copy || fstat(fd, &st) < 0 || !iso_caller_root_only(&st)) {
		ok = 0;
	}
	for (part = copy ? strtok_r(copy, "/", &save) : NULL; ok && part;
	     part = strtok_r(NULL, "/", &save)) {
		next = openat(fd, part, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		/* The file alone missing, below directories only root may
		 * write: nobody else can put it there. */
		if (fd < 0 && errno == ENOENT && missing && !strtok_r(NULL, "/", &save)) {
			*missing = 1;
			break;
		}
		ok = fd >= 0 && fstat(fd, &st) == 0 && !S_ISLNK(st.st_mode) &&
		     iso_caller_root_only(&st);
	}
	free(copy);
	if (fd >= 0)
		close(fd);
	if (!ok)
		return iso_box_fail(err, errlen,
				    "%s: it and every directory above it must be root's and "
				    "writable by root alone (no symbolic link) for a set-user-ID "
				    "proctor-isolate to trust it",
				    path);
	return 0;
}

/* The limits a caller could have lowered to kill a root proctord at a bad
 * moment (halfway through its end); what they become. */
static const struct {
	int resource;
	rlim_t cur, max;
} iso_caller_limits[] = {
    {RLIMIT_CPU, RLIM_INFINITY, RLIM_INFINITY},
    {RLIMIT_FSIZE, RLIM_INFINITY, RLIM_INFINITY},
    {RLIMIT_DATA, RLIM_INFINITY, RLIM_INFINITY},
    {RLIMIT_AS, RLIM_INFINITY, RLIM_INFINITY},
    {RLIMIT_STACK, 8 << 20, RLIM_INFINITY},
    {RLIMIT_NOFILE, 1024, 524288},
    {RLIMIT_NPROC, RLIM_INFINITY, RLIM_INFINITY},
    {RLIMIT_SIGPENDING, RLIM_INFINITY, RLIM_INFINITY},
    {RLIMIT_CORE, 0, 0},
};

int iso_caller_become_root(const struct iso_caller *c)
{
	sigset_t none;

	if (!c->setuid)
		return 0;
	if (setresgid(0, 0, 0) < 0 || setgroups(0, NULL) < 0 || setresuid(0, 0, 0) < 0)
		return -1;
	for (size_t i = 0; i < sizeof iso_caller_limits / sizeof iso_caller_limits[0]; i++) {
		struct rlimit rl = {iso_caller_limits[i].cur, iso_caller_limits[i].max}, now;
		int r = iso_caller_limits[i].resource;

		/* Without CAP_SYS_RESOURCE (a container's root) a hard limit
		 * cannot be raised: the soft one up to it, then. */
		if (setrlimit(r, &rl) < 0 && getrlimit(r, &now) == 0 && now.rlim_cur < rl.rlim_cur &&
		    now.rlim_cur < now.rlim_max) {
			now.rlim_cur = rl.rlim_cur < now.rlim_max ? rl.rlim_cur : now.rlim_max;
			setrlimit(r, &now);
		}
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL); /* SIGKILL's and SIGSTOP's EINVAL is harmless */
	return chdir("/");
}
