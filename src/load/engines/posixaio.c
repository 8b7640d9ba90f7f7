// SPDX-License-Identifier: GPL-2.0
/*
 * posixaio: POSIX AIO of the C library (aio_read/aio_write, aio_suspend),
 * the engine of fio's best-known tutorials.  As fio's, each I/O is issued
 * when it is queued (POSIX has no batch submit), and a reap looks at the
 * slots in flight with aio_error(), in the slots' order, up to `max`
 * completions, then sleeps in aio_suspend() on the first 8 still running,
 * until at least `min` are done.  glibc runs the I/O on threads of its
 * own.
 */
#include <aio.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include "lib/clock.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"

/* How many requests a reap sleeps on: fio's SUSPEND_ENTRIES. */
#define SUSPEND_MAX 8

struct paio {
	struct aiocb *cbs;		/* one per slot */
	bool *busy;			/* the slot's request is in flight */
	const struct aiocb *wait[SUSPEND_MAX];	/* aio_suspend's list */
	unsigned int n;			/* requests in flight */
	unsigned int nwait;
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
	p->busy[io->index] = true;
	p->n++;
	return LOAD_Q_QUEUED;
}

/*
 * Hands finished slots to load_io_done(), `max` at most, and lists the
 * first SUSPEND_MAX still running for aio_suspend().  In the slots' order,
 * as fio's: glibc runs one file's requests one after another, so sleeping
 * on the oldest would wake the job at every completion; the first slots
 * are of every age, and the first of them to finish lets a few older ones
 * finish too (fio: about one wake per four completions at depth 32).
 * With several files, the 8 may all be of one file while another's are
 * done: as fio's, that reap waits for one of the 8.
 */
static unsigned int paio_collect(struct load_thread *t, struct paio *p, unsigned int max)
{
	unsigned int got = 0;
	__u64 now = 0;

	p->nwait = 0;
	for (unsigned int i = 0; i < t->depth; i++) {
		struct aiocb *cb = &p->cbs[i];
		int err;

		if (!p->busy[i])
			continue;
		err = got < max ? aio_error(cb) : EINPROGRESS;
		if (err == EINPROGRESS) {
			if (p->nwait < SUSPEND_MAX)
				p->wait[p->nwait++] = cb;
			continue;
		}
		if (!now)
			now = mono_ns();
		p->busy[i] = false;
		p->n--;
		/* A slot's control block and its I/O have one index. */
		load_io_done(t, &t->ios[i], err ? -err : aio_return(cb), now);
		got++;
	}
	return got;
}

static int paio_reap(struct load_thread *t, unsigned int min, unsigned int max, __u64 until)
{
	struct paio *p = t->engine_data;
	unsigned int got = paio_collect(t, p, max);

	while (got < min && p->n) {
		struct timespec left;

		if (until) {
			__u64 now = mono_ns();

			if (now >= until)
				break;
			left = ns_timespec(until - now);
		}
		/* EAGAIN: out of time */
		if (aio_suspend(p->wait, p->nwait, until ? &left : NULL) &&
		    errno != EINTR && errno != EAGAIN)
			return -errno;
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
		/* aio_suspend cannot wait: the next reap looks again, until
		 * glibc's threads have let go of every buffer. */
		if (paio_reap(t, p->n, p->n, 0) < 0)
			sched_yield();
	}
}

const struct load_engine load_engine_posixaio = {
	.name = "posixaio", .help = "POSIX AIO (aio_read/aio_write, aio_suspend)",
	.own_threads = true,
	.priv_size = sizeof(struct paio),
	.slots = { LOAD_SLOTS(struct paio, cbs), LOAD_SLOTS(struct paio, busy) },
	.queue = paio_queue, .reap = paio_reap, .exit = paio_exit,
};
