// SPDX-License-Identifier: ISC
// Fuzz target: the configuration loader on a whole proctor.conf held in a memory file.
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "fuzz.h"

static int fuzz_fd = -1;
static FILE *fuzz_null;
static char fuzz_path[64];

/* An optional first line "@NAME" picks the profile; the rest is the file. */
/* What --check would say serves a cgroup key; the cgroups themselves are
 * not what this target fuzzes. */
static void fuzz_mechanism(void *ctx, const struct config_key *k, char *buf, size_t len)
{
	(void)ctx;
	snprintf(buf, len, "mechanism of %s", k->name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char profile[128], err[2048];
	const char *prof = NULL;
	struct config c;

	if (fuzz_fd < 0) {
		fuzz_fd = memfd_create("proctor.conf", MFD_CLOEXEC);
		fuzz_null = fopen("/dev/null", "we");
		FUZZ_CHECK(fuzz_fd >= 0 && fuzz_null);
		snprintf(fuzz_path, sizeof fuzz_path, "/proc/self/fd/%d", fuzz_fd);
	}
	if (size > 0 && data[0] == '@') {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t n = nl ? (size_t)(nl - data) - 1 : size - 1;

		if (n >= sizeof profile || memchr(data + 1, '\0', n))
			return 0;
		memcpy(profile, data + 1, n);
		profile[n] = '\0';
		prof = profile;
		size -= nl ? n + 2 : n + 1;
		data += nl ? n + 2 : n + 1;
	}
	FUZZ_CHECK(ftruncate(fuzz_fd, 0) == 0);
	FUZZ_CHECK(pwrite(fuzz_fd, data, size, 0) == (ssize_t)size);

	config_init(&c);
	memset(err, 'x', sizeof err);
	if (config_load(&c, fuzz_path, prof, err, sizeof err) == 0) {
		/* What proctord does next with a loaded file. */
		if (config_validate(&c, err, sizeof err) < 0)
			FUZZ_CHECK(err[0] && !strchr(err, '\n'));
		config_print_check(&c, fuzz_null, fuzz_mechanism, NULL);
	} else {
		/* One line naming the file, for the one-line error proctord prints. */
		FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
		FUZZ_CHECK(strncmp(err, fuzz_path, strlen(fuzz_path)) == 0);
		FUZZ_CHECK(!strchr(err, '\n'));
	}
	config_free(&c);
	return 0;
}
