// SPDX-License-Identifier: ISC
// The wait FIFO's byte stream turned into requests: "1", "0", or invalid.
#ifndef PROCTOR_REQUEST_H
#define PROCTOR_REQUEST_H

#include <stddef.h>

enum request_kind {
	REQUEST_CONTINUE,
	REQUEST_TERMINATE,
	REQUEST_INVALID,
};

/* Keep only the start of a garbage run: it is echoed back in one line. */
#define REQUEST_GARBAGE_MAX 24

struct request_parser {
	int after_request; /* the last significant byte was a request */
	int in_garbage;
	size_t garbage_len; /* total length of the run, may exceed what is kept */
	char garbage[REQUEST_GARBAGE_MAX + 1];
};

/* garbage: the start of an invalid request (len bytes, may hold NULs). */
typedef void (*request_cb)(void *ctx, enum request_kind kind, const char *garbage, size_t len);

void request_parser_init(struct request_parser *p);
/* Feed one read()'s worth of bytes; cb is called once per complete request. */
void request_parse(struct request_parser *p, const char *buf, size_t n, request_cb cb, void *ctx);
/* End of one read: an unterminated garbage run becomes one invalid request, so
 * that a client writing "abc" without a newline still gets an answer. */
void request_flush(struct request_parser *p, request_cb cb, void *ctx);

#endif
