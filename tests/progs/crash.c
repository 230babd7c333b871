// SPDX-License-Identifier: ISC
// Ends in a chosen way (segv, abort, exit N) so the status heads can be checked.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "segv") == 0) {
		/* raise() rather than a bad pointer: the compiler may not drop it, and it is a real SIGSEGV death. */
		raise(SIGSEGV);
	} else if (argc >= 2 && strcmp(argv[1], "abort") == 0) {
		abort();
	} else if (argc >= 3 && strcmp(argv[1], "exit") == 0) {
		return atoi(argv[2]);
	}
	fprintf(stderr, "usage: crash segv|abort|exit N\n");
	return 2;
}
