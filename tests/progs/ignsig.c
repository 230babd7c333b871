// SPDX-License-Identifier: ISC
// Ignores SIGINT, SIGTERM, SIGHUP and SIGQUIT, or (with SAVE) saves the first
// one's name to SAVE and exits 3; makes READY once that is in place.
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static const char *save;

static void on_signal(int sig)
{
	const char *name = sigabbrev_np(sig);
	int fd = open(save, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd >= 0) {
		if (write(fd, name, strlen(name)) < 0)
			_exit(4);
		close(fd);
	}
	_exit(3);
}

int main(int argc, char **argv)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	int fd;

	if (argc < 2 || argc > 3)
		return 2;
	save = argc == 3 ? argv[2] : NULL;
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		signal(sigs[i], save ? on_signal : SIG_IGN);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return 2;
	close(fd);
	for (;;)
		pause();
}
