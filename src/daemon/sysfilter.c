// SPDX-License-Identifier: ISC
// The system call filter (--seccomp): its deny list, loading it in the child, and naming what it caught.
//
// How a denied call is named. SECCOMP_RET_KILL_PROCESS would end the
// program by itself, but its wait status says only SIGSYS: which call it was
// is lost (the audit log has it, but that is neither always on nor ours to
// read). SECCOMP_RET_TRAP lets the program catch the SIGSYS and carry on, and
// /proc/PID/syscall of a process that is already dead tells nothing. So a
// denied call is a user notification (SECCOMP_RET_USER_NOTIF): the calling
// thread stops inside the kernel before the call does anything, proctord
// reads the call's number from the listener, kills the whole tree and
// reports "killed syscall: NAME". The call never runs. If proctord dies, the
// listener closes and any call still caught fails with ENOSYS instead; the
// program itself dies with proctord (PR_SET_PDEATHSIG).
//
// The BPF program is built by libseccomp in proctord, before the child
// starts; the child only loads it with seccomp(2), since between clone and
// execve it should make system calls and nothing else.
// ev.h first: seccomp.h brings in elf.h, whose EV_NONE macro would break
// libev's enum.
#include "sysfilter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <sched.h>
#include <sys/personality.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

/* Calls that let a program escape its sandbox, reach into others or the
 * machine, or open kernel attack surface no judged program needs. */
const char *const sysfilter_denied[] = {
	/* kernel keyrings: shared between sandboxes of one user */
	"keyctl", "add_key", "request_key",
	/* io_uring: a second system call interface, a seccomp filter's blind spot */
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	/* reading and writing other processes */
	"ptrace", "process_vm_readv", "process_vm_writev",
	/* the kernel itself */
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"bpf", "perf_event_open", "userfaultfd",
	/* mounts and namespaces: the way out of a chroot or a container */
	"mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
	"fsconfig", "fsmount", "fspick", "mount_setattr", "unshare", "setns",
	"open_by_handle_at",
	/* the machine */
	"reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "vhangup",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "iopl", "ioperm",
	NULL,
};

/* The rules on arguments, as --check and the documentation describe them. */
const char *const sysfilter_denied_args[] = {
	"ioctl(TIOCSTI, TIOCLINUX)",
	"a set-user-ID or set-group-ID mode in chmod, fchmod, fchmodat, open, openat, creat, "
	"mknod, mknodat (EPERM; openat2 and fchmodat2 fail with ENOSYS)",
	"socket(AF_VSOCK)",
	"clone(CLONE_NEW*)",
	"personality(ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, MMAP_PAGE_ZERO, "
	"ADDR_COMPAT_LAYOUT, ADDR_LIMIT_32BIT, ADDR_LIMIT_3GB)",
	NULL,
};

/* Namespace flags of clone(2); clone3(2) passes its flags in memory, which
 * a filter cannot read, so clone3 fails with ENOSYS and the C library falls
 * back to clone, as container runtimes do. */
static const unsigned long clone_ns_flags[] = {
	CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER,
	CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP,
};

/* What every box denies, with or without --seccomp: the key rings (a key a
 * program adds to its user key ring would be there for the next box of the
 * same user) and the ioctls that type into a terminal or reconfigure the
 * console. */
static const char *const sysfilter_box_denied[] = {
	"keyctl", "add_key", "request_key",
	/* New namespaces and mounts: a user namespace of its own would let
	 * uid 0 of the host mount cgroup v1 there (the host's hierarchies),
	 * and anybody mount what the box does not show. */
	"unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount",
	"open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", NULL,
};
/* Calls whose arguments are in memory, where a filter cannot read a mode:
 * ENOSYS, so that a program falls back to the calls it can read (open,
 * read, write). */
