// SPDX-License-Identifier: ISC
// Starting the program: clone3 with a pidfd, and the child's set-up up to execve.
//
// Between clone and execve the child runs on a copy of proctord's memory with
// no other thread, so it may only make system calls: no malloc, no stdio.
// Any failure is written to a CLOEXEC pipe as {stage, errno, what}; a
// successful execve closes the pipe, and the parent reads EOF. It reads
// nothing but the plan proctord built and checked before the clone
// (spawn_plan_build) and what the clone made (struct spawn_run): no
// file-level variable, nothing to look up.
//
// Where the kernel allows it, the clone makes a new PID namespace and the
// child is its init (PID 1), which stays proctord's code: it forks the
// program (PID 2), reaps the orphans, and when the program ends sends its
// wait status and rusage on a second pipe and exits, which makes the kernel
// kill everything left in the namespace. The init's parent-death signal is
// SIGKILL, and the program cannot clear it (it is another process) nor signal
// its init (no process of a namespace can): proctord's death takes the whole
// tree with it, whatever the program does to its own parent-death signal.
// Once the program is ready for execve, the init reads the CPU time the
// set-up took (its own and the program's) and sends it on the error pipe
// ahead of any failure: the figures leave it out (measure.h).
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <linux/keyctl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/fsuid.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "title.h"

struct spawn_msg {
	int stage;
	int err;
	char what[200];
};

/* A spawn_msg's stage that is no failure: the init's baseline (struct
 * spawn_baseline's two figures in what). */
#define SPAWN_MSG_BASELINE 1000

/* What the clone made, which the plan cannot say: the child's ends of the
 * pipes, the namespace it is in, whether it was born in its cgroup. The
 * child and the init read this and the plan, nothing else. */
struct spawn_run {
	int errfd;
	int statusfd;     /* the init's status pipe; -1 without a PID namespace */
	int parent_pidfd; /* the init's pidfd of proctord, or -1 */
	int syncfd;       /* SPAWN_PIDNS_USER_ROOT: the maps' go-ahead, else -1 */
	pid_t parent;     /* proctord's pid */
	enum spawn_pidns ns;
	int cloned_into; /* born in the plan's cgroup_fd: no cgroup.procs to write */
	/* The program forked by the init: it says it is at its execve on
	 * readyfd, then waits for a byte on gofd (-1, -1 elsewhere). */
	int readyfd, gofd;
};

/* In a user namespace of its own: RLIMIT_NPROC counts only its tree, and
 * its capabilities there are dropped before execve. */
static int spawn_run_userns(const struct spawn_run *r)
{
	return r->ns == SPAWN_PIDNS_USER || r->ns == SPAWN_PIDNS_USER_ROOT;
}

static void spawn_report(int fd, enum spawn_stage stage, int err, const char *what)
{
	struct spawn_msg msg;
	size_t n = 0;

	memset(&msg, 0, sizeof msg);
	msg.stage = (int)stage;
	msg.err = err;
	if (what) {
		while (n < sizeof msg.what - 1 && what[n]) {
			msg.what[n] = what[n];
			n++;
		}
	}
	/* Under PIPE_BUF: one write, all or nothing. */
	if (write(fd, &msg, sizeof msg) < 0) {
		/* Nothing left to tell it with: the exit code says it. */
	}
	_exit(127);
}

/* A stream's file: never through a symbolic link at its name (one that an
 * earlier run left in DIR would lead anywhere), in a box through none at
 * all (RESOLVE_NO_SYMLINKS: every directory on the way could be the
 * program's), and only a regular file, a FIFO or a character device. The
 * caller has taken the program's identity for it (spawn_child_open_stdio).
 * Returns the descriptor, or -1 with errno. */
static int spawn_child_open_how(const char *path, const struct box *in_box, const struct open_how *how)
{
	struct open_how beneath = *how;
	const char *rest = path;
	int fd = -1, base = in_box ? box_child_base(in_box, path, &rest) : -1;

	/* Under DIR or a bind: from the bind's source down, as the program
	 * would open it in the box, whatever the host's directories above
	 * it let the program's user search (CMS's are 0700). */
	beneath.resolve |= base >= 0 ? RESOLVE_BENEATH : 0;
	if (in_box)
		fd = (int)syscall(SYS_openat2, base >= 0 ? base : AT_FDCWD, rest, &beneath,
				  sizeof beneath);
	if (!in_box || (fd < 0 && errno == ENOSYS))
		fd = openat(base >= 0 ? base : AT_FDCWD, rest, (int)how->flags, (mode_t)how->mode);
	return fd;
}

/* Whether path is a FIFO now (looked at without opening it for reading or
 * writing, which would wait for its peer). */
static int spawn_child_is_fifo(const char *path, const struct box *in_box)
{
	struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS};
	struct stat st;
	int fd = spawn_child_open_how(path, in_box, &how), fifo;

	if (fd < 0)
		return 0;
	fifo = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
	close(fd);
	return fifo;
}

/* A FIFO in DIR or a read-write bind that the program could not have made
 * nor put there (CMS's Communication tasks: the judge's FIFOs in a
 * directory bound read-write), by box_fifo_judges with the file-system uid
 * taken for the open: no entry of its directory can have changed since
 * the judge made it. Opened through that directory, waiting for its peer.
 * Returns the descriptor, or -1 with ENXIO when the program could have put
 * it there, or another errno. */
static int spawn_child_open_judge_fifo(const char *path, int flags, const struct box *in_box)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS};
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	uid_t fsuid = (uid_t)setfsuid((uid_t)-1);
	struct stat ds, fs, st;
	char dir[PATH_MAX];
	int dfd, pfd = -1, fd = -1, saved;
	size_t len = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);

	if (len >= sizeof dir || !*name) {
		errno = ENXIO;
		return -1;
	}
	memcpy(dir, slash ? path : ".", len);
	dir[len] = '\0';
	dfd = spawn_child_open_how(dir, in_box, &how);
	if (dfd >= 0)
		pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	errno = ENXIO;
	if (pfd >= 0 && fstat(dfd, &ds) == 0 && fstat(pfd, &fs) == 0 &&
	    box_fifo_judges(&ds, &fs, fsuid))
		fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != fs.st_dev || st.st_ino != fs.st_ino)) {
		close(fd);
		fd = -1;
		errno = ENXIO;
	}
	saved = errno;
	if (pfd >= 0)
		close(pfd);
	if (dfd >= 0)
		close(dfd);
	errno = saved;
	return fd;
}

