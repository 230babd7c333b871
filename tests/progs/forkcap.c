// SPDX-License-Identifier: ISC
// A bounded fork bomb: forks up to N sleeping children, stops at the first refused fork, prints how many it made.
//
// usage: forkcap N
// Prints "forked K" (K <= N) and exits 0; the children sleep until the
// sandbox kills them. Bounded, so that a limit that does not hold costs N
// processes, not the machine.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, k = 0;

	if (argc != 2)
		return 2;
	n = strtol(argv[1], NULL, 10);
	for (; k < n; k++) {
		pid_t pid = fork();

		if (pid == 0) {
			for (;;)
				pause();
		}
		if (pid < 0) {
			printf("fork %ld: %s\n", k + 1, strerror(errno));
			break;
		}
	}
	printf("forked %ld\n", k);
	return 0;
}
