// SPDX-License-Identifier: ISC
// The wait FIFO's byte stream turned into requests.
#include <string.h>

#include "request.h"

void request_parser_init(struct request_parser *p)
{
	memset(p, 0, sizeof *p);
}

static void garbage_end(struct request_parser *p, request_cb cb, void *ctx)
{
	size_t kept = p->garbage_len < REQUEST_GARBAGE_MAX ? p->garbage_len : REQUEST_GARBAGE_MAX;

	p->garbage[kept] = '\0';
	cb(ctx, REQUEST_INVALID, p->garbage, kept);
	p->in_garbage = 0;
	p->garbage_len = 0;
	p->after_request = 0;
}

void request_parse(struct request_parser *p, const char *buf, size_t n, request_cb cb, void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		char c = buf[i];

		if (p->in_garbage) {
			if (c == '\n') {
				garbage_end(p, cb, ctx);
			} else {
				if (p->garbage_len < REQUEST_GARBAGE_MAX)
					p->garbage[p->garbage_len] = c;
				p->garbage_len++;
			}
			continue;
		}
		switch (c) {
		case ' ':
		case '\t':
		case '\r':
			break;
		case '0':
		case '1':
			cb(ctx, c == '1' ? REQUEST_CONTINUE : REQUEST_TERMINATE, NULL, 0);
			p->after_request = 1;
			break;
		case '\n':
			/* A newline ends the request before it; on its own it is an
			 * empty request, answered as invalid so the client's read of
			 * the status FIFO does not hang. */
			if (!p->after_request)
				cb(ctx, REQUEST_INVALID, "", 0);
			p->after_request = 0;
			break;
		default:
			p->in_garbage = 1;
			p->garbage[0] = c;
			p->garbage_len = 1;
			break;
		}
	}
}

void request_flush(struct request_parser *p, request_cb cb, void *ctx)
{
	if (p->in_garbage)
		garbage_end(p, cb, ctx);
}