/* In a box, a FIFO where the program could have made it (reached: DIR, a
 * read-write bind) is refused at once (ENXIO), since nothing would ever
 * open its other end, unless the program could not have put it there
 * (spawn_child_open_judge_fifo); the judge's own FIFO elsewhere is opened
 * as outside a box, waiting for its peer. Anything else is opened without
 * blocking, so that a FIFO put there meanwhile is caught too. */
static int spawn_child_open_path(const char *path, int flags, const struct box *in_box, int reached)
{
	struct open_how how = {.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY),
			       .mode = (flags & O_CREAT) ? 0644 : 0,
			       .resolve = RESOLVE_NO_SYMLINKS};
	int fifo = in_box && spawn_child_is_fifo(path, in_box), fd;
	struct stat st;

	if (fifo && reached)
		return spawn_child_open_judge_fifo(path, flags, in_box);
	if (in_box && !fifo)
		how.flags |= O_NONBLOCK;
	fd = spawn_child_open_how(path, in_box, &how);
	if (fd < 0 && errno == ENXIO && in_box && !fifo && !reached) {
		/* A FIFO without a reader, there since the look: wait. */
		how.flags &= ~(uint64_t)O_NONBLOCK;
		fd = spawn_child_open_how(path, in_box, &how);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	if (!(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) ||
	    (S_ISFIFO(st.st_mode) && reached)) {
		close(fd);
		errno = S_ISFIFO(st.st_mode) ? ENXIO : EINVAL;
		return -1;
	}
	if ((how.flags & O_NONBLOCK) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void spawn_child_stdio(int errfd, int target, const struct spawn_stdio *s, int null_stdio,
			      const struct box *in_box, enum spawn_stage stage)
{
	int flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC;
	const char *path = s->path;
	int fd = s->fd, reached = s->reached;

	if (s->err)
		spawn_report(errfd, stage, s->err, path);
	if (fd >= 0) {
		/* dup2 leaves the copy without FD_CLOEXEC; the original
		 * closes at execve. */
		if (dup2(fd, target) < 0)
			spawn_report(errfd, stage, errno, path ? path : "descriptor");
		return;
	}
	if (!path) {
		if (!null_stdio)
			return; /* inherit proctord's */
		path = "/dev/null";
	}
	fd = spawn_child_open_path(path, flags, in_box, reached);
	if (fd < 0)
		spawn_report(errfd, stage, errno, path);
	if (fd == target) {
		if (fcntl(fd, F_SETFD, 0) < 0)
			spawn_report(errfd, stage, errno, path);
		return;
	}
	if (dup2(fd, target) < 0)
		spawn_report(errfd, stage, errno, path);
	close(fd);
}

/* The plan's rlimits; RLIMIT_NPROC only in a user namespace of its own
 * (outside one it would count every process of the uid on the host). */
static void spawn_child_limits(int errfd, const struct spawn_plan *p, int userns)
{
	for (size_t i = 0; i < p->n_rlimits; i++) {
		const struct spawn_rlimit *l = &p->rlimits[i];
		struct rlimit rl = {
		    .rlim_cur = l->soft == UNITS_UNLIMITED ? RLIM_INFINITY : (rlim_t)l->soft,
		    .rlim_max = l->hard == UNITS_UNLIMITED ? RLIM_INFINITY : (rlim_t)l->hard,
		};

		if ((!l->userns_only || userns) && setrlimit(l->resource, &rl) < 0)
			spawn_report(errfd, STAGE_LIMITS, errno, l->name);
	}
}

static void spawn_child_close_fds(int errfd)
{
	/* Every descriptor but 0, 1 and 2 closes at execve (runc CVE-2024-21626
	 * leaked one). CLOEXEC rather than close, so the error pipe still works. */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	for (int fd = 3; fd < 65536; fd++) {
		int fl = fcntl(fd, F_GETFD);

		if (fl >= 0 && !(fl & FD_CLOEXEC) && fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0)
			spawn_report(errfd, STAGE_SETUP, errno, "close descriptors");
	}
}

static void spawn_child_join(int errfd, int fd, const char *path)
{
	/* "0" is the writer itself. */
	if (write(fd, "0", 1) != 1)
		spawn_report(errfd, STAGE_SETUP, errno, path);
}

/* Close every descriptor from 3 up but those in keep (unsorted, -1 ignored). */
static void spawn_child_close_except(const int *keep, size_t n)
{
	unsigned from = 3;

	for (;;) {
		unsigned next = ~0U;

		/* The lowest kept descriptor at or above from. */
		for (size_t i = 0; i < n; i++)
			if (keep[i] >= (int)from && (unsigned)keep[i] < next)
				next = (unsigned)keep[i];
		if (next == ~0U) {
			close_range(from, ~0U, 0);
			return;
		}
		if (next > from)
			close_range(from, next - 1, 0);
		from = next + 1;
	}
}

/* The terminal's foreground group becomes the program's, which is a
 * background group until then: tcsetpgrp from there raises SIGTTOU unless it
 * is blocked. Best effort: if it fails, the program runs in the background
 * as it would without --tty-foreground. */
static void spawn_child_foreground(int fd)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	if (sigprocmask(SIG_BLOCK, &ttou, &old) < 0)
		return;
	if (tcsetpgrp(fd, getpgrp()) < 0) {
		/* Nothing to undo: the terminal stays with proctord's group. */
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The first steps of the init and of the program, in this order. Into the
 * sandbox's cgroups (join): all it does from here on, and every process it
 * starts, is accounted and limited there, and pinned to --cpuset's CPUs
 * (by the cgroup, or by the affinity set here). Drop proctord's descriptors
 * (its FIFOs among them) now, not at execve: a set-up that blocks (a --stdin
 * FIFO nobody writes) must not keep the wait FIFO open should proctord die;
 * only keep stays, closed at execve. libev blocks the signals it watches, and
 * SIG_IGN survives execve: back to the defaults, nothing blocked. */
static void spawn_child_prepare(const struct spawn_plan *p, const struct spawn_run *r, int join,
				const int *keep, size_t n_keep)
{
	int errfd = r->errfd;
	sigset_t none;

	if (join) {
		if (!r->cloned_into && p->c.cgroup_procs_fd >= 0)
			spawn_child_join(errfd, p->c.cgroup_procs_fd, p->c.cgroup_path);
		for (size_t i = 0; i < p->c.n_join; i++)
			spawn_child_join(errfd, p->c.join_fds[i], p->c.join_paths[i]);
		if (p->pin && sched_setaffinity(0, sizeof p->affinity, &p->affinity) < 0)
			spawn_report(errfd, STAGE_SETUP, errno, "sched_setaffinity (--cpuset)");
	}
	spawn_child_close_except(keep, n_keep);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "sigprocmask");
}

static void spawn_child_drop_bounding(int errfd)
{
	/* Up to the first capability this kernel does not know. */
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
			if (errno == EINVAL)
				break;
			spawn_report(errfd, STAGE_SETUP, errno, "PR_CAPBSET_DROP");
		}
}

/* No capability left, none to inherit, none ambient: uid 0 gets none back
 * at execve with an empty bounding set. */
static void spawn_child_drop_caps(int errfd)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof data);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		spawn_report(errfd, STAGE_SETUP, errno, "PR_CAP_AMBIENT");
	if (syscall(SYS_capset, &hdr, data) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "capset");
}