static const char *const sysfilter_mode_blind[] = {"openat2", "fchmodat2", NULL};
/* io_uring opens files with a mode too (in --seccomp's list already). */
static const char *const sysfilter_box_nosys[] = {"io_uring_setup", NULL};
const char *const sysfilter_box_summary =
	"keyctl, add_key, request_key, unshare, setns, clone(CLONE_NEW*), the mount calls, "
	"ioctl(TIOCSTI, TIOCLINUX) and a set-user-ID or set-group-ID mode (chmod, open, "
	"mknod...) fail with EPERM; clone3, openat2, io_uring_setup, fchmodat2 with ENOSYS";

/* The calls that take a file mode, and which argument it is. */
static const struct {
	const char *name;
	unsigned arg;
} sysfilter_mode_calls[] = {
	{"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"open", 2},    {"openat", 3},
	{"creat", 1}, {"mknod", 1},  {"mknodat", 2},
};

static const uint32_t personality_flags[] = {
	ADDR_NO_RANDOMIZE, MMAP_PAGE_ZERO, ADDR_COMPAT_LAYOUT, READ_IMPLIES_EXEC,
	ADDR_LIMIT_32BIT, ADDR_LIMIT_3GB,
};

static int sysfilter_deny(scmp_filter_ctx ctx, uint32_t action, const char *const *names,
			  char *err, size_t errlen)
{
	for (const char *const *n = names; *n; n++) {
		int nr = seccomp_syscall_resolve_name(*n), rc;

		/* A call this architecture does not have cannot be made. */
		if (nr == __NR_SCMP_ERROR)
			continue;
		rc = seccomp_rule_add(ctx, action, nr, 0);
		if (rc < 0) {
			snprintf(err, errlen, "seccomp: cannot add a rule for %s: %s", *n,
				 strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/* TIOCSTI pushes input into a terminal, TIOCLINUX into the console's
 * selection: either types commands into the caller's shell. The kernel
 * reads ioctl's request as 32 bits: so does the comparison, or high bits
 * set would walk around it. Returns libseccomp's code. */
static int sysfilter_tty_rules(scmp_filter_ctx ctx, uint32_t action)
{
	int rc = seccomp_rule_add(ctx, action, SCMP_SYS(ioctl), 1,
				  SCMP_A1_32(SCMP_CMP_EQ, (uint32_t)TIOCSTI, 0));

	if (rc == 0)
		rc = seccomp_rule_add(ctx, action, SCMP_SYS(ioctl), 1,
				      SCMP_A1_32(SCMP_CMP_EQ, (uint32_t)TIOCLINUX, 0));
	return rc;
}

/* No set-user-ID or set-group-ID file can be made: DIR is the host's, and
 * such a copy of a shell there (uid 0's, in a box run as root) would be run
 * by a host user while the box runs, before proctord strips what is left.
 * Always EPERM, never a kill: "cp -p" and "install -m" meet it. The modes
 * are compared as 32 bits; the kernel reads 16 (umode_t), and both bits
 * are low. Returns libseccomp's code. */
static int sysfilter_setid_rules(scmp_filter_ctx ctx)
{
	static const uint32_t bits[] = {S_ISUID, S_ISGID};
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof sysfilter_mode_calls / sizeof sysfilter_mode_calls[0];
	     i++) {
		int nr = seccomp_syscall_resolve_name(sysfilter_mode_calls[i].name);
		unsigned arg = sysfilter_mode_calls[i].arg;

		if (nr == __NR_SCMP_ERROR)
			continue;
		for (size_t b = 0; rc == 0 && b < sizeof bits / sizeof bits[0]; b++) {
			struct scmp_arg_cmp cmp = {.arg = arg,
						   .op = SCMP_CMP_MASKED_EQ,
						   .datum_a = bits[b],
						   .datum_b = bits[b]};

			rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, &cmp);
		}
	}
	return rc;
}

/* clone(2) with a namespace flag; clone3(2) fails with ENOSYS. Returns
 * libseccomp's code. */
static int sysfilter_clone_rules(scmp_filter_ctx ctx, uint32_t action)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof clone_ns_flags / sizeof clone_ns_flags[0]; i++)
		rc = seccomp_rule_add(ctx, action, SCMP_SYS(clone), 1,
				      SCMP_A0_64(SCMP_CMP_MASKED_EQ, clone_ns_flags[i],
						 clone_ns_flags[i]));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	return rc;
}

static int sysfilter_rules(scmp_filter_ctx ctx, uint32_t action, char *err, size_t errlen)
{
	int rc;

	if (sysfilter_deny(ctx, action, sysfilter_denied, err, errlen) < 0)
		return -1;
	if (sysfilter_deny(ctx, SCMP_ACT_ERRNO(ENOSYS), sysfilter_mode_blind, err, errlen) < 0)
		return -1;
	rc = sysfilter_tty_rules(ctx, action);
	if (rc == 0)
		rc = sysfilter_setid_rules(ctx);
	/* AF_VSOCK reaches the hypervisor and other virtual machines. */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, action, SCMP_SYS(socket), 1,
				      SCMP_A0_32(SCMP_CMP_EQ, AF_VSOCK, 0));
	/* personality(): the flags that turn off address space randomisation
	 * or make data executable. One comparison per rule (libseccomp takes
	 * no two on one argument), so bit 31, which no personality has, tells
	 * the query 0xffffffff (all bits set) from a flag being set. */
	for (size_t i = 0; rc == 0 && i < sizeof personality_flags / sizeof personality_flags[0]; i++)
		rc = seccomp_rule_add(ctx, action, SCMP_SYS(personality), 1,
				      SCMP_A0_32(SCMP_CMP_MASKED_EQ, personality_flags[i] | 0x80000000u,
						 personality_flags[i]));
	if (rc == 0)
		rc = sysfilter_clone_rules(ctx, action);
	if (rc < 0) {
		snprintf(err, errlen, "seccomp: cannot add the argument rules: %s", strerror(-rc));
		return -1;
	}
	return 0;
}

