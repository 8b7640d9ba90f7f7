// SPDX-License-Identifier: GPL-2.0
/* A gzip file compressed by worker threads, its pieces written in order
 * (lib/gzpar.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "lib/fdwrite.h"
#include "lib/gzpar.h"
#include "lib/outfile.h"

/* Big enough that a member's 18 bytes and its fresh dictionary cost
 * nothing measurable, small enough that a flush once a second is cheap. */
#define UNIT_BYTES (256 << 10)

enum unit_state {
	UNIT_FREE,	/* the writer's to fill */
	UNIT_QUEUED,	/* full, waiting for a worker */
	UNIT_BUSY,	/* a worker compresses it */
	UNIT_DONE,	/* compressed, waiting for its turn to be written */
};

struct unit {
	enum unit_state state;
	unsigned char *in, *out;
	size_t n, outn, outcap;
	uLong crc;		/* CRC-32 of in */
};

struct gzpar {
	int fd, level, workers, started;
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a unit is queued, or closing */
	pthread_cond_t progress;	/* a unit was written */
	/* Unit s is units[s % nunits]; all below under the lock. */
	struct unit *units;
	unsigned int nunits;
	unsigned long long fill;	/* the unit the caller fills */
	unsigned long long take;	/* the next to compress */
	unsigned long long put;		/* the next to write */
	bool writing;			/* a worker is writing units */
	uLong crc;			/* of what was written, for the trailer */
	unsigned long long size;
	bool closing;
	int failed;			/* read without the lock: atomic */
	char err[160];
	pthread_t threads[GZPAR_WORKERS_MAX];
};

static bool has_failed(struct gzpar *g)
{
	return __atomic_load_n(&g->failed, __ATOMIC_ACQUIRE);
}

static struct unit *unit_of(struct gzpar *g, unsigned long long s)
{
	return &g->units[s % g->nunits];
}

/* Under the lock: the first failure wins. */
static void fail(struct gzpar *g, const char *what, int errnum)
{
	if (!g->failed) {
		snprintf(g->err, sizeof(g->err), "%s: %s", what, strerror(errnum));
		__atomic_store_n(&g->failed, 1, __ATOMIC_RELEASE);
	}
	pthread_cond_broadcast(&g->progress);
}

/* u's bytes as raw deflate ending in a sync flush, so that the next
 * unit's start on a byte boundary, with no final block: the pieces
 * concatenated are one deflate stream.  The worker's own stream is reset,
 * not made again (deflateInit allocates 256 KiB). */
static int compress_unit(z_stream *z, struct unit *u)
{
	/* deflateBound() is for Z_FINISH; a sync flush adds an empty
	 * stored block (5 bytes) and may end a partial one. */
	size_t need = deflateBound(z, u->n) + 16;

	if (need > u->outcap) {
		unsigned char *o = realloc(u->out, need);

		if (!o)
			return -ENOMEM;
		u->out = o;
		u->outcap = need;
	}
	if (deflateReset(z) != Z_OK)
		return -EINVAL;
	z->next_in = u->in;
	z->avail_in = u->n;
	z->next_out = u->out;
	z->avail_out = u->outcap;
	if (deflate(z, Z_SYNC_FLUSH) != Z_OK || z->avail_in || !z->avail_out)
		return -EINVAL;
	u->outn = u->outcap - z->avail_out;
	u->crc = crc32(0, u->in, u->n);
	return 0;
}

/* Under the lock, by one worker at a time: the units whose turn came.
 * The lock is let go while each is written. */
static void write_ready(struct gzpar *g)
{
	struct unit *u;
	int err;

	g->writing = true;
	while (g->put < g->take && (u = unit_of(g, g->put))->state == UNIT_DONE) {
		err = 0;
		if (!has_failed(g)) {
			pthread_mutex_unlock(&g->lock);
			err = fd_write_all(g->fd, u->out, u->outn) ? errno : 0;
			pthread_mutex_lock(&g->lock);
		}
		if (err)
			fail(g, "write", err);
		g->crc = crc32_combine(g->crc, u->crc, u->n);
		g->size += u->n;
		u->state = UNIT_FREE;
		u->n = 0;
		g->put++;
		pthread_cond_broadcast(&g->progress);
	}
	g->writing = false;
}

static void *worker(void *arg)
{
	struct gzpar *g = arg;
	z_stream z = { 0 };
	bool ok = deflateInit2(&z, g->level, Z_DEFLATED, -15, 8,
			       Z_DEFAULT_STRATEGY) == Z_OK;

	pthread_mutex_lock(&g->lock);
	if (!ok)
		fail(g, "zlib", ENOMEM);
	for (;;) {
		struct unit *u;
		int err = 0;

		if (g->take == g->fill || unit_of(g, g->take)->state != UNIT_QUEUED) {
			if (g->closing)
				break;
			pthread_cond_wait(&g->work, &g->lock);
			continue;
		}
		u = unit_of(g, g->take++);
		u->state = UNIT_BUSY;
		if (ok && !has_failed(g)) {
			pthread_mutex_unlock(&g->lock);
			err = compress_unit(&z, u);
			pthread_mutex_lock(&g->lock);
		}
		if (err)
			fail(g, "compressing", -err);
		u->state = UNIT_DONE;
		if (!g->writing)
			write_ready(g);
	}
	pthread_mutex_unlock(&g->lock);
	if (ok)
		deflateEnd(&z);
	return NULL;
}

