// SPDX-License-Identifier: GPL-2.0
/*
 * posixaio: POSIX AIO of the C library (aio_read/aio_write, aio_suspend),
 * the engine of fio's best-known tutorials.  As fio's, each I/O is issued
 * when it is queued (POSIX has no batch submit) and a reap polls the slots
 * in flight with aio_error(), for a while yielding between polls, then
 * sleeping in aio_suspend(), until at least `min` are done.  glibc runs
 * the I/O on threads of its own.
 */
#include <aio.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include "lib/clock.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"

struct paio {
	struct aiocb *cbs;		/* one per slot, in the slots' order */
	const struct aiocb **inflight;	/* aio_suspend's list */
	unsigned int n;
};

static int paio_queue(struct load_thread *t, struct load_io *io, long *res)
{
	struct paio *p = t->engine_data;
	struct aiocb *cb = &p->cbs[io->index];
	int rc;

	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = io->fd;
	cb->aio_buf = io->buf;
	cb->aio_nbytes = io->len;
	cb->aio_offset = io->offset;
	cb->aio_sigevent.sigev_notify = SIGEV_NONE;
	rc = io->dir == LOAD_WRITE ? aio_write(cb) : aio_read(cb);
	if (rc) {
		/* Not issued: it completes now with the error, as fio's. */
		*res = -errno;
		return LOAD_Q_COMPLETED;
	}
	p->inflight[p->n++] = cb;
	return LOAD_Q_QUEUED;
}

/* Hands finished slots to load_io_done(), `max` at most, keeping the rest
 * packed. */
static unsigned int paio_collect(struct load_thread *t, struct paio *p, unsigned int max)
{
	unsigned int got = 0, keep = 0;
	__u64 now = 0;

	for (unsigned int i = 0; i < p->n; i++) {
		struct aiocb *cb = (struct aiocb *)p->inflight[i];
		int err = got < max ? aio_error(cb) : EINPROGRESS;
		long res;

		if (err == EINPROGRESS) {
			p->inflight[keep++] = cb;
			continue;
		}
		if (!now)
			now = mono_ns();
		res = aio_return(cb);
		/* A slot's control block and its I/O have one index. */
		load_io_done(t, &t->ios[cb - p->cbs], err ? -err : res, now);
		got++;
	}
	p->n = keep;
	return got;
}

/* How long a reap polls before it sleeps in aio_suspend(). */
#define POLL_NS 50000ULL

static int paio_reap(struct load_thread *t, unsigned int min, unsigned int max, __u64 until)
{
	struct paio *p = t->engine_data;
	unsigned int got = paio_collect(t, p, max);
	__u64 poll_end = 0;

	while (got < min && p->n) {
		/*
		 * glibc's worker threads take one lock to finish each request
		 * and aio_suspend() takes it to look up every entry: waiting
		 * there held the rate at depth 32 to a fifth of what polling
		 * gets (fio polls throughout).  Polled for 50 us, then asleep,
		 * so that a slow device does not cost a CPU spinning.
		 */
		__u64 now = mono_ns();
		struct timespec left;

		if (until && now >= until)
			break;
		if (!poll_end)
			poll_end = now + POLL_NS;
		if (now < poll_end) {
			sched_yield();
		} else {
			if (until)
				left = ns_timespec(until - now);
			/* EAGAIN: out of time */
			if (aio_suspend(p->inflight, p->n, until ? &left : NULL) &&
			    errno != EINTR && errno != EAGAIN)
				return -errno;
		}
		got += paio_collect(t, p, max - got);
	}
	return got;
}

static void paio_exit(struct load_thread *t)
{
	struct paio *p = t->engine_data;

	/* An error stopped the job: the C library's threads must not write
	 * into buffers about to be freed. */
	while (p->n) {
		for (unsigned int i = 0; i < t->nfiles; i++)
			aio_cancel(t->files[i].fd, NULL);
		/* aio_suspend failing for good: nothing more to wait for. */
		if (paio_reap(t, p->n, p->n, 0) < 0)
			break;
	}
}

const struct load_engine load_engine_posixaio = {
	.name = "posixaio", .help = "POSIX AIO (aio_read/aio_write, aio_suspend)",
	.own_threads = true,
	.priv_size = sizeof(struct paio),
	.slots = { LOAD_SLOTS(struct paio, cbs), LOAD_SLOTS(struct paio, inflight) },
	.queue = paio_queue, .reap = paio_reap, .exit = paio_exit,
};
