// SPDX-License-Identifier: ISC
// Strict parsing and formatting of durations, sizes and counts.
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "units.h"

struct unit {
	const char *name;
	uint64_t mult;
};

/* Longest names first is not needed: matching is on the whole suffix. */
static const struct unit duration_units[] = {
	{"", 1000000}, {"us", 1}, {"ms", 1000}, {"s", 1000000}, {"sec", 1000000},
	{"m", 60000000}, {"min", 60000000}, {"h", 3600000000}, {NULL, 0},
};

/* Single letters are binary, as Docker (--memory 512m) and systemd (MemoryMax=512M)
 * read them, and so are KiB..TiB. A bare number is parsed as bytes, but
 * units_parse_size takes it only for 0: isolate counts KiB, proctord counted
 * bytes, and a number copied from one to the other was 1024 times off.
 * KB..TB are not here: Docker reads "256mb" as 256 MiB, SI as 256 * 10^6
 * bytes, and which one the operator meant cannot be told. */
static const struct unit size_units[] = {
	{"", 1}, {"B", 1},
	{"K", 1ull << 10}, {"KiB", 1ull << 10},
	{"M", 1ull << 20}, {"MiB", 1ull << 20},
	{"G", 1ull << 30}, {"GiB", 1ull << 30},
	{"T", 1ull << 40}, {"TiB", 1ull << 40},
	{NULL, 0},
};

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The suffix ends at the string's end or at trailing white space. */
static size_t suffix_len(const char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n;
}

static int is_unlimited(const char *s)
{
	s = skip_space(s);
	return strncasecmp(s, "unlimited", 9) == 0 && *skip_space(s + 9) == '\0';
}

/* Parse "123" or "1.25" into an integer part and a fraction (numerator over
 * 10^frac_digits, at most 9 digits kept). Returns the position after the number. */
static const char *parse_number(const char *s, uint64_t *whole, uint64_t *frac, uint64_t *frac_den,
				const char **err)
{
	uint64_t w = 0, f = 0, den = 1;
	int digits = 0;

	if (*s == '-') {
		*err = "negative values are not accepted";
		return NULL;
	}
	if (*s == '+') {
		*err = "expected a number";
		return NULL;
	}
	while (isdigit((unsigned char)*s)) {
		unsigned d = (unsigned)(*s - '0');

		if (w > (UINT64_MAX - d) / 10) {
			*err = "number too large";
			return NULL;
		}
		w = w * 10 + d;
		s++;
		digits++;
	}
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s)) {
			*err = "expected digits after the decimal point";
			return NULL;
		}
		while (isdigit((unsigned char)*s)) {
			if (den < 1000000000u) {
				f = f * 10 + (uint64_t)(*s - '0');
				den *= 10;
			}
			s++;
		}
		digits++;
	}
	if (digits == 0) {
		*err = "expected a number";
		return NULL;
	}
	*whole = w;
	*frac = f;
	*frac_den = den;
	return s;
}

/* What every parser does first: s missing, or "unlimited" (then *out is
 * UNITS_UNLIMITED). Returns 1 when s is settled, with *err NULL or the
 * error, else 0. */
static int parse_unlimited(const char *s, int allow_unlimited, uint64_t *out, const char **err)
{
	*err = NULL;
	if (!s) {
		*err = "empty value";
		return 1;
	}
	if (!is_unlimited(s))
		return 0;
	if (!allow_unlimited)
		*err = "\"unlimited\" is not accepted here";
	else
		*out = UNITS_UNLIMITED;
	return 1;
}

static const char *parse_with_units(const char *s, int allow_unlimited, const struct unit *units,
				    const char *unit_help, uint64_t *out)
{
	const char *err = NULL;
	uint64_t whole, frac, den;
	const struct unit *u;
	size_t n;

	if (parse_unlimited(s, allow_unlimited, out, &err))
		return err;
	s = skip_space(s);
	if (*s == '\0')
		return "empty value";
	s = parse_number(s, &whole, &frac, &den, &err);
	if (!s)
		return err;
	s = skip_space(s);
	n = suffix_len(s);
	for (u = units; u->name; u++) {
		if (strlen(u->name) == n && strncasecmp(s, u->name, n) == 0)
			break;
	}
	if (!u->name)
		return unit_help;
	if (whole > UINT64_MAX / u->mult)
		return "value too large";
	whole *= u->mult;
	/* frac * mult / den without overflow: frac < den <= 1e9, and mult may
	 * be 2^40, so split mult by den. */
	{
		uint64_t part = u->mult / den * frac + u->mult % den * frac / den;

		if (whole > UINT64_MAX - part)
			return "value too large";
		whole += part;
	}
	if (whole == UNITS_UNLIMITED)
		return "value too large";
	*out = whole;
	return NULL;
}

