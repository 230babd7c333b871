// SPDX-License-Identifier: ISC
// Opens files until it fails and tries to raise RLIMIT_NOFILE, to check the --nofile cap.
//
// usage: nofile OUT
// OUT gets one line: "soft S hard H opened N error E raise R" where N is the
// number of opens that succeeded, E the errno name of the first failure and R
// "ok" or the errno name of setrlimit raising both limits by one.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const char *errname(int e)
{
	switch (e) {
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	default: return strerror(e);
	}
}

int main(int argc, char **argv)
{
	struct rlimit rl, up;
	const char *raise_result;
	int opened = 0, err = 0, fd, last = -1;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: nofile OUT\n");
		return 2;
	}
	getrlimit(RLIMIT_NOFILE, &rl);
	for (;;) {
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0) {
			err = errno;
			break;
		}
		opened++;
		last = fd;
		if (opened > 100000)
			break;
	}
	/* Close them again: OUT needs a descriptor too. */
	for (fd = 3; fd <= last; fd++)
		close(fd);
	up.rlim_cur = rl.rlim_max == RLIM_INFINITY ? RLIM_INFINITY : rl.rlim_max + 1;
	up.rlim_max = up.rlim_cur;
	raise_result = setrlimit(RLIMIT_NOFILE, &up) == 0 ? "ok" : errname(errno);
	f = fopen(argv[1], "w");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	fprintf(f, "soft %llu hard %llu opened %d error %s raise %s\n",
		(unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max,
		opened, err ? errname(err) : "none", raise_result);
	return fclose(f) == 0 ? 0 : 1;
}
