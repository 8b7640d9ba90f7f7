// SPDX-License-Identifier: GPL-2.0
/* The flight recorder's memory (include/record/ring.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "lib/tracerec.h"
#include "record/ring.h"
#include "trace/block_trace.h"

/*
 * Requests reach userspace in the order the per-CPU rings are drained, not
 * strictly by completion: a chunk leaves by time only once its newest
 * request is this much older than the span, so that a request completed
 * within the span is never in a chunk gone before a trigger at "now".
 */
#define RING_SLACK_NS	1000000000ULL

struct chunk {
	unsigned char *z;	/* the chunk's RQ records, compressed */
	size_t zlen;
	__u32 raw;		/* their bytes before compression */
	__u64 oldest, newest;	/* their times (block_rq_time()) */
};

struct ring {
	__u64 span_ns;
	size_t max_bytes;
	struct chunk *c;	/* a circular index: head is the oldest */
	size_t cap, head, n;
	size_t zbytes;		/* of all chunks' z */
	__u64 whole_from;	/* see ring_whole_from() */
	__u64 newest;		/* the latest completion seen */
	struct chunk open;	/* being filled, in buf */
	unsigned char buf[RING_CHUNK];
	size_t len;
};

struct ring *ring_new(__u64 span_ns, size_t max_bytes)
{
	struct ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->span_ns = span_ns;
	r->max_bytes = max_bytes;
	r->open.oldest = UINT64_MAX;
	return r;
}

void ring_free(struct ring *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->c[(r->head + i) % r->cap].z);
	free(r->c);
	free(r);
}

size_t ring_bytes(const struct ring *r)
{
	return sizeof(*r) + r->cap * sizeof(*r->c) + r->zbytes;
}

__u64 ring_whole_from(const struct ring *r)
{
	return r->whole_from;
}

static void drop_oldest(struct ring *r)
{
	struct chunk *c = &r->c[r->head];

	/* Whatever it held completed at or before its newest. */
	if (c->newest + 1 > r->whole_from)
		r->whole_from = c->newest + 1;
	r->zbytes -= c->zlen;
	free(c->z);
	r->head = (r->head + 1) % r->cap;
	r->n--;
}

static void drop_old(struct ring *r)
{
	while (r->n && (ring_bytes(r) > r->max_bytes ||
			(r->span_ns && r->c[r->head].newest + r->span_ns + RING_SLACK_NS < r->newest)))
		drop_oldest(r);
}

/* Room for one more chunk in the index. */
static int index_grow(struct ring *r)
{
	size_t cap = r->cap ? 2 * r->cap : 64;
	struct chunk *c;

	if (r->n < r->cap)
		return 0;
	c = malloc(cap * sizeof(*c));
	if (!c)
		return -1;
	for (size_t i = 0; i < r->n; i++)
		c[i] = r->c[(r->head + i) % r->cap];
	free(r->c);
	r->c = c;
	r->cap = cap;
	r->head = 0;
	return 0;
}

/* The open chunk compressed into the index; on failure its requests are
 * gone, and the ring is whole only after them. */
static int seal(struct ring *r)
{
	struct chunk *c = &r->open;
	uLongf zlen = compressBound(r->len);
	int ret = -1;

	if (!r->len)
		return 0;
	c->raw = r->len;
	c->z = malloc(zlen);
	/* Level 1, as record's files: the ring must keep up with the kernel. */
	if (c->z && compress2(c->z, &zlen, r->buf, r->len, 1) == Z_OK &&
	    !index_grow(r)) {
		unsigned char *z = realloc(c->z, zlen);

		c->z = z ? z : c->z;
		c->zlen = zlen;
		r->c[(r->head + r->n) % r->cap] = *c;
		r->n++;
		r->zbytes += zlen;
		ret = 0;
	} else {
		free(c->z);
		if (c->newest + 1 > r->whole_from)
			r->whole_from = c->newest + 1;
	}
	memset(c, 0, sizeof(*c));
	c->oldest = UINT64_MAX;
	r->len = 0;
	drop_old(r);
	return ret;
}

int ring_add(struct ring *r, const struct iolens_rq *rq)
{
	struct buf b;
	__u64 t = block_rq_time(rq);

	if (r->len + RQ_LEN > sizeof(r->buf) && seal(r))
		return -1;
	b.p = r->buf + r->len;
	put_rq(&b, rq);
	r->len += RQ_LEN;
	if (t < r->open.oldest)
		r->open.oldest = t;
	if (t > r->open.newest)
		r->open.newest = t;
	if (t > r->newest)
		r->newest = t;
	return 0;
}

/* Each request of `raw` (RQ records) completed at or after `from`. */
static int replay_raw(const unsigned char *raw, size_t len, __u64 from,
		      int (*fn)(void *ctx, const struct iolens_rq *rq), void *ctx)
{
	struct iolens_rq rq;
	struct buf b = { (unsigned char *)raw };
	int ret;

	for (size_t off = 0; off + RQ_LEN <= len; off += RQ_LEN) {
		get_rq(&b, &rq, IOLENS_TRACE_VERSION);
		if (block_rq_time(&rq) >= from && (ret = fn(ctx, &rq)))
			return ret;
	}
	return 0;
}

int ring_replay(struct ring *r, __u64 from,
		int (*fn)(void *ctx, const struct iolens_rq *rq), void *ctx)
{
	unsigned char *raw = malloc(RING_CHUNK);
	int ret = raw ? 0 : -1;

	for (size_t i = 0; !ret && i < r->n; i++) {
		const struct chunk *c = &r->c[(r->head + i) % r->cap];
		uLongf len = RING_CHUNK;

		if (c->newest < from)
			continue;
		if (uncompress(raw, &len, c->z, c->zlen) != Z_OK || len != c->raw)
			ret = -1;
		else
			ret = replay_raw(raw, len, from, fn, ctx);
	}
	free(raw);
	if (!ret && r->open.newest >= from)
		ret = replay_raw(r->buf, r->len, from, fn, ctx);
	return ret;
}