/* Standard input, output and error: the caller's paths and descriptors. */
static void spawn_child_open_stdio(const struct spawn_plan *p, int errfd, int in_box_now)
{
	const struct identity none_identity = {0};
	const struct identity *iso = &p->iso;
	const struct box *in_box = in_box_now ? p->c.box : NULL;

	/* Let go of the caller's descriptors before opening anything that may
	 * block (a FIFO with no peer): $(proctord --daemonize ...) must not
	 * wait for the program's set-up. */
	if (p->c.null_stdio &&
	    (dup2(p->null_fd, 0) < 0 || dup2(p->null_fd, 1) < 0 || dup2(p->null_fd, 2) < 0))
		spawn_report(errfd, STAGE_SETUP, errno, "/dev/null");
	/* In a box, with the rights of the user who runs the program, never
	 * more: root opening a name in DIR, which that user writes, would read
	 * or overwrite whatever a link there points to. Root's groups go
	 * first (setgroups is done again with the ids). Before the box hides
	 * the host's paths, hence not as the program itself yet. */
	if (!in_box)
		iso = &none_identity;
	if ((iso->set_uid || iso->set_gid) && setgroups(0, NULL) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "setgroups");
	if (iso->set_gid)
		setfsgid(iso->gid);
	if (iso->set_uid)
		setfsuid(iso->uid);
	spawn_child_stdio(errfd, 0, &p->stdio[0], p->c.null_stdio, in_box, STAGE_STDIN);
	spawn_child_stdio(errfd, 1, &p->stdio[1], p->c.null_stdio, in_box, STAGE_STDOUT);
	if (!p->c.stderr_to_stdout)
		spawn_child_stdio(errfd, 2, &p->stdio[2], p->c.null_stdio, in_box, STAGE_STDERR);
	else if (dup2(1, 2) < 0)
		spawn_report(errfd, STAGE_STDERR, errno, "standard output");
	/* Back to root's rights for what is left to set up (the box). */
	if (iso->set_uid)
		setfsuid(0);
	if (iso->set_gid)
		setfsgid(0);
}

/* In a user namespace the init's capabilities there came along with the
 * fork: the program gets none, as without a namespace (execve would drop
 * them; --unshare-net must not depend on that). */
static void spawn_child_userns_caps(int errfd)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "capset");
}

/* If proctord (or the init) dies, so does the program (nsjail #69). The
 * check after it closes the race with a parent that died before the prctl. */
static void spawn_child_deathsig(int errfd, pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "PR_SET_PDEATHSIG");
	if (getppid() != parent)
		_exit(127);
}

/* What needs privileges, after the stdio is open: the filter, the limits,
 * the ids, the capabilities. */
static void spawn_child_confine(const struct spawn_plan *p, const struct spawn_run *r, int in_box,
				pid_t parent)
{
	/* root's own box: the bounding set and the capabilities go here; in
	 * a user namespace they went first (spawn_child). */
	int own_caps = in_box && !spawn_run_userns(r);
	const char *what = NULL;
	int errfd = r->errfd;

	/* Namespaces need CAP_SYS_ADMIN: before the identity changes. A box
	 * has its own already. */
	if (!in_box && identity_child_namespaces(&p->iso, &what) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, what);
	/* The filter goes in before the limits: with a user notification it
	 * makes a descriptor (its listener), which a low RLIMIT_NOFILE would
	 * refuse. What runs after it here (setrlimit, setgroups, setres[ug]id,
	 * prctl, chdir, close_range, execve) is not on its list. */
	if (p->c.filter && sysfilter_child_load(p->c.filter, p->c.filter_sock, &what) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, what);

	/* Limits after the opens (a low RLIMIT_NOFILE must not stop them) and
	 * before the identity changes (raising one needs root). */
	spawn_child_limits(errfd, p, spawn_run_userns(r));
	/* A box does not hold a program with root's capabilities (it could
	 * remount, or open the host's files by handle): the bounding set is
	 * emptied while that is still allowed, the rest after the ids. */
	if (own_caps)
		spawn_child_drop_bounding(errfd);
	if (identity_child_ids(&p->iso, &what) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, what);
	if (own_caps)
		spawn_child_drop_caps(errfd);
	/* A change of identity clears the parent-death signal: set it again,
	 * and check again that proctord is still there. */
	spawn_child_deathsig(errfd, parent);
}

/* All set up but execve: stand still while the init reads the CPU time the
 * set-up took (spawn_init_baseline). The init gone, so is the program. */
static void spawn_child_ready(const struct spawn_run *r)
{
	char byte = 'r';
	ssize_t n;

	if (write(r->readyfd, &byte, 1) != 1)
		_exit(127);
	do
		n = read(r->gofd, &byte, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);
	/* Both close at execve (CLOEXEC): the program never has them. */
}

/* The program, from the clone (or the init's fork) to execve. parent:
 * proctord's pid, or 1 (the init) in a PID namespace; joined: the init has
 * joined the cgroups already. */
