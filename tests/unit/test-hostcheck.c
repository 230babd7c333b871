// SPDX-License-Identifier: ISC
// Unit tests for --check's host audit, over fixture trees laid out like / (hostcheck.c).
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hostcheck.h"
#include "units.h"

static char root[64];
static char *text;
static size_t text_len;

/* root/rel with content, its directories made on the way. */
static void put(const char *rel, const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void drop(const char *rel)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", root, rel);
	assert_int_equal(unlink(path), 0);
}

/* A host with nothing to say: 4 CPUs, one per core, at full clock, no
 * turbo, no swap, no transparent huge pages nor their defrag, no ASLR,
 * cores to a file. */
static void quiet_host(void)
{
	put("proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	put("proc/meminfo", "MemTotal:        8029616 kB\nSwapCached:            0 kB\n"
			    "SwapTotal:             0 kB\nSwapFree:              0 kB\n");
	put("sys/devices/system/cpu/online", "0-3\n");
	for (int c = 0; c < 4; c++) {
		char rel[128], v[8];

		snprintf(rel, sizeof rel,
			 "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
		snprintf(v, sizeof v, "%d\n", c);
		put(rel, v);
		snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
			 c);
		put(rel, "performance\n");
	}
	put("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
	put("sys/devices/system/cpu/cpufreq/boost", "0\n");
	put("sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n");
	put("sys/kernel/mm/transparent_hugepage/defrag",
	    "always defer defer+madvise madvise [never]\n");
	put("sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "0\n");
	put("sys/kernel/mm/transparent_hugepage/shmem_enabled",
	    "always within_size advise [never] deny force\n");
	put("sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
	    "always inherit madvise [never]\n");
	put("sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled",
	    "always [inherit] madvise never\n");
	put("sys/kernel/mm/transparent_hugepage/hugepages-2048kB/shmem_enabled",
	    "always [inherit] within_size advise never\n");
	put("proc/sys/kernel/randomize_va_space", "0\n");
	put("proc/sys/kernel/core_pattern", "core\n");
}

/* The pause between the audit's two readings of proc/stat: the second
 * reading is proc/stat.next, if the test wrote one. */
static void swap_stat(unsigned ms)
{
	char from[512], to[512];

	(void)ms;
	snprintf(from, sizeof from, "%s/proc/stat.next", root);
	snprintf(to, sizeof to, "%s/proc/stat", root);
	rename(from, to);
}

/* A /proc/stat line for cpu c: busy and idle jiffies, split over the
 * fields (user, nice, system, idle, iowait, irq, softirq, steal). */
static void stat_line(char *buf, size_t len, int c, unsigned busy, unsigned idle)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "cpu%d %u 0 %u %u %u 0 0 0 0 0\n", c, busy / 2, busy - busy / 2,
		 idle - idle / 4, idle / 4);
}

static int setup(void **state)
{
	(void)state;
	hostcheck_pause = swap_stat;
	snprintf(root, sizeof root, "hostcheck-fixture.XXXXXX");
	assert_non_null(mkdtemp(root));
	quiet_host();
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	free(text);
	text = NULL;
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Run the audit (cpus: a CPU list, or NULL); the text it printed is in
 * text. Returns the number of findings. */
static size_t audit(const char *cpus)
{
	struct units_cpuset set;
	FILE *out;
	size_t n;

	free(text);
	text = NULL;
	out = open_memstream(&text, &text_len);
	assert_non_null(out);
	if (cpus)
		assert_null(units_parse_cpuset(cpus, &set));
	n = hostcheck_print(root, cpus ? &set : NULL, out);
	fclose(out);
	return n;
}

static size_t lines_starting(const char *prefix)
{
	size_t n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "")
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			n++;
	return n;
}

