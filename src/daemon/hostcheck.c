// SPDX-License-Identifier: ISC
// --check's audit of the host: what makes run times noisy, a line each with what to do.
//
// A judge compares run times with limits, so what makes the same program
// take different times on the same machine is worth a line: swap, which
// runs a program paged out at disk speed, a busy SMT sibling, a clock that follows the load or
// the temperature, huge pages that a program gets or not and memory
// compacted for them, in its page faults or behind its back,
// random address layouts, and a crash handed to a program the verdict then
// waits for. Everything is read from procfs and sysfs below a root that
// tests replace with a fixture tree; nothing is written.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostcheck.h"

#define HC_NAME_W 14
#define HC_CPU "sys/devices/system/cpu"

/* The first line of root/rel, without its newline, in buf; -1 if it cannot
 * be read. */
static int hc_read(const char *root, const char *rel, char *buf, size_t len)
{
	char path[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int hc_exists(const char *root, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%s", root, rel);
	return access(path, F_OK) == 0;
}

/* A CPU list file (online, thread_siblings_list) as a set; -1 if missing or
 * not a list. */
static int hc_read_cpus(const char *root, const char *rel, struct units_cpuset *set)
{
	char buf[4096];

	if (hc_read(root, rel, buf, sizeof buf) < 0 || units_parse_cpuset(buf, set) != NULL)
		return -1;
	return 0;
}

__attribute__((format(printf, 3, 4))) static void hc_finding(FILE *out, const char *name,
							     const char *fmt, ...)
{
	va_list ap;

	fprintf(out, "%-*s ", HC_NAME_W, name);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

/* Whether a memory cgroup here can limit swap: a cgroup hierarchy mounted
 * below sys/fs/cgroup (v1: memory/, or v2 itself) whose root or first-level
 * cgroups have memory.memsw.limit_in_bytes (v1) or memory.swap.max (v2; a
 * root cgroup has none, its children do). */
static int hc_swap_accounted(const char *root)
{
	char path[4096], rel[1024];
	struct dirent *de;
	int found = 0;
	DIR *d;

	if (hc_exists(root, "sys/fs/cgroup/memory.memsw.limit_in_bytes"))
		return 1;
	snprintf(path, sizeof path, "%s/sys/fs/cgroup", root);
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof rel, "sys/fs/cgroup/%s/memory.memsw.limit_in_bytes",
			 de->d_name);
		found = hc_exists(root, rel);
		snprintf(rel, sizeof rel, "sys/fs/cgroup/%s/memory.swap.max", de->d_name);
		found = found || hc_exists(root, rel);
	}
	closedir(d);
	return found;
}

/* SwapTotal of root/proc/meminfo in kB; 0 if it cannot be read. */
static unsigned long long hc_swap_total(const char *root)
{
	char path[4096], line[256];
	unsigned long long kb = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/proc/meminfo", root);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "SwapTotal: %llu", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Swap on: the first device of /proc/swaps (and whether there are more),
 * else SwapTotal of /proc/meminfo, in what; 0 if there is no swap. */
static int hc_swap_on(const char *root, char *what, size_t len)
{
	char path[4096], line[512], dev[256] = "";
	unsigned long long kb;
	FILE *f;
	int n = 0;

	snprintf(path, sizeof path, "%s/proc/swaps", root);
	f = fopen(path, "re");
	/* The first line is the header. */
	while (f && fgets(line, sizeof line, f))
		if (n++ == 1 && sscanf(line, "%255s", dev) != 1)
			dev[0] = '\0';
	if (f)
		fclose(f);
	if (dev[0]) {
		snprintf(what, len, "%s%s", dev, n > 2 ? " and more" : "");
		return 1;
	}
	kb = hc_swap_total(root);
	if (kb == 0)
		return 0;
	snprintf(what, len, "SwapTotal %llu kB", kb);
	return 1;
}

/* Swap on: a program paged out runs at disk speed, and a memory cgroup
 * either does not count swap or counts it apart. */
static size_t hc_swap(const char *root, FILE *out)
{
	char what[320];

	if (!hc_swap_on(root, what, sizeof what))
		return 0;
	if (!hc_swap_accounted(root))
		hc_finding(out, "swap",
			   "on (%s) and not accounted to cgroups (no memory.swap.max, no memsw): "
			   "--memory-max does not cover swap, and a program paged out runs at "
			   "disk speed; turn swap off (swapoff -a), or at least boot with "
			   "swapaccount=1",
			   what);
	else
		hc_finding(out, "swap",
			   "on (%s), accounted to cgroups: a program paged out runs at disk speed, "
			   "and what it holds is counted in two parts, memory and swap "
			   "(--memory-max sets memory.swap.max 0, or memsw to the limit; a run "
			   "without it may swap freely); the machine's other paging competes for "
			   "the disk too; turn swap off (swapoff -a)",
			   what);
	return 1;
}

/* The CPUs audited: the chosen ones that are online. */
static int hc_cpus(const char *root, const struct units_cpuset *cpus, struct units_cpuset *set)
{
	struct units_cpuset online;

	if (hc_read_cpus(root, HC_CPU "/online", &online) < 0)
		return -1;
	*set = online;
	if (cpus && !units_cpuset_empty(cpus))
		for (size_t i = 0; i < UNITS_CPUSET_MAX / 64; i++)
			set->bits[i] = cpus->bits[i] & online.bits[i];
	return 0;
}

/* The online SMT siblings of the audited CPUs; -1 if the online CPUs cannot
 * be read. */
static int hc_siblings(const char *root, const struct units_cpuset *set,
		       struct units_cpuset *sibs)
{
	struct units_cpuset online;
	char rel[256];

	memset(sibs, 0, sizeof *sibs);
	if (hc_read_cpus(root, HC_CPU "/online", &online) < 0)
		return -1;
	for (unsigned c = 0; c < UNITS_CPUSET_MAX; c++) {
		struct units_cpuset t;

		if (!units_cpuset_has(set, c))
			continue;
		snprintf(rel, sizeof rel, HC_CPU "/cpu%u/topology/thread_siblings_list", c);
		if (hc_read_cpus(root, rel, &t) < 0)
			continue;
		for (unsigned s = 0; s < UNITS_CPUSET_MAX; s++)
			if (s != c && units_cpuset_has(&t, s) && units_cpuset_has(&online, s))
				units_cpuset_add(sibs, s);
	}
	return 0;
}

/* Online SMT siblings of the audited CPUs: they share a core's units. */
static size_t hc_smt(const char *root, const struct units_cpuset *set, FILE *out)
{
	struct units_cpuset sibs;
	char a[256], b[256];

	if (hc_siblings(root, set, &sibs) < 0 || units_cpuset_empty(&sibs))
		return 0;
	units_format_cpuset(set, a, sizeof a);
	units_format_cpuset(&sibs, b, sizeof b);
	hc_finding(out, "smt",
		   "CPUs %s share their cores with the SMT siblings %s, online: work on a sibling "
		   "slows the program by a varying amount; give --cpuset one CPU per core and keep "
		   "its siblings idle (isolcpus=) or offline (echo 0 > "
		   "/sys/devices/system/cpu/cpuN/online), or turn SMT off (echo off > "
		   "/sys/devices/system/cpu/smt/control)",
		   a, b);
	return 1;
}

static void hc_sleep(unsigned ms)
{
	struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void (*hostcheck_pause)(unsigned ms) = hc_sleep;

int hostcheck_cpu_times(const char *stat, unsigned cpu, unsigned long long *busy,
			unsigned long long *total)
{
	char key[32];
	size_t klen = (size_t)snprintf(key, sizeof key, "cpu%u ", cpu);

	for (const char *p = stat; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		unsigned long long v[8] = {0};
		char *end;
		const char *q;

		if (strncmp(p, key, klen) != 0)
			continue;
		q = p + klen;
		/* user nice system idle iowait irq softirq steal */
		for (int i = 0; i < 8; i++, q = end) {
			v[i] = strtoull(q, &end, 10);
			if (end == q)
				return -1;
		}
		*total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		*busy = *total - v[3] - v[4];
		return 0;
	}
	return -1;
}

/* root/proc/stat whole, in a buffer to free; NULL if it cannot be read. */
static char *hc_stat(const char *root)
{
	char path[4096], *buf;
	size_t len = 0, cap = 1 << 16;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "%s/proc/stat", root);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	buf = fd >= 0 ? malloc(cap) : NULL;
	while (buf && len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	if (fd >= 0)
		close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* The audited CPUs and their SMT siblings busy with other work: proctord
 * runs nothing yet, so whatever keeps them busy will compete with the
 * program, or with its core's shared units. */
static size_t hc_busy(const char *root, const struct units_cpuset *set, FILE *out)
{
	struct units_cpuset sibs, watch = *set;
	char *before = hc_stat(root), *after, list[1024] = "";
	size_t len = 0;

	if (!before)
		return 0;
	if (hc_siblings(root, set, &sibs) == 0)
		for (size_t i = 0; i < UNITS_CPUSET_MAX / 64; i++)
			watch.bits[i] |= sibs.bits[i];
	hostcheck_pause(HOSTCHECK_SAMPLE_MS);
	after = hc_stat(root);
	for (unsigned c = 0; after && c < UNITS_CPUSET_MAX && len < sizeof list - 64; c++) {
		unsigned long long b0, t0, b1, t1;

		if (!units_cpuset_has(&watch, c) || hostcheck_cpu_times(before, c, &b0, &t0) < 0 ||
		    hostcheck_cpu_times(after, c, &b1, &t1) < 0 || t1 <= t0 || b1 < b0 ||
		    (b1 - b0) * 100 < (t1 - t0) * HOSTCHECK_BUSY_PCT)
			continue;
		len += (size_t)snprintf(list + len, sizeof list - len, "%sCPU %u%s: %llu%%",
					len ? ", " : "", c,
					units_cpuset_has(set, c) ? "" : " (an SMT sibling)",
					(b1 - b0) * 100 / (t1 - t0));
	}
	free(before);
	free(after);
	if (!len)
		return 0;
	hc_finding(out, "busy",
		   "busy with other work over %u ms: %s; the program "
		   "would get less of them, by an amount that varies: move that work away "
		   "(taskset, a cpuset cgroup) or give --cpuset CPUs that are idle, with idle "
		   "siblings",
		   HOSTCHECK_SAMPLE_MS, list);
	return 1;
}

/* A cpufreq governor other than performance on an audited CPU. */
static size_t hc_governor(const char *root, const struct units_cpuset *set, FILE *out)
{
	struct units_cpuset slow;
	char rel[256], gov[64], first[64] = "", list[256];

	memset(&slow, 0, sizeof slow);
	for (unsigned c = 0; c < UNITS_CPUSET_MAX; c++) {
		if (!units_cpuset_has(set, c))
			continue;
		snprintf(rel, sizeof rel, HC_CPU "/cpu%u/cpufreq/scaling_governor", c);
		if (hc_read(root, rel, gov, sizeof gov) < 0 || strcmp(gov, "performance") == 0)
			continue;
		units_cpuset_add(&slow, c);
		if (!first[0])
			snprintf(first, sizeof first, "%s", gov);
	}
	if (units_cpuset_empty(&slow))
		return 0;
	units_format_cpuset(&slow, list, sizeof list);
	hc_finding(out, "governor",
		   "CPUs %s run the cpufreq governor %s, not performance: the clock follows the "
		   "load, so the same run takes different times; echo performance > "
		   "/sys/devices/system/cpu/cpuN/cpufreq/scaling_governor (or cpupower "
		   "frequency-set -g performance)",
		   list, first);
	return 1;
}

/* Turbo (intel_pstate) or boost (acpi-cpufreq, amd-pstate): a clock that
 * depends on how many cores are busy and how warm the chip is. */
static size_t hc_turbo(const char *root, FILE *out)
{
	char v[32];
	size_t n = 0;

	if (hc_read(root, HC_CPU "/intel_pstate/no_turbo", v, sizeof v) == 0 &&
	    strcmp(v, "0") == 0) {
		hc_finding(
		    out, "turbo",
		    "on (intel_pstate/no_turbo = 0): the clock rises while few cores are busy "
		    "and the chip is cool, so run times depend on the machine's load and "
		    "temperature; echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo");
		n++;
	}
	if (hc_read(root, HC_CPU "/cpufreq/boost", v, sizeof v) == 0 && strcmp(v, "1") == 0) {
		hc_finding(out, "boost",
			   "on (cpufreq/boost = 1): the clock rises while few cores are busy and "
			   "the chip is cool, so run times depend on the machine's load and "
			   "temperature; echo 0 > /sys/devices/system/cpu/cpufreq/boost");
		n++;
	}
	return n;
}

#define HC_THP "sys/kernel/mm/transparent_hugepage"

/* The mode chosen in a THP file that lists them all with the chosen one in
 * brackets ("always [madvise] never"), in mode; a file without brackets is
 * taken whole. -1 if the file cannot be read (no THP in this kernel). */
static int hc_thp_mode(const char *root, const char *rel, char *mode, size_t len)
{
	char v[256];
	const char *lb, *rb;

	if (hc_read(root, rel, v, sizeof v) < 0)
		return -1;
	lb = strchr(v, '[');
	rb = lb ? strchr(lb, ']') : NULL;
	if (lb && rb)
		snprintf(mode, len, "%.*s", (int)(rb - lb - 1), lb + 1);
	else
		snprintf(mode, len, "%s", v);
	return 0;
}

/* Transparent huge pages in any mode but never: whether a program gets huge
 * pages depends on how fragmented free memory is at the time. */
static size_t hc_thp(const char *root, FILE *out)
{
	char mode[256];

	if (hc_thp_mode(root, HC_THP "/enabled", mode, sizeof mode) < 0 ||
	    strcmp(mode, "never") == 0)
		return 0;
	hc_finding(out, "huge pages",
		   "transparent huge pages are on (transparent_hugepage/enabled = %s): %s gets "
		   "huge pages or not as free memory allows at the time, so its page faults, TLB "
		   "misses and resident size vary from run to run; echo never > "
		   "/sys/kernel/mm/transparent_hugepage/enabled",
		   mode,
		   strcmp(mode, "madvise") == 0
		       ? "a program that asks for them (madvise MADV_HUGEPAGE, as some runtimes "
			 "and allocators do)"
		       : "every program");
	return 1;
}

/* What the kernel does for a page fault that wants a huge page, by the mode
 * of transparent_hugepage/defrag. */
static const char *hc_defrag_what(const char *mode)
{
	if (strcmp(mode, "always") == 0)
		return "a fault that wants a huge page stalls while the kernel reclaims and "
		       "compacts memory";
	if (strcmp(mode, "defer") == 0)
		return "a fault that wants a huge page wakes kswapd and kcompactd to reclaim "
		       "and compact memory in the background";
	if (strcmp(mode, "defer+madvise") == 0)
		return "a fault in memory marked MADV_HUGEPAGE stalls while the kernel reclaims "
		       "and compacts memory, other faults wake kswapd and kcompactd to do it";
	if (strcmp(mode, "madvise") == 0)
		return "a fault in memory marked MADV_HUGEPAGE stalls while the kernel reclaims "
		       "and compacts memory";
	return "faults that want a huge page reclaim or compact memory";
}

/* Huge page faults that reclaim or compact memory, in the fault or in the
 * background: work whose length depends on the state of memory. */
static size_t hc_thp_defrag(const char *root, FILE *out)
{
	char mode[256];

	if (hc_thp_mode(root, HC_THP "/defrag", mode, sizeof mode) < 0 ||
	    strcmp(mode, "never") == 0)
		return 0;
	hc_finding(out, "thp defrag",
		   "huge pages are made by compacting memory (transparent_hugepage/defrag = %s): "
		   "%s, which takes longer the more fragmented memory is; echo never > "
		   "/sys/kernel/mm/transparent_hugepage/defrag",
		   mode, hc_defrag_what(mode));
	return 1;
}

/* khugepaged reclaiming and compacting memory for the huge pages it merges
 * small ones into, behind the program's back. */
static size_t hc_khugepaged(const char *root, FILE *out)
{
	char v[32];

	if (hc_read(root, HC_THP "/khugepaged/defrag", v, sizeof v) < 0 || strcmp(v, "0") == 0)
		return 0;
	hc_finding(out, "khugepaged",
		   "khugepaged reclaims and compacts memory to merge small pages into huge ones "
		   "(transparent_hugepage/khugepaged/defrag = %s): that work, and the merge, "
		   "which locks the program's memory map while it copies its pages, come at "
		   "times no run can foresee; echo 0 > "
		   "/sys/kernel/mm/transparent_hugepage/khugepaged/defrag",
		   v);
	return 1;
}

/* The hugepages-<size>kB directories of the THP sysfs directory (multi-size
 * THP, Linux 6.8 on), sorted by size, in names; how many. */
static size_t hc_thp_sizes(const char *root, char (*names)[32], size_t max)
{
	char path[4096];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof path, "%s/" HC_THP, root);
	d = opendir(path);
	if (!d)
		return 0;
	while (n < max && (de = readdir(d)))
		if (strncmp(de->d_name, "hugepages-", 10) == 0 && strlen(de->d_name) < 32)
			snprintf(names[n++], 32, "%s", de->d_name);
	closedir(d);
	/* By size: "hugepages-64kB" after "hugepages-16kB". */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strtoul(names[j - 1] + 10, NULL, 10) >
						strtoul(names[j] + 10, NULL, 10);
		     j--) {
			char t[32];

			memcpy(t, names[j], 32);
			memcpy(names[j], names[j - 1], 32);
			memcpy(names[j - 1], t, 32);
		}
	return n;
}

/* The sizes whose file (enabled, shmem_enabled) chooses a mode of on[] for
 * themselves ("inherit" follows the top-level file, audited on its own),
 * as "hugepages-64kB/enabled = always, ..." in list; how many. */
static size_t hc_thp_sized(const char *root, const char *file, const char *const *on, char *list,
			   size_t len)
{
	char names[64][32], rel[256], mode[64];
	size_t n = hc_thp_sizes(root, names, 64), found = 0, used = 0;

	list[0] = '\0';
	for (size_t i = 0; i < n && used + 96 < len; i++) {
		int hit = 0;

		snprintf(rel, sizeof rel, HC_THP "/%s/%s", names[i], file);
		if (hc_thp_mode(root, rel, mode, sizeof mode) < 0)
			continue;
		for (size_t k = 0; on[k]; k++)
			hit |= strcmp(mode, on[k]) == 0;
		if (!hit)
			continue;
		used += (size_t)snprintf(list + used, len - used, "%s%s/%s = %s", found ? ", " : "",
					 names[i], file, mode);
		found++;
	}
	return found;
}

/* Multi-size THP: a size turned on by itself is used whatever
 * transparent_hugepage/enabled says, never included. */
static size_t hc_mthp(const char *root, FILE *out)
{
	static const char *const on[] = {"always", "madvise", NULL};
	char list[1024];

	if (!hc_thp_sized(root, "enabled", on, list, sizeof list))
		return 0;
	hc_finding(out, "thp sizes",
		   "transparent huge pages of these sizes are on by themselves (%s): a program "
		   "(every one for always, one that asks with MADV_HUGEPAGE for madvise) gets "
		   "them or not as free memory allows, whatever transparent_hugepage/enabled "
		   "says; echo never > /sys/kernel/mm/transparent_hugepage/hugepages-SIZE/enabled "
		   "for each",
		   list);
	return 1;
}

/* Huge pages for shared memory (System V shm, memfd, shared anonymous
 * mappings: the kernel's internal tmpfs), and with force for every tmpfs,
 * the box's /tmp and /dev/shm included. never and deny give none. */
static size_t hc_shmem(const char *root, FILE *out)
{
	static const char *const on[] = {"always", "within_size", "advise", NULL};
	char mode[64] = "never", list[1024];
	int top = hc_thp_mode(root, HC_THP "/shmem_enabled", mode, sizeof mode) == 0 &&
		  strcmp(mode, "never") != 0 && strcmp(mode, "deny") != 0;
	size_t sized = hc_thp_sized(root, "shmem_enabled", on, list, sizeof list);

	if (!top && !sized)
		return 0;
	hc_finding(out, "shmem thp",
		   "shared memory gets transparent huge pages (%s%s%s%s): %s gets them or not as "
		   "free memory allows, so its faults and resident size vary from run to run; "
		   "echo never > /sys/kernel/mm/transparent_hugepage/shmem_enabled%s",
		   top ? "transparent_hugepage/shmem_enabled = " : "", top ? mode : "",
		   top && sized ? ", " : "", sized ? list : "",
		   strcmp(mode, "force") == 0
		       ? "every tmpfs, the box's /tmp and /dev/shm included, and every System V "
			 "segment, memfd and shared anonymous mapping"
		       : "a program's System V segments, memfds and shared anonymous mappings "
			 "(advise: those it marks MADV_HUGEPAGE)",
		   sized ? ", and into hugepages-SIZE/shmem_enabled for each size named" : "");
	return 1;
}

static size_t hc_aslr(const char *root, FILE *out)
{
	char v[32];

	if (hc_read(root, "proc/sys/kernel/randomize_va_space", v, sizeof v) < 0 ||
	    strcmp(v, "0") == 0)
		return 0;
	hc_finding(out, "aslr",
		   "address space layout randomization is on (kernel.randomize_va_space = %s): it "
		   "adds some noise, as layouts and so cache behaviour change from run to run; it "
		   "also protects the machine, so turn it off (sysctl kernel.randomize_va_space=0) "
		   "only where reproducible times matter more",
		   v);
	return 1;
}

static size_t hc_core_pattern(const char *root, FILE *out)
{
	char v[256];

	if (hc_read(root, "proc/sys/kernel/core_pattern", v, sizeof v) < 0 || v[0] != '|')
		return 0;
	hc_finding(
	    out, "core_pattern",
	    "cores are piped to a program (%s): the kernel hands it every crash whatever "
	    "RLIMIT_CORE says (proctord sets 0), and the crashed program's end waits for it; "
	    "sysctl kernel.core_pattern=core",
	    v);
	return 1;
}

size_t hostcheck_print(const char *root, const struct units_cpuset *cpus, FILE *out)
{
	struct units_cpuset set;
	size_t n = 0;

	fprintf(out, "\n%-*s what makes run times noisy on this host (nothing was changed)\n",
		HC_NAME_W, "host audit");
	n += hc_swap(root, out);
	if (hc_cpus(root, cpus, &set) == 0) {
		n += hc_smt(root, &set, out);
		n += hc_busy(root, &set, out);
		n += hc_governor(root, &set, out);
	}
	n += hc_turbo(root, out);
	n += hc_thp(root, out);
	n += hc_thp_defrag(root, out);
	n += hc_khugepaged(root, out);
	n += hc_mthp(root, out);
	n += hc_shmem(root, out);
	n += hc_aslr(root, out);
	n += hc_core_pattern(root, out);
	if (n == 0)
		fprintf(out,
			"%-*s nothing found (swap, SMT, busy CPUs, cpufreq, turbo, huge pages, "
			"THP defrag, khugepaged, THP sizes, shmem THP, ASLR, core_pattern)\n",
			HC_NAME_W, "");
	return n;
}
