// SPDX-License-Identifier: ISC
// --check in a container: which namespaces, filter, /proc masks and capabilities proctord
// finds, and the runtime's flag for each that keeps a box or a limit from it (ctrcheck_*).
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "ctrcheck.h"
#include "identity.h"

/* The inode number of the host's own cgroup namespace (the kernel's
 * PROC_CGROUP_INIT_INO, fixed since Linux 4.6). */
#define CTRCHECK_CGROUP_INIT_INO 0xEFFFFFFBU

static int ctrcheck_ns_is_hosts(const char *path, unsigned long ino)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_ino == ino;
}

/* The "Seccomp:" mode in /proc/self/status: 2 when a filter is on. */
static int ctrcheck_seccomp_mode(void)
{
	char line[128];
	int mode = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode;
}

/* The mounts below /proc that hide part of it (a runtime's masks), as
 * "PATH PATH ..." in buf; returns how many. */
static size_t ctrcheck_proc_masks(char *buf, size_t len)
{
	char line[4096], mnt[4096];
	size_t n = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	buf[0] = '\0';
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && strncmp(mnt, "/proc/", 6) == 0 &&
		    strncmp(mnt, "/proc/sys/fs/binfmt_misc", 24) != 0) {
			if (n++ < 6 && strlen(buf) + strlen(mnt) + 2 < len)
				snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", n > 1 ? " " : "",
					 mnt);
		}
	fclose(f);
	return n;
}

void ctrcheck_print(const struct config *c, FILE *out)
{
	char why[128], masks[512];
	int userns = !identity_host_userns();
	int cgns = !ctrcheck_ns_is_hosts("/proc/self/ns/cgroup", CTRCHECK_CGROUP_INIT_INO);
	int mode = ctrcheck_seccomp_mode();
	size_t n_masks = ctrcheck_proc_masks(masks, sizeof masks);

	identity_root_why(why, sizeof why);
	fprintf(out, "\n%-14s %s: %s\n", "identity", why,
		identity_root() ? "root's ways (--user, the box's uid 0 mapped to nobody)"
				: "the program runs in a user namespace of its own, without "
				  "capabilities (--user and --group refused)");
	if (geteuid() == 0 && !identity_has_caps(IDENTITY_BIT(CAP_SYS_ADMIN)) && c->box &&
	    !identity_has_caps(IDENTITY_BIT(CAP_SETUID) | IDENTITY_BIT(CAP_SETGID) |
			       IDENTITY_BIT(CAP_CHOWN)))
		fprintf(out, "%-14s the box's uid 0 cannot be nobody here: --cap-add SETUID "
			     "--cap-add SETGID --cap-add CHOWN (Podman, Docker) would map it so\n",
			"capabilities");
	fprintf(out, "%-14s %s\n", "user ns",
		userns ? "a user namespace, not the host's (a rootless container, or one with "
			 "user namespaces): its root has no power over the host's mounts"
		       : "the host's");
	fprintf(out, "%-14s %s\n", "cgroup ns",
		cgns ? "one of its own (--cgroupns=private): the container's cgroup is its root"
		     : "the host's (in a container: --cgroupns=host; --cgroupns=private "
		       "gives it one of its own, rooted at its cgroup)");
	if (mode == 2)
		fprintf(out, "%-14s a filter is on proctord (Seccomp: 2, a runtime's profile): "
			     "the box needs unshare, mount, umount2 and pivot_root (sethostname "
			     "may be refused); where it cannot be made, give a profile that allows "
			     "them: --security-opt seccomp=PROFILE (Podman, Docker), seccompProfile "
			     "Localhost (Kubernetes)\n",
			"seccomp");
	else
		fprintf(out, "%-14s no filter on proctord\n", "seccomp");
	if (n_masks)
		fprintf(out, "%-14s %zu mounts hide parts of /proc (%s%s): in a user namespace "
			     "the kernel refuses the box its own /proc while they do: "
			     "--security-opt unmask=/proc/* (Podman), --security-opt "
			     "systempaths=unconfined (Docker), procMount: Unmasked (Kubernetes)\n",
			"/proc masks", n_masks, masks, n_masks > 6 ? " ..." : "");
	else
		fprintf(out, "%-14s none: /proc is not masked\n", "/proc masks");
}