/* A filter that allows what it is not told to deny, for this architecture
 * only: a 64-bit program that switches to the 32-bit entry points (int
 * 0x80) would otherwise walk around the list. Such a call ends the process
 * with SIGSYS. NULL, said in err. */
static scmp_filter_ctx sysfilter_new(char *err, size_t errlen)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx) {
		snprintf(err, errlen, "seccomp: cannot create a filter");
		return NULL;
	}
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0) {
		snprintf(err, errlen, "seccomp: this kernel cannot kill a whole process (Linux 4.14)");
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

/* The BPF program of ctx into f. Returns 0, or -1 said in err. */
static int sysfilter_export(scmp_filter_ctx ctx, struct sysfilter *f, char *err, size_t errlen)
{
	off_t size;
	int fd, rc = -1;

	/* libseccomp 2.5 exports to a descriptor only: through a memfd. */
	fd = memfd_create("proctor-seccomp", MFD_CLOEXEC);
	if (fd < 0 || seccomp_export_bpf(ctx, fd) < 0 || (size = lseek(fd, 0, SEEK_END)) < 0) {
		snprintf(err, errlen, "seccomp: cannot export the filter: %s", strerror(errno));
		goto out;
	}
	if (size == 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS) {
		snprintf(err, errlen, "seccomp: the exported filter has an odd size (%lld bytes)",
			 (long long)size);
		goto out;
	}
	f->insns = xmalloc((size_t)size);
	if (pread(fd, f->insns, (size_t)size, 0) != size) {
		snprintf(err, errlen, "seccomp: cannot read the exported filter back");
		sysfilter_free(f);
		goto out;
	}
	f->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

int sysfilter_build_box(struct sysfilter *f, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc = -1;

	memset(f, 0, sizeof *f);
	ctx = sysfilter_new(err, errlen);
	if (!ctx)
		return -1;
	if (sysfilter_deny(ctx, SCMP_ACT_ERRNO(EPERM), sysfilter_box_denied, err, errlen) < 0 ||
	    sysfilter_deny(ctx, SCMP_ACT_ERRNO(ENOSYS), sysfilter_box_nosys, err, errlen) < 0 ||
	    sysfilter_deny(ctx, SCMP_ACT_ERRNO(ENOSYS), sysfilter_mode_blind, err, errlen) < 0)
		goto out;
	if (sysfilter_tty_rules(ctx, SCMP_ACT_ERRNO(EPERM)) < 0 || sysfilter_setid_rules(ctx) < 0 ||
	    sysfilter_clone_rules(ctx, SCMP_ACT_ERRNO(EPERM)) < 0) {
		snprintf(err, errlen, "seccomp: cannot add the rules on arguments");
		goto out;
	}
	rc = sysfilter_export(ctx, f, err, errlen);
	/* A kernel without seccomp (or valgrind, which lacks it): the box
	 * goes on without this filter, which only narrows what it already
	 * holds. */
	f->optional = 1;
out:
	seccomp_release(ctx);
	return rc;
}

int sysfilter_build(struct sysfilter *f, int eperm, int deny_affinity, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	uint32_t action = eperm ? SCMP_ACT_ERRNO(EPERM) : SCMP_ACT_NOTIFY;
	int rc = -1;

	memset(f, 0, sizeof *f);
	ctx = sysfilter_new(err, errlen);
	if (!ctx)
		return -1;
	if (!eperm && seccomp_api_get() < 6) {
		/* API level 6: user notifications and their listener (Linux 5.5
		 * with libseccomp 2.5). */
		snprintf(err, errlen,
			 "seccomp: this kernel or libseccomp cannot report a denied call to "
			 "proctord (needs Linux 5.5, libseccomp 2.5); --seccomp-errno makes "
			 "denied calls fail with EPERM instead");
		goto out;
	}
	if (sysfilter_rules(ctx, action, err, errlen) < 0)
		goto out;
	/* --cpuset held by affinity alone: the program must not widen it. A
	 * plain EPERM, never a kill: runtimes call it to spread threads. */
	if (deny_affinity &&
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sched_setaffinity), 0) < 0) {
		snprintf(err, errlen, "seccomp: cannot add the rule for sched_setaffinity");
		goto out;
	}
	if (sysfilter_export(ctx, f, err, errlen) == 0) {
		f->notify = !eperm;
		rc = 0;
	}
out:
	seccomp_release(ctx);
	return rc;
}

