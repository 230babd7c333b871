// SPDX-License-Identifier: ISC
// Fake /proc trees for the unit tests of the /proc walk and the measure: a
// directory (under the test's working directory) with the files they read.
#ifndef PROCTOR_TEST_PROCFIX_H
#define PROCTOR_TEST_PROCFIX_H

/* The fixture's path, once procfix_make has made it. */
extern char procfix_dir[64];

/* Make an empty fixture; remove it and all it holds. */
int procfix_make(void **state);
int procfix_remove(void **state);

/* Write text to the file rel (made with its directories). */
void procfix_put(const char *rel, const char *text);
/* Remove rel and everything under it. */
void procfix_rm(const char *rel);

/* A process: its stat (state, parent, threads, reaped children's CPU in
 * ticks, start time), statm (resident pages) and the children file of its
 * main thread (NULL: none). */
void procfix_proc(int pid, char state, int ppid, int threads, unsigned cutime,
		  unsigned long long starttime, int resident, const char *children);
/* The children file of another thread of pid. */
void procfix_thread(int pid, int tid, const char *children);

#endif
