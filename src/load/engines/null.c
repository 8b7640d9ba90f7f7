// SPDX-License-Identifier: GPL-2.0
/*
 * null: no I/O at all, every I/O done as soon as it is reaped: the ceiling
 * of the generator itself (its offsets, timing and statistics per I/O), as
 * fio's null engine measures fio's.  It opens no file, so a job needs no
 * filename, only a size.
 */
#include <string.h>
#include "lib/clock.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"

struct null_ring {
	struct load_io **queued;
	unsigned int n;
};

static int null_queue(struct load_thread *t, struct load_io *io, long *res)
{
	struct null_ring *r = t->engine_data;

	(void)res;
	r->queued[r->n++] = io;
	return LOAD_Q_QUEUED;
}

static int null_reap(struct load_thread *t, unsigned int min, unsigned int max, __u64 until)
{
	struct null_ring *r = t->engine_data;
	unsigned int n = r->n < max ? r->n : max;
	__u64 now = mono_ns();

	(void)min;
	(void)until;
	for (unsigned int i = 0; i < n; i++)
		load_io_done(t, r->queued[i], r->queued[i]->len, now);
	r->n -= n;
	memmove(r->queued, r->queued + n, r->n * sizeof(*r->queued));
	return n;
}

const struct load_engine load_engine_null = {
	.name = "null", .help = "no I/O: the generator's own ceiling",
	.diskless = true, .priv_size = sizeof(struct null_ring),
	.slots = { LOAD_SLOTS(struct null_ring, queued) },
	.queue = null_queue, .reap = null_reap,
};