static size_t lines(void)
{
	size_t n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

/* Exactly one finding, named name, on one line after the title. */
static void one_finding(const char *name, const char *cpus)
{
	char prefix[32];

	snprintf(prefix, sizeof prefix, "%-14s ", name);
	assert_int_equal(audit(cpus), 1);
	assert_int_equal(lines_starting(prefix), 1);
	/* A blank line, the title, the finding. */
	assert_int_equal(lines(), 3);
}

static void a_quiet_host_has_nothing_to_say(void **state)
{
	(void)state;
	assert_int_equal(audit(NULL), 0);
	assert_int_equal(lines_starting("host audit "), 1);
	assert_non_null(strstr(text, "nothing found"));
	assert_int_equal(audit("1-2"), 0);
}

static void missing_files_are_no_findings(void **state)
{
	(void)state;
	assert_int_equal(teardown(state), 0);
	assert_non_null(mkdtemp(strcpy(root, "hostcheck-fixture.XXXXXX")));
	assert_int_equal(audit(NULL), 0);
	assert_non_null(strstr(text, "nothing found"));
}

static void swap_without_accounting_says_memory_max_misses_it(void **state)
{
	(void)state;
	put("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n"
			  "/dev/sda2                               partition\t1048572\t0\t-2\n");
	put("proc/meminfo", "SwapTotal:       1048572 kB\n");
	one_finding("swap", NULL);
	assert_non_null(strstr(text, "on (/dev/sda2) and not accounted"));
	assert_non_null(strstr(text, "--memory-max does not cover swap"));
	assert_non_null(strstr(text, "runs at disk speed; turn swap off (swapoff -a)"));
}

/* Swap accounted to cgroups is still swap: a finding of its own. */
static void swap_accounted_is_still_a_finding(void **state)
{
	(void)state;
	put("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n"
			  "/swapfile                               file\t1048572\t0\t-2\n"
			  "/dev/zram0                              partition\t4096\t0\t100\n");
	/* v1 with memsw. */
	put("sys/fs/cgroup/memory/memory.memsw.limit_in_bytes", "9223372036854771712\n");
	one_finding("swap", NULL);
	assert_non_null(strstr(text, "on (/swapfile and more), accounted to cgroups: a program "
				     "paged out runs at disk speed"));
	assert_non_null(strstr(text, "turn swap off (swapoff -a)\n"));
	assert_null(strstr(text, "does not cover"));
	drop("sys/fs/cgroup/memory/memory.memsw.limit_in_bytes");
	one_finding("swap", NULL);
	assert_non_null(strstr(text, "not accounted"));
	/* v2: a child of the root has memory.swap.max. */
	put("sys/fs/cgroup/system.slice/memory.swap.max", "max\n");
	one_finding("swap", NULL);
	assert_non_null(strstr(text, "), accounted to cgroups:"));
}

/* No device in /proc/swaps (or no such file), but SwapTotal says there is
 * swap: a finding, with the size. */
static void swap_seen_in_meminfo(void **state)
{
	(void)state;
	put("proc/meminfo", "MemTotal:        8029616 kB\nSwapCached:            0 kB\n"
			    "SwapTotal:       2097148 kB\nSwapFree:        2097148 kB\n");
	one_finding("swap", NULL);
	assert_non_null(strstr(text, "on (SwapTotal 2097148 kB) and not accounted"));
	drop("proc/swaps");
	one_finding("swap", NULL);
	put("proc/meminfo", "SwapTotal:             0 kB\n");
	assert_int_equal(audit(NULL), 0);
	drop("proc/meminfo");
	assert_int_equal(audit(NULL), 0);
}

static void smt_siblings_of_the_chosen_cpus(void **state)
{
	(void)state;
	/* Cores {0,2} and {1,3}. */
	put("sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0,2\n");
	put("sys/devices/system/cpu/cpu2/topology/thread_siblings_list", "0,2\n");
	put("sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1,3\n");
	put("sys/devices/system/cpu/cpu3/topology/thread_siblings_list", "1,3\n");
	one_finding("smt", NULL);
	one_finding("smt", "0");
	assert_non_null(strstr(text, "CPUs 0 share their cores with the SMT siblings 2,"));
	one_finding("smt", "0-1");
	assert_non_null(strstr(text, "siblings 2-3,"));
	/* A sibling offline is no finding. */
	put("sys/devices/system/cpu/online", "0-1,3\n");
	assert_int_equal(audit("0"), 0);
	one_finding("smt", "1");
	assert_non_null(strstr(text, "siblings 3,"));
}

static void a_governor_other_than_performance(void **state)
{
	(void)state;
	put("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
	put("sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "schedutil\n");
	one_finding("governor", NULL);
	assert_non_null(strstr(text, "CPUs 1,3 run the cpufreq governor powersave"));
	one_finding("governor", "3");
	assert_non_null(strstr(text, "CPUs 3 run the cpufreq governor schedutil"));
	/* Only the chosen CPUs count. */
	assert_int_equal(audit("0,2"), 0);
}

static void turbo_and_boost(void **state)
{
	(void)state;
	put("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
	one_finding("turbo", NULL);
	assert_non_null(strstr(text, "no_turbo"));
	put("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
	put("sys/devices/system/cpu/cpufreq/boost", "1\n");
	one_finding("boost", NULL);
	drop("sys/devices/system/cpu/cpufreq/boost");
	assert_int_equal(audit(NULL), 0);
}

static void huge_pages_in_any_mode_but_never(void **state)
{
	(void)state;
	put("sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
	one_finding("huge pages", NULL);
	assert_non_null(strstr(text, "(transparent_hugepage/enabled = always): every program "));
	assert_non_null(strstr(text, "echo never > /sys/kernel/mm/transparent_hugepage/enabled"));
	/* A common default: only programs that ask get them, and some do. */
	put("sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	one_finding("huge pages", NULL);
	assert_non_null(strstr(text, "(transparent_hugepage/enabled = madvise): a program that "
				     "asks for them (madvise MADV_HUGEPAGE"));
	assert_non_null(strstr(text, "echo never > /sys/kernel/mm/transparent_hugepage/enabled"));
	put("sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n");
	assert_int_equal(audit(NULL), 0);
	/* No THP in this kernel: nothing to say. */
	drop("sys/kernel/mm/transparent_hugepage/enabled");
	assert_int_equal(audit(NULL), 0);
}

/* Each mode of transparent_hugepage/defrag but never is a finding, with
 * what the kernel does in that mode. */
static void thp_defrag_in_any_mode_but_never(void **state)
{
	static const struct {
		const char *file, *mode, *what;
	} modes[] = {
	    {"[always] defer defer+madvise madvise never\n", "always",
	     "a fault that wants a huge page stalls while the kernel reclaims"},
	    {"always [defer] defer+madvise madvise never\n", "defer",
	     "wakes kswapd and kcompactd to reclaim and compact memory in the background"},
	    {"always defer [defer+madvise] madvise never\n", "defer+madvise",
	     "marked MADV_HUGEPAGE stalls while the kernel reclaims and compacts memory, other "
	     "faults wake kswapd and kcompactd"},
	    {"always defer defer+madvise [madvise] never\n", "madvise",
	     "a fault in memory marked MADV_HUGEPAGE stalls while the kernel reclaims and "
	     "compacts memory,"},
	};
	char seen[128];

	(void)state;
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		put("sys/kernel/mm/transparent_hugepage/defrag", modes[i].file);
		one_finding("thp defrag", NULL);
		snprintf(seen, sizeof seen, "(transparent_hugepage/defrag = %s): ", modes[i].mode);
		assert_non_null(strstr(text, seen));
		assert_non_null(strstr(text, modes[i].what));
		assert_non_null(
		    strstr(text, "; echo never > /sys/kernel/mm/transparent_hugepage/defrag\n"));
	}
	put("sys/kernel/mm/transparent_hugepage/defrag",
	    "always defer defer+madvise madvise [never]\n");
	assert_int_equal(audit(NULL), 0);
	drop("sys/kernel/mm/transparent_hugepage/defrag");
	assert_int_equal(audit(NULL), 0);
}

static void khugepaged_defrag_on(void **state)
{
	(void)state;
	put("sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "1\n");
	one_finding("khugepaged", NULL);
	assert_non_null(strstr(text, "(transparent_hugepage/khugepaged/defrag = 1): "));
	assert_non_null(
	    strstr(text, "; echo 0 > /sys/kernel/mm/transparent_hugepage/khugepaged/defrag\n"));
	put("sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "0\n");
	assert_int_equal(audit(NULL), 0);
	drop("sys/kernel/mm/transparent_hugepage/khugepaged/defrag");
	assert_int_equal(audit(NULL), 0);
}

/* A size turned on by itself (multi-size THP) is a finding even where
 * transparent_hugepage/enabled is never; inherit follows that file. */
static void thp_sizes_on_by_themselves(void **state)
{
	(void)state;
	put("sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
	    "[always] inherit madvise never\n");
	one_finding("thp sizes", NULL);
	assert_non_null(strstr(text, "(hugepages-64kB/enabled = always): "));
	assert_non_null(strstr(text, "echo never > /sys/kernel/mm/transparent_hugepage/"
				     "hugepages-SIZE/enabled for each\n"));
	put("sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled",
	    "always inherit [madvise] never\n");
	put("sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled",
	    "always inherit [madvise] never\n");
	one_finding("thp sizes", NULL);
	assert_non_null(strstr(text, "(hugepages-16kB/enabled = madvise, hugepages-64kB/enabled = "
				     "always, hugepages-2048kB/enabled = madvise): "));
	put("sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled",
	    "always [inherit] madvise never\n");
	put("sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
	    "always inherit madvise [never]\n");
	put("sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled",
	    "always [inherit] madvise never\n");
	assert_int_equal(audit(NULL), 0);
	/* inherit under enabled = always is the huge pages finding alone. */
	put("sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
	one_finding("huge pages", NULL);
}

/* Shared memory with huge pages: each mode but never and deny, and a size
 * turned on by itself. */
static void shmem_huge_pages(void **state)
{
	static const char *const modes[][2] = {
	    {"[always] within_size advise never deny force\n", "always"},
	    {"always [within_size] advise never deny force\n", "within_size"},
	    {"always within_size [advise] never deny force\n", "advise"},
	    {"always within_size advise never deny [force]\n", "force"},
	};
	char seen[128];

	(void)state;
	for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
		put("sys/kernel/mm/transparent_hugepage/shmem_enabled", modes[i][0]);
		one_finding("shmem thp", NULL);
		snprintf(seen, sizeof seen, "(transparent_hugepage/shmem_enabled = %s): ",
			 modes[i][1]);
		assert_non_null(strstr(text, seen));
		assert_non_null(
		    strstr(text, "echo never > /sys/kernel/mm/transparent_hugepage/shmem_enabled\n"));
	}
	assert_non_null(strstr(text, "the box's /tmp and /dev/shm included"));
	put("sys/kernel/mm/transparent_hugepage/shmem_enabled",
	    "always within_size advise never [deny] force\n");
	assert_int_equal(audit(NULL), 0);
	put("sys/kernel/mm/transparent_hugepage/hugepages-2048kB/shmem_enabled",
	    "always inherit [within_size] advise never\n");
	one_finding("shmem thp", NULL);
	assert_non_null(strstr(text, "(hugepages-2048kB/shmem_enabled = within_size): "));
	assert_non_null(strstr(text, "and into hugepages-SIZE/shmem_enabled for each size named\n"));
	drop("sys/kernel/mm/transparent_hugepage/shmem_enabled");
	one_finding("shmem thp", NULL);
	drop("sys/kernel/mm/transparent_hugepage/hugepages-2048kB/shmem_enabled");
	assert_int_equal(audit(NULL), 0);
}

static void aslr_adds_noise(void **state)
{
	(void)state;
	put("proc/sys/kernel/randomize_va_space", "2\n");
	one_finding("aslr", NULL);
	assert_non_null(strstr(text, "adds some noise"));
	assert_non_null(strstr(text, "randomize_va_space = 2"));
	put("proc/sys/kernel/randomize_va_space", "1\n");
	one_finding("aslr", NULL);
}

static void core_pattern_piped_to_a_program(void **state)
{
	(void)state;
	put("proc/sys/kernel/core_pattern", "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t\n");
	one_finding("core_pattern", NULL);
	assert_non_null(strstr(text, "(|/usr/lib/systemd/systemd-coredump %P"));
	put("proc/sys/kernel/core_pattern", "/var/crash/core.%p\n");
	assert_int_equal(audit(NULL), 0);
}

static void every_finding_at_once(void **state)
{
	(void)state;
	put("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n/swapfile file 1 0 -2\n");
	put("sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0-1\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "ondemand\n");
	put("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
	put("sys/devices/system/cpu/cpufreq/boost", "1\n");
	put("sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
	put("sys/kernel/mm/transparent_hugepage/defrag",
	    "always [defer] defer+madvise madvise never\n");
	put("sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "1\n");
	put("proc/sys/kernel/randomize_va_space", "2\n");
	put("sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
	    "[always] inherit madvise never\n");
	put("sys/kernel/mm/transparent_hugepage/shmem_enabled",
	    "always [within_size] advise never deny force\n");
	put("proc/sys/kernel/core_pattern", "|/bin/false\n");
	assert_int_equal(audit("0"), 12);
	assert_int_equal(lines(), 2 + 12);
	assert_null(strstr(text, "nothing found"));
}

/* Over the audit's pause, CPU 1 (audited) is 50% busy, its SMT sibling
 * CPU 3 20%, CPU 2 (audited) 5%, and CPU 0, neither audited nor a sibling,
 * 90%. */
static void busy_cpus_and_their_siblings(void **state)
{
	char before[512] = "cpu  1 2 3 4 5 6 7 8 0 0\n", after[512] = "cpu  9 9 9 9 9 9 9 9 0 0\n";

	(void)state;
	put("sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1,3\n");
	put("sys/devices/system/cpu/cpu3/topology/thread_siblings_list", "1,3\n");
	for (int c = 0; c < 4; c++)
		stat_line(before, sizeof before, c, 1000, 1000);
	stat_line(after, sizeof after, 0, 1000 + 90, 1000 + 10);
	stat_line(after, sizeof after, 1, 1000 + 50, 1000 + 50);
	stat_line(after, sizeof after, 2, 1000 + 5, 1000 + 95);
	stat_line(after, sizeof after, 3, 1000 + 20, 1000 + 80);
	put("proc/stat", before);
	put("proc/stat.next", after);
	audit("1-2");
	assert_int_equal(lines_starting("busy "), 1);
	assert_non_null(strstr(text, "CPU 1: 50%, CPU 3 (an SMT sibling): 20%;"));
	assert_null(strstr(text, "CPU 0"));
	assert_null(strstr(text, "CPU 2"));
}

/* Nothing busier than HOSTCHECK_BUSY_PCT, or no second reading: no line. */
static void idle_cpus_are_not_named(void **state)
{
	char before[512] = "", after[512] = "";

	(void)state;
	for (int c = 0; c < 4; c++) {
		stat_line(before, sizeof before, c, 100, 100);
		stat_line(after, sizeof after, c, 100 + 9, 100 + 91);
	}
	put("proc/stat", before);
	put("proc/stat.next", after);
	assert_int_equal(audit(NULL), 0);
	assert_int_equal(lines_starting("busy "), 0);
	put("proc/stat", "cpu0 garbage\n");
	assert_int_equal(audit(NULL), 0);
}

static void cpu_times_parse(void **state)
{
	unsigned long long busy, total;

	(void)state;
	assert_int_equal(hostcheck_cpu_times("cpu  1 1 1 1 1 1 1 1\ncpu0 10 1 2 30 4 5 6 7 0 0\n"
					     "cpu1 1 1 1 1 1 1 1 1\n",
					     0, &busy, &total),
			 0);
	assert_int_equal(total, 65);
	assert_int_equal(busy, 31);
	assert_int_equal(hostcheck_cpu_times("cpu0 1 2\n", 0, &busy, &total), -1);
	assert_int_equal(hostcheck_cpu_times("cpu10 1 1 1 1 1 1 1 1\n", 1, &busy, &total), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(a_quiet_host_has_nothing_to_say, setup, teardown),
	    cmocka_unit_test_setup_teardown(missing_files_are_no_findings, setup, teardown),
	    cmocka_unit_test_setup_teardown(swap_without_accounting_says_memory_max_misses_it,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(swap_accounted_is_still_a_finding, setup, teardown),
	    cmocka_unit_test_setup_teardown(swap_seen_in_meminfo, setup, teardown),
	    cmocka_unit_test_setup_teardown(smt_siblings_of_the_chosen_cpus, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_governor_other_than_performance, setup, teardown),
	    cmocka_unit_test_setup_teardown(turbo_and_boost, setup, teardown),
	    cmocka_unit_test_setup_teardown(huge_pages_in_any_mode_but_never, setup, teardown),
	    cmocka_unit_test_setup_teardown(thp_defrag_in_any_mode_but_never, setup, teardown),
	    cmocka_unit_test_setup_teardown(khugepaged_defrag_on, setup, teardown),
	    cmocka_unit_test_setup_teardown(thp_sizes_on_by_themselves, setup, teardown),
	    cmocka_unit_test_setup_teardown(shmem_huge_pages, setup, teardown),
	    cmocka_unit_test_setup_teardown(aslr_adds_noise, setup, teardown),
	    cmocka_unit_test_setup_teardown(core_pattern_piped_to_a_program, setup, teardown),
	    cmocka_unit_test_setup_teardown(every_finding_at_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(busy_cpus_and_their_siblings, setup, teardown),
	    cmocka_unit_test_setup_teardown(idle_cpus_are_not_named, setup, teardown),
	    cmocka_unit_test(cpu_times_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
