// SPDX-License-Identifier: ISC
// Unit tests for cgroup discovery over mountinfo and /proc/PID/cgroup text:
// v2 only, v1 only, hybrid (v1 controllers + a controller-less v2) and a
// container's cgroup namespace (mount roots not "/").
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cgdiscover.h"

#define MAXH 8

struct found {
	size_t n;
	struct cgd_hier h[MAXH];
};

/* Run discovery on copies of the two texts (they are cut up in place). */
static void discover(const char *mountinfo, const char *proc_cgroup, struct found *f)
{
	struct cgd_mount mv[32];
	char *mi = strdup(mountinfo), *pc = strdup(proc_cgroup);
	size_t nm;

	assert_non_null(mi);
	assert_non_null(pc);
	nm = cgd_parse_mountinfo(mi, mv, 32);
	f->n = cgd_match(pc, mv, nm, f->h, MAXH);
	free(mi);
	free(pc);
}

static void found_free(struct found *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->h[i].parent);
}

static void assert_hier(const struct found *f, size_t i, int version, const char *ctrls,
			const char *parent)
{
	assert_true(i < f->n);
	assert_int_equal(f->h[i].version, version);
	assert_string_equal(f->h[i].ctrls, ctrls);
	assert_string_equal(f->h[i].parent, parent);
}

static const char v2_mounts[] =
	"22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
	"35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
	"rw,nsdelegate,memory_recursiveprot\n";

static void v2_only(void **state)
{
	struct found f;

	(void)state;
	discover(v2_mounts, "0::/system.slice/proctord.service\n", &f);
	assert_int_equal(f.n, 1);
	assert_hier(&f, 0, 2, "", "/sys/fs/cgroup/system.slice/proctord.service");
	found_free(&f);
	/* The root cgroup: the mount point itself. */
	discover(v2_mounts, "0::/\n", &f);
	assert_int_equal(f.n, 1);
	assert_hier(&f, 0, 2, "", "/sys/fs/cgroup");
	found_free(&f);
}

static const char v1_mounts[] =
	"25 24 0:22 / /sys/fs/cgroup rw - tmpfs tmpfs ro,mode=755\n"
	"26 25 0:23 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n"
	"27 25 0:24 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
	"28 25 0:25 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
	"29 25 0:26 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
	"30 25 0:27 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n"
	"31 25 0:28 / /sys/fs/cgroup/freezer rw - cgroup cgroup rw,freezer\n";

static void v1_only(void **state)
{
	struct found f;

	(void)state;
	discover(v1_mounts,
		 "6:freezer:/user/1000\n"
		 "5:devices:/user.slice\n"
		 "4:pids:/user.slice/session-2.scope\n"
		 "3:memory:/user.slice\n"
		 "2:cpu,cpuacct:/user.slice\n"
		 "1:name=systemd:/user.slice/session-2.scope\n",
		 &f);
	/* devices and name=systemd serve no role: left out. */
	assert_int_equal(f.n, 4);
	assert_hier(&f, 0, 1, "freezer", "/sys/fs/cgroup/freezer/user/1000");
	assert_hier(&f, 1, 1, "pids", "/sys/fs/cgroup/pids/user.slice/session-2.scope");
	assert_hier(&f, 2, 1, "memory", "/sys/fs/cgroup/memory/user.slice");
	assert_hier(&f, 3, 1, "cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct/user.slice");
	found_free(&f);
}

/* A v1 hierarchy goes to the mount whose options name all its controllers,
 * not to a mount of some of them. */
static void v1_mount_must_name_every_controller(void **state)
{
	struct found f;

	(void)state;
	discover("30 25 0:27 / /mnt/cpu rw - cgroup cgroup rw,cpu\n"
		 "31 25 0:24 / /mnt/both rw - cgroup cgroup rw,cpu,cpuacct\n",
		 "2:cpu,cpuacct:/a\n", &f);
	assert_int_equal(f.n, 1);
	assert_hier(&f, 0, 1, "cpu,cpuacct", "/mnt/both/a");
	found_free(&f);
}

/* This machine's layout: v1 controllers, each in a hierarchy of its own,
 * and a v2 hierarchy with no controller at /sys/fs/cgroup/unified. */
static void hybrid(void **state)
{
	struct found f;

	(void)state;
	discover("31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		 "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
		 "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
		 "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
		 "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
		 "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
		 "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
		 "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
		 "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
		 "9:name=systemd:/\n"
		 "8:pids:/\n"
		 "6:freezer:/\n"
		 "4:memory:/job/1b75\n"
		 "3:cpuset:/\n"
		 "2:cpuacct:/\n"
		 "1:cpu:/\n"
		 "0::/\n",
		 &f);
	assert_int_equal(f.n, 7);
	assert_hier(&f, 0, 1, "pids", "/sys/fs/cgroup/pids");
	assert_hier(&f, 1, 1, "freezer", "/sys/fs/cgroup/freezer");
	assert_hier(&f, 2, 1, "memory", "/sys/fs/cgroup/memory/job/1b75");
	assert_hier(&f, 3, 1, "cpuset", "/sys/fs/cgroup/cpuset");
	assert_hier(&f, 4, 1, "cpuacct", "/sys/fs/cgroup/cpuacct");
	assert_hier(&f, 5, 1, "cpu", "/sys/fs/cgroup/cpu");
	assert_hier(&f, 6, 2, "", "/sys/fs/cgroup/unified");
	found_free(&f);
}

