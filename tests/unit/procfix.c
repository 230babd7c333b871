// SPDX-License-Identifier: ISC
// Fake /proc trees for the unit tests of the /proc walk and the measure.
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "procfix.h"

char procfix_dir[64];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int procfix_make(void **state)
{
	(void)state;
	snprintf(procfix_dir, sizeof procfix_dir, "proc-fixture.XXXXXX");
	return mkdtemp(procfix_dir) ? 0 : -1;
}

int procfix_remove(void **state)
{
	(void)state;
	return nftw(procfix_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void procfix_put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", procfix_dir, rel);
	/* mkdir -p of the file's directory */
	for (slash = strchr(path + strlen(procfix_dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	/* "w" truncates the same file: a descriptor the code under test keeps
	 * open reads the new text, as it would in /proc. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

void procfix_rm(const char *rel)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", procfix_dir, rel);
	assert_int_equal(nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

void procfix_proc(int pid, char state, int ppid, int threads, unsigned cutime,
		  unsigned long long starttime, int resident, const char *children)
{
	char rel[128], text[512];

	snprintf(rel, sizeof rel, "%d/stat", pid);
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt
	 * cmajflt utime stime cutime cstime priority nice num_threads
	 * itrealvalue starttime vsize rss */
	snprintf(text, sizeof text,
		 "%d (a) b) %c %d %d %d 0 -1 0 0 0 0 0 0 0 %u 0 20 0 %d 0 %llu 0 0\n", pid, state,
		 ppid, pid, pid, cutime, threads, starttime);
	procfix_put(rel, text);
	snprintf(rel, sizeof rel, "%d/statm", pid);
	snprintf(text, sizeof text, "100 %d 0 0 0 0 0\n", resident);
	procfix_put(rel, text);
	if (children)
		procfix_thread(pid, pid, children);
}

void procfix_thread(int pid, int tid, const char *children)
{
	char rel[128];

	snprintf(rel, sizeof rel, "%d/task/%d/children", pid, tid);
	procfix_put(rel, children);
}