static void units_free(struct gzpar *g)
{
	for (unsigned int i = 0; g->units && i < g->nunits; i++) {
		free(g->units[i].in);
		free(g->units[i].out);
	}
	free(g->units);
}

struct gzpar *gzpar_fdopen(int fd, int level, int workers)
{
	struct gzpar *g = calloc(1, sizeof(*g));
	int err = ENOMEM;

	if (!g) {
		close(fd);
		errno = err;
		return NULL;
	}
	g->fd = fd;
	if (workers < 1)
		workers = 1;
	if (workers > GZPAR_WORKERS_MAX)
		workers = GZPAR_WORKERS_MAX;
	g->level = level;
	g->workers = workers;
	/* One filling, one a worker each, one written: the caller waits only
	 * when every worker is behind. */
	g->nunits = 2 * workers + 2;
	g->units = calloc(g->nunits, sizeof(*g->units));
	for (unsigned int i = 0; g->units && i < g->nunits; i++)
		if (!(g->units[i].in = malloc(UNIT_BYTES)))
			goto fail;
	if (!g->units)
		goto fail;
	/* The member's header: deflate, no name, no time, Unix. */
	if (fd_write_all(g->fd, "\x1f\x8b\x08\0\0\0\0\0\0\x03", 10)) {
		err = errno;
		goto fail;
	}
	g->crc = crc32(0, NULL, 0);
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->work, NULL);
	pthread_cond_init(&g->progress, NULL);
	for (; g->started < workers; g->started++)
		if (pthread_create(&g->threads[g->started], NULL, worker, g))
			break;
	if (g->started)
		return g;
	err = EAGAIN;
fail:
	close(g->fd);
	units_free(g);
	free(g);
	errno = err;
	return NULL;
}

struct gzpar *gzpar_open(const char *path, int level, int workers)
{
	char why[160];
	int fd = outfile_open(path, O_WRONLY, OUTFILE_TRUNC, NULL, why, sizeof(why));

	return fd < 0 ? NULL : gzpar_fdopen(fd, level, workers);
}

/* Under the lock: the unit being filled to the workers; waits until the
 * next is free. */
static void queue_unit(struct gzpar *g)
{
	unit_of(g, g->fill++)->state = UNIT_QUEUED;
	pthread_cond_signal(&g->work);
	while (unit_of(g, g->fill)->state != UNIT_FREE && !has_failed(g))
		pthread_cond_wait(&g->progress, &g->lock);
}

int gzpar_write(struct gzpar *g, const void *p, size_t n)
{
	const unsigned char *b = p;

	/* The unit being filled is the caller's alone: no lock to copy. */
	while (n && !has_failed(g)) {
		struct unit *u = unit_of(g, g->fill);
		size_t k = UNIT_BYTES - u->n < n ? UNIT_BYTES - u->n : n;

		memcpy(u->in + u->n, b, k);
		u->n += k;
		b += k;
		n -= k;
		if (u->n == UNIT_BYTES) {
			pthread_mutex_lock(&g->lock);
			queue_unit(g);
			pthread_mutex_unlock(&g->lock);
		}
	}
	return has_failed(g) ? -1 : 0;
}

int gzpar_flush(struct gzpar *g)
{
	pthread_mutex_lock(&g->lock);
	/* After a failure the unit being filled may not be free to queue. */
	if (unit_of(g, g->fill)->n && !has_failed(g))
		queue_unit(g);
	while (g->put < g->fill && !has_failed(g))
		pthread_cond_wait(&g->progress, &g->lock);
	pthread_mutex_unlock(&g->lock);
	return has_failed(g) ? -1 : 0;
}

int gzpar_close(struct gzpar *g, char *errbuf, size_t errlen)
{
	int ret;

	gzpar_flush(g);
	pthread_mutex_lock(&g->lock);
	g->closing = true;
	pthread_cond_broadcast(&g->work);
	pthread_mutex_unlock(&g->lock);
	for (int i = 0; i < g->started; i++)
		pthread_join(g->threads[i], NULL);
	/* The end: an empty final block (fixed codes), then CRC-32 and size
	 * (RFC 1952), little-endian. */
	if (!has_failed(g)) {
		unsigned char end[10] = { 0x03, 0x00 };

		for (int i = 0; i < 4; i++) {
			end[2 + i] = g->crc >> (8 * i);
			end[6 + i] = g->size >> (8 * i);
		}
		if (fd_write_all(g->fd, end, sizeof(end)))
			fail(g, "write", errno);
	}
	/* close() may be the first to see a full disk (NFS). */
	if (close(g->fd) && !has_failed(g))
		fail(g, "close", errno);
	ret = has_failed(g) ? -1 : 0;
	if (ret)
		snprintf(errbuf, errlen, "%s", g->err);
	pthread_cond_destroy(&g->progress);
	pthread_cond_destroy(&g->work);
	pthread_mutex_destroy(&g->lock);
	units_free(g);
	free(g);
	return ret;
}

const char *gzpar_error(struct gzpar *g)
{
	return has_failed(g) ? g->err : "";
}