static void spawn_child(const struct spawn_plan *p, const struct spawn_run *r, pid_t parent,
			int joined)
{
	int keep[] = {r->errfd, p->stdio[0].fd, p->stdio[1].fd, p->stdio[2].fd,
		      p->c.filter ? p->c.filter_sock : -1, p->null_fd, r->readyfd, r->gofd};
	const char *what = NULL;
	int in_box = joined && p->c.box, errfd = r->errfd;

	/* uid 0 of a user namespace would get the namespace's capabilities
	 * back at execve: its bounding set goes first, while the init's
	 * capabilities there still allow it. */
	if (joined && r->ns == SPAWN_PIDNS_USER_ROOT)
		spawn_child_drop_bounding(errfd);
	if (joined && spawn_run_userns(r))
		spawn_child_userns_caps(errfd);

	spawn_child_prepare(p, r, !joined, keep, sizeof keep / sizeof keep[0]);

	/* Its own process group (and with --new-session its own session). In
	 * a PID namespace the init made the group and the program stays in
	 * it: its process group is the init's, whose pid proctord knows. With
	 * --new-session (no terminal to hand over) it leads a session of its
	 * own, apart from the init's. */
	if ((!joined || p->iso.new_session) && identity_child_session(&p->iso, &what) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, what);
	if (p->c.tty_foreground)
		spawn_child_foreground(p->c.tty_foreground - 1);
	spawn_child_deathsig(errfd, parent);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "PR_SET_NO_NEW_PRIVS");
	/* proctord may have raised its own priority; the program must not
	 * inherit that. A real-time proctord's fork reset a negative nice
	 * value to 0: getting the caller's back may need a privilege that
	 * only RLIMIT_RTPRIO stood for; then the program runs at 0. */
	if (setpriority(PRIO_PROCESS, 0, p->c.nice) < 0 &&
	    !(p->c.nice < 0 && (errno == EACCES || errno == EPERM)))
		spawn_report(errfd, STAGE_SETUP, errno, "setpriority");

	/* In a box the init opened them, on the host's paths. */
	if (!in_box)
		spawn_child_open_stdio(p, errfd, 0);
	spawn_child_confine(p, r, in_box, parent);
	/* As the program's user: a directory it cannot enter is its failure. */
	if (p->c.chdir && chdir(p->c.chdir) < 0)
		spawn_report(errfd, STAGE_CHDIR, errno, p->c.chdir);
	spawn_child_close_fds(errfd);
	if (r->readyfd >= 0)
		spawn_child_ready(r);

	/* execvp searches the PATH of environ: make it the program's. */
	environ = p->c.envp;
	execvp(p->c.argv[0], p->c.argv);
	spawn_report(errfd, STAGE_EXEC, errno, p->c.argv[0]);
}

static void spawn_init_write(int errfd, const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(line);

	if (fd < 0 || write(fd, line, len) != (ssize_t)len)
		spawn_report(errfd, STAGE_SETUP, errno, path);
	close(fd);
}

/* PID 1 of the program's namespace: dies with proctord, starts the program,
 * reaps the orphans, and reports the program's end on statusfd. Its exit
 * makes the kernel kill what is left in the namespace. */
/* SPAWN_PIDNS_USER_ROOT: proctord writes the maps, then a byte on syncfd;
 * the init then takes the namespace's uid and gid 0 (the host's nobody)
 * and leaves root's supplementary groups behind. Until then it is the
 * host's root with no name in the namespace. */
static void spawn_init_root_mapped(int errfd, int syncfd)
{
	char byte;
	ssize_t n;

	do
		n = read(syncfd, &byte, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127); /* proctord could not map it, and says so */
	close(syncfd);
	if (setgroups(0, NULL) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "setgroups (user namespace)");
	if (setresgid(0, 0, 0) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "setresgid (user namespace)");
	if (setresuid(0, 0, 0) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "setresuid (user namespace)");
}

/* SIGKILL when proctord dies: the one thing the program cannot undo. A
 * pidfd of proctord closes the race with a death before the prctl (getppid
 * says 0 across the namespace boundary). */
static void spawn_init_deathsig(int errfd, int parent_pidfd)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, "PR_SET_PDEATHSIG");
	if (parent_pidfd >= 0) {
		struct pollfd pfd = {.fd = parent_pidfd, .events = POLLIN};

		if (poll(&pfd, 1, 0) != 0)
			_exit(127);
		close(parent_pidfd);
	}
}

/* The init once the program is forked: nothing of proctord's or the
 * caller's stays open but keep (the pipes of the output, the FIFOs' readers
 * and $(...) see their EOF when the program closes its copies, even while
 * its set-up blocks on a FIFO). */
static void spawn_init_detach(const struct spawn_plan *p, const int *keep, size_t n_keep)
{
	dup2(p->null_fd, 0);
	dup2(p->null_fd, 1);
	dup2(p->null_fd, 2);
	spawn_child_close_except(keep, n_keep);
}

/* The init once the program has started: it reaps every orphan, and the
 * program's end goes to statusfd. Its exit makes the kernel kill what is
 * left. */
static noreturn void spawn_init_reap(int statusfd, pid_t prog)
{
	struct spawn_status st;

	memset(&st, 0, sizeof st);
	for (;;) {
		pid_t pid = wait4(-1, &st.wstatus, __WALL, &st.ru);

		if (pid == prog)
			break;
		if (pid < 0 && errno != EINTR)
			_exit(127); /* no program any more: cannot happen */
	}
	/* Under PIPE_BUF: one write. */
	if (write(statusfd, &st, sizeof st) < 0)
		_exit(127);
	_exit(0);
}

