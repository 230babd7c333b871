// SPDX-License-Identifier: ISC
// Diagnostics: fatal errors before the loop, logged-and-continued errors inside it.
#ifndef PROCTOR_LOG_H
#define PROCTOR_LOG_H

#include <stdarg.h>
#include <stdnoreturn.h>

/* Exit codes of proctord; documented in the README and proctord --help. */
enum {
	EXIT_PROTOCOL_DONE = 0,
	EXIT_INTERNAL = 1,
	EXIT_USAGE = 2,
	EXIT_SETUP = 3,
	EXIT_INTERRUPTED = 4,
};

void log_init(const char *progname);
void log_set_quiet(int quiet);
/* fn(ctx) is called before log_fatal and log_fatalx exit, once (proctord's
 * teardown: sandbox_end). NULL: nothing. */
void log_on_fatal(void (*fn)(void *ctx), void *ctx);
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void log_fatalx(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
noreturn void log_fatal(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
