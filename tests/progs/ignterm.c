// SPDX-License-Identifier: ISC
// Ignores SIGTERM and sleeps, so only a forced kill can end it.
#include <signal.h>
#include <unistd.h>

int main(void)
{
	signal(SIGTERM, SIG_IGN);
	for (;;)
		pause();
}