static uint64_t spawn_clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The set-up's CPU time, read once the program waits at its execve
 * (spawn_child_ready): the init's own clock and the program's, exact at
 * that moment (the kernel folds a running task's current slice in). What
 * runs after the reading (the rest of this function, the program's return
 * from read and its execve, the init's wait and exit) is the program's,
 * never taken off. joined_ns: the init's clock when
 * it joined the cgroups (0 if born there). The message goes on the error
 * pipe, before the init closes it; without one proctord counts it all. */
static void spawn_init_baseline(int errfd, pid_t prog, int readyfd, int gofd, uint64_t joined_ns)
{
	struct spawn_baseline b = {0};
	struct spawn_msg msg;
	clockid_t cid;
	char byte;
	ssize_t n;

	do
		n = read(readyfd, &byte, 1);
	while (n < 0 && errno == EINTR);
	close(readyfd);
	if (n == 1 && clock_getcpuclockid(prog, &cid) == 0) {
		uint64_t self = spawn_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		uint64_t other = spawn_clock_ns(cid);

		b.known = self > 0 && other > 0;
		b.all_ns = self + other;
		b.cg_ns = (self > joined_ns ? self - joined_ns : 0) + other;
	}
	memset(&msg, 0, sizeof msg);
	msg.stage = SPAWN_MSG_BASELINE;
	memcpy(msg.what, &b, sizeof b);
	if (n == 1 && write(errfd, &msg, sizeof msg) < 0) {
		/* proctord is gone: so is the init, by its death signal. */
	}
	byte = 'g';
	if (n == 1 && write(gofd, &byte, 1) < 0) {
		/* The program is gone: the reap sees it. */
	}
	close(gofd);
}

/* The program from the init, with the pipes of its baseline. */
static noreturn void spawn_init_fork(const struct spawn_plan *p, const struct spawn_run *r,
				     uint64_t joined_ns)
{
	struct spawn_run pr = *r;
	int ready[2] = {-1, -1}, go[2] = {-1, -1};
	pid_t prog;

	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0)
		spawn_report(r->errfd, STAGE_SETUP, errno, "pipe");
	prog = fork();
	if (prog < 0)
		spawn_report(r->errfd, STAGE_SETUP, errno, "fork");
	if (prog == 0) {
		close(r->statusfd);
		close(ready[0]);
		close(go[1]);
		pr.readyfd = ready[1];
		pr.gofd = go[0];
		spawn_child(p, &pr, 1, 1);
		_exit(127);
	}
	/* The program's ends of the pipes (ready[1], go[0]) close with the
	 * rest: the init sees EOF on ready if the program dies first. */
	spawn_init_detach(p, (const int[]){r->errfd, r->statusfd, ready[0], go[1]}, 4);
	spawn_init_baseline(r->errfd, prog, ready[0], go[1], joined_ns);
	close(r->errfd);
	spawn_init_reap(r->statusfd, prog);
}

static void spawn_init(const struct spawn_plan *p, const struct spawn_run *r)
{
	int keep[7 + BOX_MAX_FDS] = {r->errfd,	    r->statusfd,    p->stdio[0].fd,
				     p->stdio[1].fd, p->stdio[2].fd, p->c.filter ? p->c.filter_sock : -1,
				     p->null_fd};
	size_t n_keep = 7;
	int errfd = r->errfd;
	const char *what = NULL;
	uint64_t joined_ns;

	/* First: a change of identity would clear the parent-death signal.
	 * proctord's death before the go-ahead ends the wait (EOF). */
	if (r->ns == SPAWN_PIDNS_USER_ROOT)
		spawn_init_root_mapped(errfd, r->syncfd);
	spawn_init_deathsig(errfd, r->parent_pidfd);
	/* The program sees it as /proc/1: not proctord's command line. */
	title_init_process(p->title_args, p->title_len);
	/* Unprivileged: a user namespace that maps proctord's user to itself,
	 * so that the program keeps its identity (and no root inside). */
	if (r->ns == SPAWN_PIDNS_USER) {
		spawn_init_write(errfd, "/proc/self/uid_map", p->uid_map);
		spawn_init_write(errfd, "/proc/self/setgroups", "deny");
		spawn_init_write(errfd, "/proc/self/gid_map", p->gid_map);
	}
	/* The init is in the sandbox's cgroups too; the program is born there. */
	if (p->c.box)
		n_keep += box_fds(p->c.box, keep + n_keep, BOX_MAX_FDS);
	spawn_child_prepare(p, r, 1, keep, n_keep);
	/* What the CPU figure's cgroup has not counted of the init: nothing
	 * if it was born there, else its set-up up to here (the join and a
	 * few calls after it, which stay the program's). */
	joined_ns = r->cloned_into && p->c.cpu_in_v2 ? 0 : spawn_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	/* The program's process group (and session) is the init's: its pgid
	 * is the pid proctord has. A signal the terminal sends to the group
	 * does not reach the init, which has no handler (a namespace's init
	 * takes only SIGKILL and SIGSTOP from outside it). */
	if (identity_child_session(&p->iso, &what) < 0)
		spawn_report(errfd, STAGE_SETUP, errno, what);
	/* The program's stdio is on the host's paths: opened before the box
	 * hides them, and inherited. The caller's session key ring stays
	 * behind: a fresh anonymous one, which the program inherits (and
	 * cannot use: the box's filter denies keyctl). ENOSYS (no key rings)
	 * and EPERM (a container runtime's filter, as Docker's, which then
	 * denies the program every key ring call too) leave nothing to hide. */
	if (p->c.box) {
		if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS &&
		    errno != EPERM)
			spawn_report(errfd, STAGE_SETUP, errno, "keyctl(KEYCTL_JOIN_SESSION_KEYRING)");
		spawn_child_open_stdio(p, errfd, 1);
		if (box_child_enter(p->c.box, &what) < 0)
			spawn_report(errfd, STAGE_SETUP, errno, what);
	}

	spawn_init_fork(p, r, joined_ns);
}

void spawn_config_init(struct spawn_config *c)
{
	memset(c, 0, sizeof *c);
	c->stdin_fd = c->stdout_fd = c->stderr_fd = -1;
	c->filter_sock = -1;
}

static void spawn_rlimit_add(struct spawn_rlimit *out, size_t *n, int resource, const char *name,
			     const char *key, uint64_t soft, uint64_t hard)
{
	out[(*n)++] = (struct spawn_rlimit){resource, soft, hard, name, key, 0};
}

size_t spawn_plan_rlimits(struct spawn_rlimit *out, const struct limits *l, uint64_t nproc)
{
	size_t n = 0;

	if (nproc) {
		spawn_rlimit_add(out, &n, RLIMIT_NPROC, "RLIMIT_NPROC", "pids", nproc, nproc);
		out[0].userns_only = 1;
	}
	/* No core files: a crashing submission must not fill the disk. */
	spawn_rlimit_add(out, &n, RLIMIT_CORE, "RLIMIT_CORE", "core", 0, 0);
	if (l->cpu_time_us != UNITS_UNLIMITED) {
		/* A backstop only: whole seconds and per process. The tree's
		 * limit is proctord's deadline timer, which fires first. */
		uint64_t s = (l->cpu_time_us + 999999) / 1000000 + 1;

		spawn_rlimit_add(out, &n, RLIMIT_CPU, "RLIMIT_CPU", "cpu_time", s, s + 1);
	}
	if (l->address_space != UNITS_UNLIMITED)
		spawn_rlimit_add(out, &n, RLIMIT_AS, "RLIMIT_AS", "address_space", l->address_space,
				 l->address_space);
	if (l->fsize != UNITS_UNLIMITED)
		spawn_rlimit_add(out, &n, RLIMIT_FSIZE, "RLIMIT_FSIZE", "fsize", l->fsize, l->fsize);
	if (l->stack != UNITS_UNLIMITED)
		spawn_rlimit_add(out, &n, RLIMIT_STACK, "RLIMIT_STACK", "stack", l->stack, l->stack);
	/* soft = hard: the program cannot raise it again. */
	if (l->nofile != UNITS_UNLIMITED)
		spawn_rlimit_add(out, &n, RLIMIT_NOFILE, "RLIMIT_NOFILE", "nofile", l->nofile,
				 l->nofile);
	return n;
}

int spawn_plan_check_rlimits(const struct spawn_rlimit *rl, size_t n, const uint64_t *cur_hard,
			     int can_raise, uint64_t nr_open, const char *why, char *err,
			     size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const struct spawn_rlimit *l = &rl[i];

		/* The kernel's ceiling, for root too (EPERM). */
		if (l->resource == RLIMIT_NOFILE && nr_open && l->hard > nr_open) {
			snprintf(err, errlen, "%s: %s %llu is above the kernel's fs.nr_open (%llu)",
				 l->key, l->name, (unsigned long long)l->hard,
				 (unsigned long long)nr_open);
			return -1;
		}
		/* Raising a hard limit takes CAP_SYS_RESOURCE (EPERM). */
		if (!can_raise && l->hard > cur_hard[i]) {
			snprintf(err, errlen, "%s: %s %llu is above proctord's hard limit (%llu), %s",
				 l->key, l->name, (unsigned long long)l->hard,
				 (unsigned long long)cur_hard[i], why);
			return -1;
		}
	}
	return 0;
}

