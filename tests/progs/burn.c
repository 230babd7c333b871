// SPDX-License-Identifier: ISC
// Burns a known amount of CPU per section, so a test can compare proctord's CPU delta with getrusage's.
//
// usage: burn MS FIFO OUT [once]
// Each time a writer opens FIFO, writes and closes it, burn MS ms of CPU and
// write the getrusage(RUSAGE_SELF) user+sys delta of that burn, in µs, to
// OUT.K (K = 1, 2, ...). Between sections the program blocks in open(), so it
// uses no CPU while the test takes its readings. With "once", exit 0 after
// the first section (to check that a descendant's CPU outlives it).
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

static int64_t rusage_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0) {
		perror("getrusage");
		exit(1);
	}
	return (int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec +
	       (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
}

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void wait_for_writer(const char *fifo)
{
	char buf[64];
	ssize_t n;
	int fd;

	/* Blocking open: this is the synchronisation point, it sleeps until the test writes. */
	while ((fd = open(fifo, O_RDONLY)) < 0) {
		if (errno != EINTR) {
			perror(fifo);
			exit(1);
		}
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno != EINTR) {
			perror("read");
			exit(1);
		}
	}
	close(fd);
}

static void write_result(const char *out, unsigned section, int64_t delta)
{
	char tmp[4096], final[4096];
	FILE *f;

	snprintf(final, sizeof(final), "%s.%u", out, section);
	snprintf(tmp, sizeof(tmp), "%s.%u.tmp", out, section);
	f = fopen(tmp, "w");
	if (f == NULL) {
		perror(tmp);
		exit(1);
	}
	fprintf(f, "%lld\n", (long long)delta);
	/* Rename so the test never reads a half-written figure. */
	if (fclose(f) != 0 || rename(tmp, final) < 0) {
		perror(final);
		exit(1);
	}
}

/* The loop's result goes here, so the compiler cannot drop the loop. */
static volatile uint64_t burn_sink;

int main(int argc, char **argv)
{
	int64_t ms, before, after, end;
	unsigned section;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: burn MS FIFO OUT [once]\n");
		return 2;
	}
	ms = strtoll(argv[1], NULL, 10);
	for (section = 1;; section++) {
		wait_for_writer(argv[2]);
		before = rusage_us();
		end = cpu_ns() + ms * 1000000;
		while (cpu_ns() < end)
			for (int i = 0; i < 1000; i++)
				burn_sink += (uint64_t)i * 2654435761u;
		after = rusage_us();
		write_result(argv[3], section, after - before);
		if (argc == 5)
			return 0;
	}
}