/* Durations become nanoseconds for the timers: keep them far from overflow.
 * 10^15 us is over 31 years. */
#define UNITS_DURATION_MAX_US 1000000000000000ull

const char *units_parse_duration(const char *s, int allow_unlimited, uint64_t *out_us)
{
	const char *err = parse_with_units(s, allow_unlimited, duration_units,
					   "unknown duration unit (use us, ms, s, m or h)", out_us);

	if (!err && *out_us != UNITS_UNLIMITED && *out_us > UNITS_DURATION_MAX_US)
		return "too long (at most 31 years; or \"unlimited\")";
	return err;
}

/* The unit of a size as written: what follows the number, blanks around it
 * left out; its length in *len. */
static const char *size_suffix(const char *s, size_t *len)
{
	s = skip_space(s);
	while (isdigit((unsigned char)*s) || *s == '.')
		s++;
	s = skip_space(s);
	*len = suffix_len(s);
	return s;
}

const char *units_parse_size(const char *s, int allow_unlimited, uint64_t *out_bytes)
{
	static const char *const decimal[] = {"KB", "MB", "GB", "TB", NULL};
	const char *err, *suffix;
	uint64_t v;
	size_t n;

	err = parse_with_units(s, allow_unlimited, size_units,
			       "unknown size unit (use B, KiB, MiB, GiB, TiB, or K, M, G, T for "
			       "the same)",
			       &v);
	if (err && s && !is_unlimited(s)) {
		suffix = size_suffix(s, &n);
		for (size_t i = 0; decimal[i]; i++)
			if (n == 2 && strncasecmp(suffix, decimal[i], 2) == 0)
				return "KB, MB, GB and TB are 1000^n bytes to some and 1024^n to "
				       "others (Docker): write KiB, MiB, GiB, TiB (1024^n), or the "
				       "bytes with B";
	}
	if (err)
		return err;
	/* Bare: only a 0 ("0.1" is no byte either, but was not meant as 0). */
	if (v != UNITS_UNLIMITED && (size_suffix(s, &n), n == 0) &&
	    strspn(skip_space(s), "0.") != strcspn(skip_space(s), " \t"))
		return "a size needs its unit: B (bytes), KiB (isolate's unit), MiB, GiB, or "
		       "K, M, G, T; only 0 may be bare";
	*out_bytes = v;
	return NULL;
}

static const struct unit cpu_units[] = {
	{"", 1000}, {"%", 10}, {NULL, 0},
};

const char *units_parse_cpus(const char *s, int allow_unlimited, uint64_t *out_milli)
{
	const char *err = parse_with_units(s, allow_unlimited, cpu_units,
					   "expected a number of CPUs (1.5) or a percentage (150%)",
					   out_milli);

	if (err)
		return err;
	if (*out_milli == 0)
		return "must be more than 0 (at least 0.001 CPU)";
	if (*out_milli != UNITS_UNLIMITED && *out_milli > UNITS_CPUS_MAX_MILLI)
		return "too many CPUs (at most 65536; or \"unlimited\")";
	return NULL;
}

const char *units_parse_count(const char *s, int allow_unlimited, uint64_t *out)
{
	const char *err;
	uint64_t v = 0;

	if (parse_unlimited(s, allow_unlimited, out, &err))
		return err;
	s = skip_space(s);
	if (*s == '-')
		return "negative values are not accepted";
	if (!isdigit((unsigned char)*s))
		return "expected a whole number";
	while (isdigit((unsigned char)*s)) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - 1 - d) / 10)
			return "number too large";
		v = v * 10 + d;
		s++;
	}
	if (*skip_space(s) != '\0')
		return "expected a whole number";
	*out = v;
	return NULL;
}

void units_format_duration(uint64_t us, char *buf, size_t len)
{
	if (us == UNITS_UNLIMITED)
		snprintf(buf, len, "unlimited");
	else if (us >= 1000000)
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 "s", us / 1000000, us % 1000000 / 1000);
	else if (us % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "ms", us / 1000);
	else
		snprintf(buf, len, "%" PRIu64 "us", us);
}