/* fs.nr_open, the ceiling of RLIMIT_NOFILE; 0 if unknown. */
static uint64_t spawn_nr_open(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "re");

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* The program's rlimits, and whether it can have them: the child inherits
 * proctord's hard limits, and in a user namespace of its own (or without
 * CAP_SYS_RESOURCE) it cannot raise one. */
static int spawn_plan_limits(struct spawn_plan *p, const struct spawn_config *c, char *err,
			     size_t errlen)
{
	struct limits none;
	uint64_t cur[SPAWN_MAX_RLIMITS];
	int userns = p->c.pidns == SPAWN_PIDNS_USER || p->c.pidns == SPAWN_PIDNS_USER_ROOT;
	int cap = identity_has_caps(IDENTITY_BIT(CAP_SYS_RESOURCE));

	limits_init(&none);
	p->n_rlimits = spawn_plan_rlimits(p->rlimits, c->limits ? c->limits : &none, c->nproc);
	for (size_t i = 0; i < p->n_rlimits; i++) {
		struct rlimit rl;

		cur[i] = getrlimit(p->rlimits[i].resource, &rl) < 0 || rl.rlim_max == RLIM_INFINITY
				 ? UNITS_UNLIMITED
				 : (uint64_t)rl.rlim_max;
	}
	return spawn_plan_check_rlimits(
	    p->rlimits, p->n_rlimits, cur, cap && !userns, spawn_nr_open(),
	    !cap ? "and proctord has no CAP_SYS_RESOURCE to raise it"
		 : "and the program's user namespace cannot raise it (a box's uid 0 is one: give "
		   "--user)",
	    err, errlen);
}

/* --unshare-net and --unshare-ipc outside a box: unshare in the child,
 * which has CAP_SYS_ADMIN only where proctord is root (in its own user
 * namespace the program's capabilities are gone by then). */
int spawn_unshare_refused(int box, int net, int ipc, char *err, size_t errlen)
{
	if (box || !(net || ipc) || identity_has_caps(IDENTITY_BIT(CAP_SYS_ADMIN)))
		return 0;
	snprintf(err, errlen,
		 "--%s: only root can give the program %s of its own (proctord runs as uid %u%s)",
		 net ? "unshare-net" : "unshare-ipc", net ? "a network namespace" : "IPC namespaces",
		 (unsigned)geteuid(), geteuid() == 0 ? ", without CAP_SYS_ADMIN" : "");
	return -1;
}

static int spawn_plan_unshare(const struct spawn_plan *p, char *err, size_t errlen)
{
	return spawn_unshare_refused(p->c.box != NULL, p->iso.unshare_net, p->iso.unshare_ipc, err,
				     errlen);
}

