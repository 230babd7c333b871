// SPDX-License-Identifier: ISC
// Traces a process so that its death is reported to us first: its parent cannot reap it until we let go.
//
// usage: ptracehold PID MS
// PTRACE_SEIZE PID (it keeps running), print "seized", then exit after MS ms
// without waiting for it. Once PID has died, its zombie is visible only to
// its tracer: the parent's wait4() finds it when we exit. This holds a
// killed program in the moment between its kill and its reaping.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	long ms;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: ptracehold PID MS\n");
		return 2;
	}
	pid = (pid_t)atol(argv[1]);
	ms = atol(argv[2]);
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) < 0) {
		perror("ptracehold: PTRACE_SEIZE");
		return 1;
	}
	printf("seized\n");
	fflush(stdout);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
}