void sysfilter_free(struct sysfilter *f)
{
	free(f->insns);
	memset(f, 0, sizeof *f);
}

/* The message that carries the listener from the child to proctord: one
 * byte, and room for one descriptor (SCM_RIGHTS). */
struct sysfilter_fdmsg {
	struct iovec iov;
	struct msghdr msg;
	char byte;
	_Alignas(struct cmsghdr) char buf[CMSG_SPACE(sizeof(int))];
};

static void sysfilter_fdmsg_init(struct sysfilter_fdmsg *m, char byte)
{
	memset(m, 0, sizeof *m);
	m->byte = byte;
	m->iov.iov_base = &m->byte;
	m->iov.iov_len = 1;
	m->msg.msg_iov = &m->iov;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->buf;
	m->msg.msg_controllen = sizeof m->buf;
}

int sysfilter_child_load(const struct sysfilter *f, int sock, const char **what)
{
	struct sock_fprog prog = {.len = f->len, .filter = f->insns};
	struct sysfilter_fdmsg m;
	struct cmsghdr *cm;
	long listener;

	/* PR_SET_NO_NEW_PRIVS is set already: no privilege is needed. */
	*what = "seccomp";
	listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			   f->notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
	if (listener < 0)
		return f->optional && errno == ENOSYS ? 0 : -1;
	if (!f->notify)
		return 0;
	/* Without its listener in proctord, a denied call would fail with
	 * ENOSYS and the program would go on: fail closed instead. */
	*what = "seccomp listener";
	sysfilter_fdmsg_init(&m, 'L');
	cm = CMSG_FIRSTHDR(&m.msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &(int){(int)listener}, sizeof(int));
	if (sendmsg(sock, &m.msg, MSG_NOSIGNAL) != 1) {
		int saved = errno;

		close((int)listener);
		errno = saved;
		return -1;
	}
	close((int)listener);
	return 0;
}