int spawn_plan_build(struct spawn_plan *p, const struct spawn_config *c, char *err, size_t errlen)
{
	int fd;

	memset(p, 0, sizeof *p);
	p->c = *c;
	p->null_fd = -1;
	p->stdio[0] = (struct spawn_stdio){c->stdin_path, c->stdin_fd, 0, c->stdio_reached[0]};
	p->stdio[1] = (struct spawn_stdio){c->stdout_path, c->stdout_fd, c->stdout_err,
					   c->stdio_reached[1]};
	p->stdio[2] = (struct spawn_stdio){c->stderr_path, c->stderr_fd, c->stderr_err,
					   c->stdio_reached[2]};
	p->pin = c->affinity != NULL;
	if (c->affinity)
		p->affinity = *c->affinity;
	if (c->identity)
		p->iso = *c->identity;
	p->c.identity = NULL;
	p->c.limits = NULL;
	p->c.affinity = NULL;
	if (c->box && !c->box->active)
		p->c.box = NULL;
	if (p->c.pidns == SPAWN_PIDNS_USER) {
		snprintf(p->uid_map, sizeof p->uid_map, "%u %u 1", (unsigned)geteuid(),
			 (unsigned)geteuid());
		snprintf(p->gid_map, sizeof p->gid_map, "%u %u 1", (unsigned)getegid(),
			 (unsigned)getegid());
	}
	title_args_span(&p->title_args, &p->title_len);
	if (spawn_plan_limits(p, c, err, errlen) < 0 || spawn_plan_unshare(p, err, errlen) < 0)
		return -1;
	/* The init's stdio once the program runs, and --daemonize's: above 2,
	 * where the child's dup2 onto 0, 1 and 2 cannot overwrite it. */
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	p->null_fd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (fd >= 0)
		close(fd);
	if (p->null_fd < 0) {
		snprintf(err, errlen, "/dev/null: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void spawn_plan_free(struct spawn_plan *p)
{
	int saved = errno;

	if (p->null_fd >= 0)
		close(p->null_fd);
	p->null_fd = -1;
	errno = saved;
}

/* clone3 with flags, into p's cgroup where the kernel can (*into says
 * whether it did). Returns the pid (0 in the child), or -1 with errno set. */
static long spawn_clone(const struct spawn_plan *p, uint64_t flags, int *pidfd, int *into)
{
	struct clone_args args;
	long pid;

	memset(&args, 0, sizeof args);
	args.flags = CLONE_PIDFD | flags;
	args.pidfd = (uint64_t)(uintptr_t)pidfd;
	args.exit_signal = SIGCHLD;
	*into = 0;
	if (p->c.cgroup_fd >= 0) {
		/* Born in the cgroup: no moment outside it, no race to join. */
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)p->c.cgroup_fd;
		*into = 1;
		pid = syscall(SYS_clone3, &args, sizeof args);
		if (pid >= 0 || errno == EAGAIN || errno == ENOMEM)
			return pid;
		/* Before Linux 5.7 (E2BIG, EINVAL), or refused: the child
		 * joins by writing cgroup.procs, which says why if it fails. */
		args.flags &= ~(uint64_t)CLONE_INTO_CGROUP;
		args.cgroup = 0;
		*into = 0;
	}
	pid = syscall(SYS_clone3, &args, sizeof args);
	if (pid < 0 && !flags && (errno == ENOSYS || errno == EINVAL)) {
		/* Before Linux 5.3: fork, then ask for a pidfd. */
		pid = fork();
		if (pid > 0)
			*pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	}
	return pid;
}

/* No clone3 (before Linux 5.3, or under valgrind): as root, unshare a PID
 * namespace for proctord's children, fork its init, and put proctord's
 * next children back into its own namespace. */
static long spawn_fork_pidns(int *pidfd)
{
	int self = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	long pid;
	int saved;

	if (self < 0)
		return -1;
	if (unshare(CLONE_NEWPID) < 0) {
		saved = errno;
		close(self);
		errno = saved;
		return -1;
	}
	pid = fork();
	if (pid == 0)
		/* The init closes self with the rest (spawn_child_close_except). */
		// cppcheck-suppress resourceLeak
		return 0;
	saved = errno;
	if (setns(self, CLONE_NEWPID) < 0 && pid > 0) {
		/* A second child of proctord could not be made: that is the
		 * --check probe's concern, not this run's. */
	}
	close(self);
	if (pid > 0)
		*pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	errno = saved;
	return pid;
}

/* No clone3 for a user namespace (Podman's and Docker's default seccomp
 * profiles make it ENOSYS, and refuse clone's namespace flags without
 * CAP_SYS_ADMIN, but allow unshare): a helper forked from proctord
 * unshares the user and PID namespaces and clones the init as proctord's
 * own child (CLONE_PARENT), first of the new PID namespace; it sends the
 * init's pid and ends. Returns the init's pid (0 in the init), or -1. */
static long spawn_fork_userns(int *pidfd)
{
	int p[2], st;
	long pid = -1, helper;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	helper = fork();
	if (helper == 0) {
		close(p[0]);
		if (unshare(CLONE_NEWUSER) == 0 && unshare(CLONE_NEWPID) == 0)
			pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
		if (pid == 0) {
			close(p[1]);
			return 0;
		}
		if (pid < 0)
			pid = -(long)errno;
		_exit(write(p[1], &pid, sizeof pid) == (ssize_t)sizeof pid ? 0 : 1);
	}
	close(p[1]);
	if (helper > 0 && read(p[0], &pid, sizeof pid) != (ssize_t)sizeof pid)
		pid = -EPROTO;
	close(p[0]);
	if (helper < 0)
		return -1;
	while (waitpid((pid_t)helper, &st, 0) < 0 && errno == EINTR)
		;
	if (pid < 0) {
		errno = (int)-pid;
		return -1;
	}
	*pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	return pid;
}

static uint64_t spawn_ns_flags(enum spawn_pidns ns)
{
	return ns == SPAWN_PIDNS_USER || ns == SPAWN_PIDNS_USER_ROOT ? CLONE_NEWUSER | CLONE_NEWPID
	       : ns == SPAWN_PIDNS    ? CLONE_NEWPID
				      : 0;
}

enum spawn_pidns spawn_pidns_wanted(void)
{
	/* Root makes the PID namespace. Anybody else needs a user namespace
	 * to own it, which maps only the caller's own ids: a container's root
	 * without CAP_SYS_ADMIN too, where it may map uid 0 (CAP_SETFCAP);
	 * without that, the plain one is tried, and refused. */
	if (geteuid() != 0)
		return SPAWN_PIDNS_USER;
	if (identity_has_caps(IDENTITY_BIT(CAP_SYS_ADMIN)))
		return SPAWN_PIDNS;
	return identity_has_caps(IDENTITY_BIT(CAP_SETFCAP)) ? SPAWN_PIDNS_USER : SPAWN_PIDNS;
}

/* In spawn_pidns_probe's child: make the namespace as a start would, its
 * init exiting at once. Returns 0, or the errno. */
static int spawn_pidns_try(enum spawn_pidns ns)
{
	struct clone_args args;
	long pid;
	int st;

	memset(&args, 0, sizeof args);
	args.flags = spawn_ns_flags(ns);
	args.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &args, sizeof args);
	if (pid < 0 && errno == ENOSYS && ns != SPAWN_PIDNS_NONE) {
		int fd = -1;

		pid = ns == SPAWN_PIDNS ? spawn_fork_pidns(&fd) : spawn_fork_userns(&fd);
		if (fd >= 0)
			close(fd);
	}
	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* In a child of its own: without clone3 (a runtime's seccomp profile), the
 * PID namespace is unshared by the caller itself, whose next children are
 * then born in it; where setns cannot take the caller back (uid 0 of a user
 * namespace that does not own the caller's PID namespace: proctor-entry's
 * in a container), that namespace's init has ended and every later fork of
 * --check failed with ENOMEM. */
int spawn_pidns_probe(enum spawn_pidns ns)
{
	pid_t pid = fork();
	int st = 0;

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(spawn_pidns_try(ns));
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : ECHILD;
}

/* The descriptors of one start: the set-up error pipe, the init's status
 * pipe, proctord's pidfd for the init, the maps' go-ahead. -1 where unused. */
struct spawn_fds {
	int err[2], status[2], parent_pidfd, sync[2];
};

static void spawn_fds_close(struct spawn_fds *f)
{
	int *slot[] = {&f->err[0],    &f->err[1], &f->status[0], &f->status[1],
		       &f->parent_pidfd, &f->sync[0], &f->sync[1]};
	int saved = errno;

	for (size_t i = 0; i < sizeof slot / sizeof slot[0]; i++) {
		int fd = *slot[i];

		if (fd >= 0)
			close(fd);
		*slot[i] = -1;
	}
	errno = saved;
}

static int spawn_fds_open(struct spawn_fds *f, enum spawn_pidns ns, pid_t parent)
{
	*f = (struct spawn_fds){{-1, -1}, {-1, -1}, -1, {-1, -1}};
	if (pipe2(f->err, O_CLOEXEC) < 0)
		return -1;
	if (ns != SPAWN_PIDNS_NONE) {
		if (pipe2(f->status, O_CLOEXEC) < 0)
			goto fail;
		/* The init polls it: proctord gone before its prctl. */
		f->parent_pidfd = (int)syscall(SYS_pidfd_open, parent, 0);
	}
	if (ns == SPAWN_PIDNS_USER_ROOT && pipe2(f->sync, O_CLOEXEC) < 0)
		goto fail;
	return 0;
fail:
	spawn_fds_close(f);
	return -1;
}

/* Write /proc/PID/FILE. Returns 0, or -1 with errno. */
static int spawn_write_proc(pid_t pid, const char *file, const char *line)
{
	char path[64];
	size_t len = strlen(line);
	int fd, r, saved;

	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = write(fd, line, len) == (ssize_t)len ? 0 : -1;
	saved = errno;
	close(fd);
	errno = saved;
	return r;
}

/* SPAWN_PIDNS_USER_ROOT, proctord's side: uid and gid 0 of the init's
 * namespace are the host's map_uid and map_gid (root writes any map), then
 * the go-ahead. Returns 0, or -1 with errno (the init then ends). */
static int spawn_map_root(const struct spawn_plan *p, pid_t pid, int syncfd)
{
	char uid_map[32], gid_map[32];

	snprintf(uid_map, sizeof uid_map, "0 %u 1", (unsigned)p->c.map_uid);
	snprintf(gid_map, sizeof gid_map, "0 %u 1", (unsigned)p->c.map_gid);
	if (spawn_write_proc(pid, "uid_map", uid_map) < 0 ||
	    spawn_write_proc(pid, "gid_map", gid_map) < 0)
		return -1;
	return write(syncfd, "1", 1) == 1 ? 0 : -1;
}

/* The clone, with its fall backs: no clone3 (root's PID namespace through
 * unshare; root's mapped one becomes a plain one, as the caller is told),
 * no namespace at all where none is required. r->ns says what was made,
 * r->cloned_into whether into the cgroup. */
static long spawn_clone_ns(const struct spawn_plan *p, struct spawn_run *r, int *pidfd,
			   struct spawn_child *out, struct spawn_fds *f)
{
	long pid = spawn_clone(p, spawn_ns_flags(r->ns), pidfd, &r->cloned_into);

	if (pid < 0 && errno == ENOSYS &&
	    (r->ns == SPAWN_PIDNS_USER || r->ns == SPAWN_PIDNS_USER_ROOT)) {
		r->cloned_into = 0;
		pid = spawn_fork_userns(pidfd);
	}
	/* No user namespace for uid 0 (no clone3 under valgrind; EPERM in a
	 * chroot, as some containers run): the plain PID namespace, uid 0 the
	 * host's without capabilities, which the caller warns of. */
	if (pid < 0 && r->ns == SPAWN_PIDNS_USER_ROOT && errno != EAGAIN && errno != ENOMEM) {
		out->root_map_err = errno;
		r->ns = SPAWN_PIDNS;
		if (errno != ENOSYS)
			pid = spawn_clone(p, spawn_ns_flags(r->ns), pidfd, &r->cloned_into);
	}
	if (pid < 0 && errno == ENOSYS && r->ns == SPAWN_PIDNS) {
		r->cloned_into = 0;
		pid = spawn_fork_pidns(pidfd);
	}
	if (pid >= 0 || r->ns == SPAWN_PIDNS_NONE || errno == EAGAIN || errno == ENOMEM)
		return pid;
	/* No namespace here (a container, a kernel without them, user
	 * namespaces disabled): the program is proctord's child, as the
	 * caller is told. */
	out->pidns_err = errno;
	if (p->c.pidns_required)
		return -1;
	spawn_fds_close(f);
	if (pipe2(f->err, O_CLOEXEC) < 0)
		return -1;
	r->ns = SPAWN_PIDNS_NONE;
	if (p->c.pidns_fallback && p->c.pidns_fallback(p->c.pidns_fallback_ctx) < 0)
		return -1;
	return spawn_clone(p, 0, pidfd, &r->cloned_into);
}

/* In the clone's child: the init, or without a PID namespace the program.
 * Never returns. */
static noreturn void spawn_start_child(const struct spawn_plan *p, struct spawn_run *r,
				       struct spawn_fds *f)
{
	close(f->err[0]);
	if (f->sync[1] >= 0)
		close(f->sync[1]);
	r->errfd = f->err[1];
	if (r->ns != SPAWN_PIDNS_NONE) {
		close(f->status[0]);
		r->statusfd = f->status[1];
		r->parent_pidfd = f->parent_pidfd;
		r->syncfd = f->sync[0];
		spawn_init(p, r);
	}
	spawn_child(p, r, r->parent, 0);
	_exit(127);
}

int spawn_start(const struct spawn_plan *p, struct spawn_child *out)
{
	struct spawn_run r = {.errfd = -1,
			      .statusfd = -1,
			      .parent_pidfd = -1,
			      .syncfd = -1,
			      .readyfd = -1,
			      .gofd = -1,
			      .parent = getpid(),
			      .ns = p->c.pidns};
	struct spawn_fds f;
	int pidfd = -1;
	long pid;

	out->pidns_err = out->root_map_err = 0;
	if (spawn_fds_open(&f, r.ns, r.parent) < 0)
		return -1;
	pid = spawn_clone_ns(p, &r, &pidfd, out, &f);
	if (pid < 0) {
		spawn_fds_close(&f);
		return -1;
	}
	if (pid == 0)
		spawn_start_child(p, &r, &f);
	if (r.ns == SPAWN_PIDNS_USER_ROOT && spawn_map_root(p, (pid_t)pid, f.sync[1]) < 0) {
		int saved = errno;

		kill((pid_t)pid, SIGKILL);
		waitpid((pid_t)pid, NULL, __WALL);
		if (pidfd >= 0)
			close(pidfd);
		spawn_fds_close(&f);
		errno = saved;
		return -1;
	}
	out->pid = (pid_t)pid;
	out->pidfd = pidfd;
	out->errfd = f.err[0];
	out->statusfd = f.status[0];
	out->pidns = r.ns;
	f.err[0] = f.status[0] = -1;
	spawn_fds_close(&f);
	if (out->statusfd >= 0)
		fcntl(out->statusfd, F_SETFL, O_NONBLOCK);
	fcntl(out->errfd, F_SETFL, O_NONBLOCK);
	if (pidfd >= 0)
		fcntl(pidfd, F_SETFD, FD_CLOEXEC);
	return 0;
}

int spawn_read_status(int statusfd, struct spawn_status *st)
{
	ssize_t n;

	do
		n = read(statusfd, st, sizeof *st);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	return n == (ssize_t)sizeof *st;
}

int spawn_read_failure(int errfd, struct outcome *o, struct spawn_baseline *base)
{
	struct spawn_msg msg;
	ssize_t n;

	for (;;) {
		do
			n = read(errfd, &msg, sizeof msg);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if ((size_t)n < sizeof msg || msg.stage != SPAWN_MSG_BASELINE)
			break;
		/* Before any failure (the init's, once the program is at
		 * its execve): keep it, and read on. */
		memcpy(base, msg.what, sizeof *base);
		base->known = base->known != 0;
	}
	memset(o, 0, sizeof *o);
	o->kind = OUTCOME_FAILED;
	if ((size_t)n < sizeof msg || msg.stage < STAGE_SETUP || msg.stage > STAGE_EXEC) {
		o->stage = STAGE_SETUP;
		o->err = EPROTO;
		return 1;
	}
	o->stage = (enum spawn_stage)msg.stage;
	o->err = msg.err;
	msg.what[sizeof msg.what - 1] = '\0';
	memcpy(o->what, msg.what, sizeof msg.what);
	return 1;
}
