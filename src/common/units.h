// SPDX-License-Identifier: ISC
// Strict parsing and formatting of durations, sizes and counts, shared by options and config.
#ifndef PROCTOR_UNITS_H
#define PROCTOR_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* A limit that is not set. */
#define UNITS_UNLIMITED UINT64_MAX

/* Each parser returns NULL on success, or a static text saying what is wrong
 * ("unknown unit", "too large", ...). "unlimited" yields UNITS_UNLIMITED where
 * allow_unlimited is set. */

/* Durations: bare number = seconds; us, ms, s, m, h; fractions allowed ("1.5s"). */
const char *units_parse_duration(const char *s, int allow_unlimited, uint64_t *out_us);
/* Sizes: B; K M G T (binary, as Docker and systemd); KiB MiB GiB TiB;
 * fractions allowed ("1.5GiB"). A bare number is refused but for 0, and so
 * are KB MB GB TB (decimal to some, binary to Docker). */
const char *units_parse_size(const char *s, int allow_unlimited, uint64_t *out_bytes);
/* CPU bandwidth becomes a quota of 100 µs per thousandth of a CPU in each
 * 100 ms period: 65536 CPUs (more than Linux runs on) keep that quota far
 * below both 2^64 and the kernel's own bound (2^44 µs). */
#define UNITS_CPUS_MAX_MILLI 65536000ull

/* CPU shares: "1.5" (CPUs) or "150%"; in thousandths of a CPU, above 0 and
 * at most UNITS_CPUS_MAX_MILLI. */
const char *units_parse_cpus(const char *s, int allow_unlimited, uint64_t *out_milli);
/* Counts: a non-negative decimal integer. */
const char *units_parse_count(const char *s, int allow_unlimited, uint64_t *out);

/* A set of CPU numbers (--cpuset): bit n of bits[n / 64] is CPU n. As wide
 * as glibc's cpu_set_t, which sched_setaffinity takes. Empty: not set. */
#define UNITS_CPUSET_MAX 1024
struct units_cpuset {
	uint64_t bits[UNITS_CPUSET_MAX / 64];
};

/* A CPU list as the kernel writes one ("0", "1-3", "0,2,5-7"): numbers and
 * ascending ranges, comma-separated, no blanks, each CPU below
 * UNITS_CPUSET_MAX; at least one CPU. */
const char *units_parse_cpuset(const char *s, struct units_cpuset *out);
/* The canonical list ("0-2,5"), "" for the empty set; one that does not fit
 * in buf is cut and ends in "..." (buf of at least 4). */
void units_format_cpuset(const struct units_cpuset *set, char *buf, size_t len);
int units_cpuset_has(const struct units_cpuset *set, unsigned cpu);
void units_cpuset_add(struct units_cpuset *set, unsigned cpu);
int units_cpuset_empty(const struct units_cpuset *set);

/* "1.500s", "50ms", "2.000s"; "unlimited" */
void units_format_duration(uint64_t us, char *buf, size_t len);
/* "256MiB", "1.5GiB", "100B"; "unlimited" */
void units_format_size(uint64_t bytes, char *buf, size_t len);
/* "1.5", "2"; "unlimited" */
void units_format_cpus(uint64_t milli, char *buf, size_t len);

#endif
