// SPDX-License-Identifier: GPL-2.0
/* Items made by several threads, given out in time order (lib/tsmerge.h). */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "lib/tsmerge.h"
#include "lib/vec.h"

/* Handed over and not given out: past this, sources wait. */
#define PENDING_MAX (256UL << 20)
/* Bytes of a chunk; spare ones are kept for reuse: fresh memory costs a
 * page fault and the zeroing of its page, more than the copy into it. */
#define CHUNK_BYTES (1UL << 20)
#define SPARE_PER_SOURCE 16

struct item {
	__u64 ts;
	size_t off, len;
};

/* Items of one source, in the order made. */
struct chunk {
	struct chunk *next;
	char *buf;
	size_t cap, used;
	struct item *items;
	size_t icap, n, pos;	/* pos: the next to give out */
};

struct source {
	struct chunk *fill;	/* the source's thread's own */
	/* Under the lock. */
	struct chunk *head, *tail;
	__u64 upto;
	/* The merging thread's own: taken from head. */
	struct chunk *mhead, *mtail;
};

struct tsmerge {
	pthread_mutex_t lock;
	pthread_cond_t drained;
	size_t pending;		/* bytes handed over, not given out */
	bool closed;		/* the merger is done: nobody waits */
	struct chunk *spare;
	int nspare;
	int n;
	struct source src[];
};

struct tsmerge *tsmerge_new(int nsources)
{
	struct tsmerge *m = calloc(1, sizeof(*m) + nsources * sizeof(m->src[0]));

	if (!m)
		return NULL;
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->drained, NULL);
	m->n = nsources;
	return m;
}

static void chunks_free(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;

		free(c->buf);
		free(c->items);
		free(c);
		c = next;
	}
}

void tsmerge_free(struct tsmerge *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->n; i++) {
		struct source *s = &m->src[i];

		chunks_free(s->fill);
		chunks_free(s->head);
		chunks_free(s->mhead);
	}
	chunks_free(m->spare);
	pthread_cond_destroy(&m->drained);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* An empty chunk of at least `need` bytes. */
static struct chunk *chunk_get(struct tsmerge *m, size_t need)
{
	struct chunk *c = NULL;

	if (need <= CHUNK_BYTES) {
		pthread_mutex_lock(&m->lock);
		c = m->spare;
		if (c) {
			m->spare = c->next;
			m->nspare--;
		}
		pthread_mutex_unlock(&m->lock);
		need = CHUNK_BYTES;
	}
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (c && !(c->buf = malloc(need))) {
			free(c);
			return NULL;
		}
		if (c)
			c->cap = need;
	}
	if (c) {
		c->next = NULL;
		c->used = c->n = c->pos = 0;
	}
	return c;
}

/* Under the lock: kept for reuse, up to 16 MiB a source, no more than was
 * once in flight.  At 600k lines a second on 2 CPUs, 46 MiB were in flight
 * at the peak (a consumer not scheduled holds every line back); with 4
 * spares a source, a tenth of snoop's time was the kernel zeroing fresh
 * pages for chunks freed a moment before. */
static void chunk_put(struct tsmerge *m, struct chunk *c)
{
	if (c->cap == CHUNK_BYTES && m->nspare < SPARE_PER_SOURCE * m->n) {
		c->next = m->spare;
		m->spare = c;
		m->nspare++;
		return;
	}
	c->next = NULL;
	chunks_free(c);
}

/* The filled chunk of source s to the merging thread; upto unchanged
 * unless given (UINT64_MAX keeps it). */
static void hand_over(struct tsmerge *m, struct source *s, __u64 upto, bool set)
{
	struct chunk *c = s->fill;

	s->fill = NULL;
	pthread_mutex_lock(&m->lock);
	if (c && c->n) {
		if (s->tail)
			s->tail->next = c;
		else
			s->head = c;
		s->tail = c;
		m->pending += c->cap;
	} else if (c) {
		chunk_put(m, c);
	}
	if (set)
		s->upto = upto;
	while (m->pending > PENDING_MAX && !m->closed)
		pthread_cond_wait(&m->drained, &m->lock);
	pthread_mutex_unlock(&m->lock);
}

char *tsmerge_room(struct tsmerge *m, int i, size_t need)
{
	struct source *s = &m->src[i];
	struct chunk *c = s->fill;

	if (c && c->cap - c->used < need)
		hand_over(m, s, 0, false);
	if (!s->fill && !(s->fill = chunk_get(m, need)))
		return NULL;
	c = s->fill;
	if (vec_grow(&c->items, &c->icap, c->n + 1, sizeof(*c->items), 4096))
		return NULL;
	return c->buf + c->used;
}

void tsmerge_commit(struct tsmerge *m, int i, __u64 ts, size_t n)
{
	struct chunk *c = m->src[i].fill;

	c->items[c->n++] = (struct item){ ts, c->used, n };
	c->used += n;
}

int tsmerge_publish(struct tsmerge *m, int i, __u64 upto)
{
	hand_over(m, &m->src[i], upto, true);
	return 0;
}

/* Takes what the sources handed over; returns the time up to which all
 * of them are complete. */
static __u64 take(struct tsmerge *m)
{
	__u64 limit = UINT64_MAX;

	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < m->n; i++) {
		struct source *s = &m->src[i];

		if (s->head) {
			if (s->mtail)
				s->mtail->next = s->head;
			else
				s->mhead = s->head;
			s->mtail = s->tail;
			s->head = s->tail = NULL;
		}
		if (s->upto < limit)
			limit = s->upto;
	}
	pthread_mutex_unlock(&m->lock);
	return limit;
}

/* The next item of source s; the chunks it is done with go to `done`. */
static struct item *head_item(struct source *s, struct chunk **done)
{
	struct chunk *c;

	while ((c = s->mhead) && c->pos == c->n) {
		s->mhead = c->next;
		if (!s->mhead)
			s->mtail = NULL;
		c->next = *done;
		*done = c;
	}
	return c ? &c->items[c->pos] : NULL;
}

int tsmerge_emit(struct tsmerge *m, __u64 slack_ns, tsmerge_emit_fn emit,
		 void *ctx)
{
	__u64 limit = take(m);
	struct chunk *done = NULL;
	struct iovec iov[TSMERGE_BATCH];
	int n = 0, rc = 0;

	if (limit != UINT64_MAX)
		limit = limit > slack_ns ? limit - slack_ns : 0;
	for (;;) {
		struct source *best = NULL;
		struct item *bi = NULL;

		/* A handful of sources: a scan costs less than a heap. */
		for (int i = 0; i < m->n; i++) {
			struct item *it = head_item(&m->src[i], &done);

			if (it && it->ts <= limit && (!bi || it->ts < bi->ts)) {
				bi = it;
				best = &m->src[i];
			}
		}
		if (bi) {
			iov[n++] = (struct iovec){ best->mhead->buf + bi->off, bi->len };
			best->mhead->pos++;
		}
		/* The chunks in `done` are still whole until given back. */
		if (n && (!bi || n == TSMERGE_BATCH)) {
			rc = emit(ctx, iov, n);
			n = 0;
		}
		if (!bi || rc)
			break;
	}
	pthread_mutex_lock(&m->lock);
	while (done) {
		struct chunk *next = done->next;

		m->pending -= done->cap;
		chunk_put(m, done);
		done = next;
	}
	if (rc)
		m->closed = true;
	pthread_cond_broadcast(&m->drained);
	pthread_mutex_unlock(&m->lock);
	return rc;
}