/* --- proctord's side --- */

static void sysfilter_close_listener(struct sysfilter_watch *w)
{
	if (w->listener < 0)
		return;
	ev_io_stop(w->loop, &w->listener_io);
	close(w->listener);
	w->listener = -1;
}

static void sysfilter_listener_cb(struct ev_loop *loop, ev_io *w_, int revents)
{
	struct sysfilter_watch *w = w_->data;
	struct seccomp_notif *n = w->notif;
	struct pollfd pfd = {.fd = w->listener, .events = POLLIN};
	char name[64];
	char *resolved;

	if (poll(&pfd, 1, 0) == 1 && !(pfd.revents & POLLIN)) {
		/* POLLHUP: every process under the filter has ended. Level
		 * triggered, it would wake the loop for ever. */
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
			sysfilter_close_listener(w);
		return;
	}
	/* The kernel wants the buffer zeroed. */
	memset(n, 0, w->notif_size);
	if (ioctl(w->listener, SECCOMP_IOCTL_NOTIF_RECV, n) < 0)
		return; /* ENOENT: the caller died (or was killed) meanwhile */
	resolved = seccomp_syscall_resolve_num_arch(n->data.arch, n->data.nr);
	if (resolved)
		strlcpy(name, resolved, sizeof name);
	else
		snprintf(name, sizeof name, "syscall_%d", n->data.nr);
	free(resolved);
	/* No answer to the notification: the caller stays stopped inside the
	 * call until the kill reaches it. */
	w->blocked(w->ctx, name);
}

static void sysfilter_sock_cb(struct ev_loop *loop, ev_io *w_, int revents)
{
	struct sysfilter_watch *w = w_->data;
	struct sysfilter_fdmsg m;
	struct cmsghdr *cm;
	ssize_t n;

	sysfilter_fdmsg_init(&m, 0);
	n = recvmsg(w->sock, &m.msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0) {
		for (cm = CMSG_FIRSTHDR(&m.msg); cm; cm = CMSG_NXTHDR(&m.msg, cm)) {
			int fd;

			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			memcpy(&fd, CMSG_DATA(cm), sizeof fd);
			if (w->listener >= 0) {
				close(fd);
				continue;
			}
			w->listener = fd;
			ev_io_init(&w->listener_io, sysfilter_listener_cb, fd, EV_READ);
			w->listener_io.data = w;
			ev_io_start(loop, &w->listener_io);
		}
		return;
	}
	/* End of file (the child reached execve or failed) or an error: the
	 * socket has nothing more to say. */
	ev_io_stop(loop, &w->sock_io);
	close(w->sock);
	w->sock = -1;
}

int sysfilter_watch_start(struct sysfilter_watch *w, struct ev_loop *loop, int sock,
			  void (*blocked)(void *ctx, const char *name), void *ctx)
{
	struct seccomp_notif_sizes sizes;

	memset(w, 0, sizeof *w);
	w->loop = loop;
	w->sock = sock;
	w->listener = -1;
	w->blocked = blocked;
	w->ctx = ctx;
	/* The kernel's struct may be larger than the one we were built with. */
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		return -1;
	w->notif_size = sizes.seccomp_notif > sizeof(struct seccomp_notif)
				? sizes.seccomp_notif
				: sizeof(struct seccomp_notif);
	w->notif = xcalloc(1, w->notif_size);
	ev_io_init(&w->sock_io, sysfilter_sock_cb, sock, EV_READ);
	w->sock_io.data = w;
	ev_io_start(loop, &w->sock_io);
	return 0;
}

void sysfilter_watch_close(struct sysfilter_watch *w)
{
	if (!w->loop)
		return;
	sysfilter_close_listener(w);
	if (w->sock >= 0) {
		ev_io_stop(w->loop, &w->sock_io);
		close(w->sock);
		w->sock = -1;
	}
	free(w->notif);
	w->notif = NULL;
	w->loop = NULL;
}
