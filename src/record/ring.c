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
 * A chunk leaves by time only once its newest request is this much older
 * than the span: requests reach userspace in the order the per-CPU rings
 * are drained, not strictly by time, and a trigger's time may lie behind
 * the newest request (p99's at the end of a tenth judged up to a second
 * later; SIGUSR1's when it came).  So a span from a trigger at most this
 * far back is whole.
 */
#define RING_SLACK_NS	2000000000ULL

struct chunk {
	unsigned char *z;	/* the chunk's RQ records, compressed */
	size_t zlen;
	__u32 raw;		/* their bytes before compression */
	__u64 cum;		/* requests sealed before it */
	__u64 oldest, newest;	/* their times (block_rq_time()) */
};

struct ring {
	__u64 span_ns;
	size_t max_bytes;
	struct chunk *c;	/* a circular index: head is the oldest */
	size_t cap, head, n;
	__u64 head_seq;		/* the number of the chunk at head: each
				 * sealed chunk has the next one */
	__u64 sealed;		/* requests sealed so far */
	__u64 pin;		/* chunks from this one on leave only for room */
	unsigned char *raw;	/* a chunk inflated, for replays */
	size_t zbytes;		/* of all chunks' z */
	__u64 whole_from;	/* see ring_whole_from() */
	__u64 cut_from;		/* the same, of chunks left for want of room */
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
	r->pin = UINT64_MAX;
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
	free(r->raw);
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

__u64 ring_cut_from(const struct ring *r)
{
	return r->cut_from;
}

/* Whatever it held ended at or before its newest: the ring is whole only
 * after that; `cut` says it left for want of room, not of age. */
static void lost_until(struct ring *r, __u64 newest, bool cut)
{
	if (newest + 1 > r->whole_from)
		r->whole_from = newest + 1;
	if (cut && newest + 1 > r->cut_from)
		r->cut_from = newest + 1;
}

static void drop_oldest(struct ring *r, bool cut)
{
	struct chunk *c = &r->c[r->head];

	lost_until(r, c->newest, cut);
	r->zbytes -= c->zlen;
	free(c->z);
	r->head = (r->head + 1) % r->cap;
	r->head_seq++;
	r->n--;
}

static void drop_old(struct ring *r)
{
	while (r->n) {
		if (ring_bytes(r) > r->max_bytes)
			drop_oldest(r, true);
		else if (r->span_ns && r->head_seq < r->pin &&
			 r->c[r->head].newest + r->span_ns + RING_SLACK_NS < r->newest)
			drop_oldest(r, false);
		else
			break;
	}
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
	c->cum = r->sealed;
	r->sealed += r->len / RQ_LEN;
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
		lost_until(r, c->newest, true);
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
	int ret = 0;

	/* A failed seal lost the chunk, not this request: the chunk is
	 * empty again either way. */
	if (r->len + RQ_LEN > sizeof(r->buf))
		ret = seal(r);
	b.p = r->buf + r->len;
	put_rq(&b, rq);
	r->len += RQ_LEN;
	if (t < r->open.oldest)
		r->open.oldest = t;
	if (t > r->open.newest)
		r->open.newest = t;
	if (t > r->newest)
		r->newest = t;
	return ret;
}

/* Each request of `raw` (RQ records) whose time is in [from, to]. */
static int replay_raw(const unsigned char *raw, size_t len, __u64 from, __u64 to,
		      int (*fn)(void *ctx, const struct iolens_rq *rq), void *ctx)
{
	struct iolens_rq rq;
	struct buf b = { (unsigned char *)raw };
	int ret;

	for (size_t off = 0; off + RQ_LEN <= len; off += RQ_LEN) {
		__u64 t;

		get_rq(&b, &rq, IOLENS_TRACE_VERSION);
		t = block_rq_time(&rq);
		if (t >= from && t <= to && (ret = fn(ctx, &rq)))
			return ret;
	}
	return 0;
}

/* The requests sealed before the oldest chunk held. */
static __u64 head_cum(const struct ring *r)
{
	return r->n ? r->c[r->head].cum : r->sealed;
}

void ring_cursor_at(const struct ring *r, __u64 from, struct ring_cursor *cur)
{
	size_t i = 0;

	while (i < r->n && r->c[(r->head + i) % r->cap].newest < from)
		i++;
	cur->seq = r->head_seq + i;
	cur->cum = i < r->n ? r->c[(r->head + i) % r->cap].cum : r->sealed;
}

int ring_replay_chunk(struct ring *r, struct ring_cursor *cur, __u64 from, __u64 to,
		      int (*fn)(void *ctx, const struct iolens_rq *rq), void *ctx,
		      __u64 *lost)
{
	const struct chunk *c;
	uLongf len = RING_CHUNK;

	if (cur->seq < r->head_seq) {
		/* Gone before their turn: their requests, of the span or
		 * not, are unknown now. */
		*lost += head_cum(r) - cur->cum;
		cur->seq = r->head_seq;
		cur->cum = head_cum(r);
		return -2;
	}
	if (cur->seq >= r->head_seq + r->n)
		return 0;
	if (!r->raw && !(r->raw = malloc(RING_CHUNK)))
		return -1;
	c = &r->c[(r->head + (cur->seq - r->head_seq)) % r->cap];
	cur->seq++;
	cur->cum += c->raw / RQ_LEN;
	if (c->newest < from || c->oldest > to)
		return 1;
	if (uncompress(r->raw, &len, c->z, c->zlen) != Z_OK || len != c->raw)
		return -1;
	return replay_raw(r->raw, len, from, to, fn, ctx) ? -1 : 1;
}

int ring_flush(struct ring *r)
{
	return seal(r);
}

void ring_pin(struct ring *r, __u64 seq)
{
	r->pin = seq;
}

int ring_replay(struct ring *r, __u64 from,
		int (*fn)(void *ctx, const struct iolens_rq *rq), void *ctx)
{
	struct ring_cursor cur;
	__u64 lost = 0;
	int ret;

	ring_cursor_at(r, from, &cur);
	while ((ret = ring_replay_chunk(r, &cur, from, UINT64_MAX, fn, ctx, &lost)) == 1)
		;
	if (ret < 0)
		return -1;
	return r->open.newest >= from ? replay_raw(r->buf, r->len, from, UINT64_MAX, fn, ctx) : 0;
}