/* In a container, the cgroup mount's root is the container's cgroup and
 * /proc/self/cgroup may still show the host's path (no cgroup namespace) or
 * a path below the root; a cgroup outside the mount's root is not shown. */
static void container_mount_root(void **state)
{
	static const char mi[] = "700 690 0:30 /docker/abc /sys/fs/cgroup ro,nosuid - cgroup2 "
				 "cgroup2 rw,nsdelegate\n";
	struct found f;

	(void)state;
	discover(mi, "0::/docker/abc\n", &f);
	assert_int_equal(f.n, 1);
	assert_hier(&f, 0, 2, "", "/sys/fs/cgroup");
	found_free(&f);
	discover(mi, "0::/docker/abc/init.scope\n", &f);
	assert_int_equal(f.n, 1);
	assert_hier(&f, 0, 2, "", "/sys/fs/cgroup/init.scope");
	found_free(&f);
	/* A sibling whose name begins alike is not below the root. */
	discover(mi, "0::/docker/abcd\n", &f);
	assert_int_equal(f.n, 0);
	discover(mi, "0::/other\n", &f);
	assert_int_equal(f.n, 0);
}

/* Mount points with spaces come escaped; a line that is not a cgroup mount
 * or is cut short is skipped. */
static void mountinfo_escapes_and_junk(void **state)
{
	struct cgd_mount mv[4];
	char mi[] = "41 31 0:38 / /mnt/my\\040cg rw - cgroup2 cgroup2 rw\n"
		    "garbage line\n"
		    "42 31 0:39 / /mnt/x rw - tmpfs tmpfs rw\n"
		    "43 31 0:40 /sub /mnt/v1 rw - cgroup cgroup rw,memory,pids\n";

	(void)state;
	assert_int_equal(cgd_parse_mountinfo(mi, mv, 4), 2);
	assert_int_equal(mv[0].version, 2);
	assert_string_equal(mv[0].point, "/mnt/my cg");
	assert_string_equal(mv[0].root, "/");
	assert_int_equal(mv[1].version, 1);
	assert_string_equal(mv[1].root, "/sub");
	assert_string_equal(mv[1].opts, "rw,memory,pids");
}

static void has_word(void **state)
{
	(void)state;
	assert_true(cgd_has_word("cpu,cpuacct", "cpu"));
	assert_true(cgd_has_word("cpu,cpuacct", "cpuacct"));
	assert_false(cgd_has_word("cpuacct", "cpu"));
	assert_true(cgd_has_word("cpuset cpu io memory", "memory"));
	assert_false(cgd_has_word("", "memory"));
}

/* A cgroup2 mount made before `unshare --cgroup` shows its root outside the
 * namespace: proctord's own "0::/" is not under it and is not found there. */
static void mount_outside_namespace(void **state)
{
	struct found f;

	(void)state;
	assert_true(cgd_outside_ns("/.."));
	assert_true(cgd_outside_ns("/../.."));
	assert_true(cgd_outside_ns("/../../system.slice"));
	assert_false(cgd_outside_ns("/"));
	assert_false(cgd_outside_ns("/..x"));
	assert_false(cgd_outside_ns("/a/.."));
	discover("57 47 0:38 /.. /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw\n", "0::/\n", &f);
	assert_int_equal(f.n, 0);
	found_free(&f);
}

static void uid_map(void **state)
{
	(void)state;
	assert_true(cgd_uidmap_initial("         0          0 4294967295\n"));
	assert_true(cgd_uidmap_initial("0 0 4294967295"));
	/* unshare --map-root-user as nobody; a rootless container's range. */
	assert_false(cgd_uidmap_initial("         0      65534          1\n"));
	assert_false(cgd_uidmap_initial("         0     100000      65536\n"));
	/* Two lines: not the initial namespace, even if the first looks so. */
	assert_false(cgd_uidmap_initial("0 0 4294967295\n1 1 1\n"));
	assert_false(cgd_uidmap_initial(""));
	assert_false(cgd_uidmap_initial("0 0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(v2_only),
		cmocka_unit_test(v1_only),
		cmocka_unit_test(v1_mount_must_name_every_controller),
		cmocka_unit_test(hybrid),
		cmocka_unit_test(container_mount_root),
		cmocka_unit_test(mountinfo_escapes_and_junk),
		cmocka_unit_test(has_word),
		cmocka_unit_test(mount_outside_namespace),
		cmocka_unit_test(uid_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
