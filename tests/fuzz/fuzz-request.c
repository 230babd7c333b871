// SPDX-License-Identifier: ISC
// Fuzz target: the wait FIFO's request parser, fed the same bytes whole and in pieces.
#include <string.h>

#include "fuzz.h"
#include "request.h"

#define MAX_EVENTS 4096

struct events {
	size_t n;
	enum request_kind kind[MAX_EVENTS];
	size_t len[MAX_EVENTS];
	char garbage[MAX_EVENTS][REQUEST_GARBAGE_MAX + 1];
};

static void fuzz_collect(void *ctx, enum request_kind kind, const char *garbage, size_t len)
{
	struct events *ev = ctx;

	FUZZ_CHECK(kind == REQUEST_CONTINUE || kind == REQUEST_TERMINATE ||
		   kind == REQUEST_INVALID);
	FUZZ_CHECK(len <= REQUEST_GARBAGE_MAX);
	if (kind != REQUEST_INVALID)
		FUZZ_CHECK(garbage == NULL && len == 0);
	else
		FUZZ_CHECK(garbage != NULL && garbage[len] == '\0');
	if (ev->n == MAX_EVENTS)
		return;
	ev->kind[ev->n] = kind;
	ev->len[ev->n] = len;
	if (garbage)
		memcpy(ev->garbage[ev->n], garbage, len + 1);
	ev->n++;
}

static int fuzz_events_equal(const struct events *a, const struct events *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->kind[i] != b->kind[i] || a->len[i] != b->len[i] ||
		    memcmp(a->garbage[i], b->garbage[i], a->len[i]) != 0)
			return 0;
	return 1;
}

/* The first byte chooses the piece sizes; the rest is the byte stream. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct events whole, split, flushed;
	struct request_parser p;
	unsigned seed;
	size_t requests = 0;

	if (size < 1)
		return 0;
	seed = data[0];
	data++;
	size--;

	/* Bytes in one read. */
	memset(&whole, 0, sizeof whole);
	request_parser_init(&p);
	request_parse(&p, (const char *)data, size, fuzz_collect, &whole);
	request_flush(&p, fuzz_collect, &whole);

	/* The same bytes in pieces, no flush in between: a request split across
	 * reads must give exactly the same requests. */
	memset(&split, 0, sizeof split);
	request_parser_init(&p);
	for (size_t off = 0, i = 0; off < size; i++) {
		size_t piece = 1 + ((seed + i * 7) % 5);

		if (piece > size - off)
			piece = size - off;
		request_parse(&p, (const char *)data + off, piece, fuzz_collect, &split);
		off += piece;
	}
	request_flush(&p, fuzz_collect, &split);
	FUZZ_CHECK(fuzz_events_equal(&whole, &split));

	/* As proctord reads the FIFO: a flush after every read. Every '0' and
	 * '1' outside garbage is one request; each read ends any garbage run. */
	memset(&flushed, 0, sizeof flushed);
	request_parser_init(&p);
	for (size_t off = 0; off < size;) {
		size_t piece = 1 + (seed % 3);

		if (piece > size - off)
			piece = size - off;
		request_parse(&p, (const char *)data + off, piece, fuzz_collect, &flushed);
		request_flush(&p, fuzz_collect, &flushed);
		off += piece;
	}
	for (size_t i = 0; i < size; i++)
		requests += data[i] == '\n';
	/* Each newline ends at most one request, invalid or not, and the
	 * requests without one end at a read: never more answers than
	 * newlines plus bytes. */
	FUZZ_CHECK(flushed.n <= requests + size);
	return 0;
}