void units_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const bin[] = {"TiB", "GiB", "MiB", "KiB"};
	int i;

	if (bytes == UNITS_UNLIMITED) {
		snprintf(buf, len, "unlimited");
		return;
	}
	for (i = 0; i < 4; i++) {
		uint64_t m = 1ull << (10 * (4 - i));

		if (bytes >= m && bytes % m == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", bytes / m, bin[i]);
			return;
		}
	}
	/* A decimal size, such as 10^6, exact in bytes: KB..TB do not read
	 * back. */
	if (bytes >= 1000 && bytes % 1000 == 0) {
		snprintf(buf, len, "%" PRIu64 "B", bytes);
		return;
	}
	/* Two decimals, rounded down: rounding to nearest printed 2^64 - 1
	 * bytes as "16777216.00TiB", a size that no longer reads back. */
	for (i = 0; i < 4; i++) {
		uint64_t m = 1ull << (10 * (4 - i));

		if (bytes >= m) {
			snprintf(buf, len, "%" PRIu64 ".%02" PRIu64 "%s", bytes / m,
				 bytes % m * 100 / m, bin[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64 "B", bytes);
}

void units_format_cpus(uint64_t milli, char *buf, size_t len)
{
	if (milli == UNITS_UNLIMITED)
		snprintf(buf, len, "unlimited");
	else if (milli % 1000 == 0)
		snprintf(buf, len, "%" PRIu64, milli / 1000);
	else
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, milli / 1000, milli % 1000);
	/* "1.500" reads better as "1.5". */
	if (strchr(buf, '.')) {
		size_t n = strlen(buf);

		while (n > 0 && buf[n - 1] == '0')
			buf[--n] = '\0';
	}
}

int units_cpuset_has(const struct units_cpuset *set, unsigned cpu)
{
	return cpu < UNITS_CPUSET_MAX && (set->bits[cpu / 64] >> (cpu % 64) & 1u);
}

void units_cpuset_add(struct units_cpuset *set, unsigned cpu)
{
	if (cpu < UNITS_CPUSET_MAX)
		set->bits[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

int units_cpuset_empty(const struct units_cpuset *set)
{
	for (size_t i = 0; i < UNITS_CPUSET_MAX / 64; i++)
		if (set->bits[i])
			return 0;
	return 1;
}

/* One CPU number at *s, advanced past it. */
static const char *cpuset_number(const char **s, unsigned *out)
{
	unsigned v = 0;

	if (!isdigit((unsigned char)**s))
		return "expected a CPU list such as 0, 1-3 or 0,2,4-7";
	while (isdigit((unsigned char)**s)) {
		v = v * 10 + (unsigned)(**s - '0');
		if (v >= UNITS_CPUSET_MAX)
			return "CPU number too large (at most 1023)";
		(*s)++;
	}
	*out = v;
	return NULL;
}

const char *units_parse_cpuset(const char *s, struct units_cpuset *out)
{
	struct units_cpuset set;

	memset(&set, 0, sizeof set);
	if (!s || !*s)
		return "expected a CPU list such as 0, 1-3 or 0,2,4-7";
	for (;;) {
		unsigned lo, hi;
		const char *err = cpuset_number(&s, &lo);

		if (err)
			return err;
		hi = lo;
		if (*s == '-') {
			s++;
			err = cpuset_number(&s, &hi);
			if (err)
				return err;
			if (hi < lo)
				return "a range of CPUs must go up (1-3, not 3-1)";
		}
		for (unsigned c = lo; c <= hi; c++)
			units_cpuset_add(&set, c);
		if (*s == '\0')
			break;
		if (*s != ',')
			return "expected a CPU list such as 0, 1-3 or 0,2,4-7";
		s++;
	}
	*out = set;
	return NULL;
}

void units_format_cpuset(const struct units_cpuset *set, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (unsigned c = 0; c < UNITS_CPUSET_MAX; c++) {
		unsigned end = c;
		char item[32];
		size_t n;

		if (!units_cpuset_has(set, c))
			continue;
		while (end + 1 < UNITS_CPUSET_MAX && units_cpuset_has(set, end + 1))
			end++;
		if (end == c)
			snprintf(item, sizeof item, "%s%u", used ? "," : "", c);
		else
			snprintf(item, sizeof item, "%s%u-%u", used ? "," : "", c, end);
		n = strlen(item);
		if (used + n >= len) {
			/* Cut after a whole item, and say so: a shorter list
			 * would be a wrong set. */
			size_t at = used;

			if (len < 4)
				return;
			if (at + 4 > len) {
				at = len - 4;
				while (at > 0 && buf[at - 1] != ',')
					at--;
			}
			memcpy(buf + at, "...", 4);
			return;
		}
		memcpy(buf + used, item, n + 1);
		used += n;
		c = end;
	}
}
