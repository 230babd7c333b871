// SPDX-License-Identifier: ISC
// Fuzz target: libproctor's parser of proctord's three-line answers.
#include <inttypes.h>
#include <string.h>

#include "fuzz.h"
#include "proctor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct proctor_result res, again;
	static char canon[2048];
	size_t slen, hlen;
	int n;

	if (proctor_parse((const char *)data, size, &res) != PROCTOR_OK)
		return 0;

	/* Every text field is NUL-terminated inside its array. */
	slen = strnlen(res.status, sizeof res.status);
	hlen = strnlen(res.head, sizeof res.head);
	FUZZ_CHECK(slen < sizeof res.status && slen > 0);
	FUZZ_CHECK(hlen < sizeof res.head && hlen <= slen);
	FUZZ_CHECK(strnlen(res.text, sizeof res.text) < sizeof res.text);
	FUZZ_CHECK(strnlen(res.signal, sizeof res.signal) < sizeof res.signal);
	FUZZ_CHECK(strnlen(res.reason, sizeof res.reason) < sizeof res.reason);
	/* The head is the start of the status line, up to ": " if any. */
	FUZZ_CHECK(memcmp(res.head, res.status, hlen) == 0);
	FUZZ_CHECK(res.status[hlen] == '\0' ||
		   (res.status[hlen] == ':' && res.status[hlen + 1] == ' '));
	FUZZ_CHECK(strchr(res.status, '\n') == NULL);
	switch (res.kind) {
	case PROCTOR_RUNNING:
		FUZZ_CHECK(strcmp(res.head, "running") == 0);
		break;
	case PROCTOR_INVALID:
		FUZZ_CHECK(strcmp(res.head, "invalid") == 0);
		break;
	case PROCTOR_EXITED:
		FUZZ_CHECK(res.exit_code >= 0 && res.exit_code <= 255);
		break;
	case PROCTOR_SIGNALED:
		FUZZ_CHECK(strncmp(res.signal, "SIG", 3) == 0 && res.signal[3]);
		break;
	case PROCTOR_KILLED:
	case PROCTOR_FAILED:
		FUZZ_CHECK(res.reason[0] != '\0');
		break;
	default:
		FUZZ_CHECK(!"a kind outside the enum");
	}

	/* What was accepted, written back in canonical form, parses to the same. */
	n = snprintf(canon, sizeof canon, "%" PRIu64 "\n%" PRIu64 "\n%s\n", res.cpu_us,
		     res.memory_bytes, res.status);
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof canon);
	FUZZ_CHECK(proctor_parse(canon, (size_t)n, &again) == PROCTOR_OK);
	FUZZ_CHECK(memcmp(&res, &again, sizeof res) == 0);
	return 0;
}
