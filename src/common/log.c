// SPDX-License-Identifier: ISC
// Diagnostics on stderr, prefixed with the program name.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static const char *log_progname = "proctord";
static int log_quiet;
static void (*log_fatal_fn)(void *ctx);
static void *log_fatal_ctx;

void log_init(const char *progname)
{
	log_progname = progname;
}

void log_set_quiet(int quiet)
{
	log_quiet = quiet;
}

void log_on_fatal(void (*fn)(void *ctx), void *ctx)
{
	log_fatal_fn = fn;
	log_fatal_ctx = ctx;
}

/* The hook, once: one that ends in log_fatal itself does not run again. */
static void log_run_fatal_hook(void)
{
	void (*fn)(void *ctx) = log_fatal_fn;

	log_fatal_fn = NULL;
	if (fn)
		fn(log_fatal_ctx);
}

__attribute__((format(printf, 2, 0))) static void log_vprint(int with_errno, const char *fmt,
							     va_list ap)
{
	int saved = errno;
	char buf[1024], ebuf[128], *msg = NULL;

	/* Whole, however long: a long path must not cut off the reason that
	 * follows it. */
	if (vasprintf(&msg, fmt, ap) < 0) {
		msg = NULL;
		snprintf(buf, sizeof buf, "%s", fmt);
	}
	if (with_errno)
		fprintf(stderr, "%s: %s: %s\n", log_progname, msg ? msg : buf,
			strerror_r(saved, ebuf, sizeof ebuf));
	else
		fprintf(stderr, "%s: %s\n", log_progname, msg ? msg : buf);
	free(msg);
	errno = saved;
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	if (log_quiet)
		return;
	va_start(ap, fmt);
	log_vprint(0, fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	if (log_quiet)
		return;
	va_start(ap, fmt);
	log_vprint(1, fmt, ap);
	va_end(ap);
}

void log_fatalx(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(0, fmt, ap);
	va_end(ap);
	log_run_fatal_hook();
	/* Before proctord's opener thread exists: it starts in the loop,
	 * and set-up failures are all that end proctord this way. */
	exit(code); // NOLINT(concurrency-mt-unsafe)
}

void log_fatal(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(1, fmt, ap);
	va_end(ap);
	log_run_fatal_hook();
	exit(code); // NOLINT(concurrency-mt-unsafe): as log_fatalx
}
