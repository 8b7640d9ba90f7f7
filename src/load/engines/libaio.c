// SPDX-License-Identifier: GPL-2.0
/* libaio: io_submit of the whole batch, io_getevents for all ready. */
#include <errno.h>
#include <libaio.h>
#include "lib/clock.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"

/* linux/aio_abi.h has it (Linux 4.18) but also a struct iocb of its own,
 * which libaio.h's conflicts with. */
#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO (1 << 1)
#endif

struct aio {
	io_context_t ctx;
	struct iocb *iocbs;	/* one per slot */
	struct iocb **batch;
	unsigned int nbatch;
	struct io_event *events;
};

static int aio_init(struct load_thread *t)
{
	struct aio *a = t->engine_data;

	return io_setup(t->depth, &a->ctx);
}

static int aio_queue(struct load_thread *t, struct load_io *io, long *res)
{
	struct aio *a = t->engine_data;
	struct iocb *cb = &a->iocbs[io->index];

	(void)res;
	if (io->dir == LOAD_WRITE)
		io_prep_pwrite(cb, io->fd, io->buf, io->len, io->offset);
	else
		io_prep_pread(cb, io->fd, io->buf, io->len, io->offset);
	/* A priority of its own (cmdprio); without the flag the kernel
	 * gives it the thread's (Linux 4.18, IOCB_FLAG_IOPRIO). */
	if (io->ioprio) {
		cb->aio_reqprio = io->ioprio;
		cb->u.c.flags |= IOCB_FLAG_IOPRIO;
	}
	cb->data = io;
	a->batch[a->nbatch++] = cb;
	return LOAD_Q_QUEUED;
}

static int aio_commit(struct load_thread *t)
{
	struct aio *a = t->engine_data;
	unsigned int done = 0;
	int rc;

	while (done < a->nbatch) {
		rc = io_submit(a->ctx, a->nbatch - done, a->batch + done);
		if (rc == -EINTR || rc == -EAGAIN)
			continue;
		if (rc <= 0) {
			a->nbatch = 0;
			return rc < 0 ? rc : -EIO;
		}
		done += rc;
	}
	a->nbatch = 0;
	return done;
}

static int aio_reap(struct load_thread *t, unsigned int min, unsigned int max, __u64 until)
{
	struct aio *a = t->engine_data;
	struct timespec left;
	__u64 now;
	int rc;

	if (until)
		mono_left(until, &left);
	rc = io_getevents(a->ctx, min, max, a->events, until ? &left : NULL);
	if (rc == -EINTR)
		return 0;
	if (rc < 0)
		return rc;
	now = mono_ns();
	for (int i = 0; i < rc; i++) {
		struct iocb *cb = a->events[i].obj;

		/* res is unsigned long in the ABI: -errno wraps. */
		load_io_done(t, cb->data, (long)a->events[i].res, now);
	}
	return rc;
}

static void aio_exit(struct load_thread *t)
{
	struct aio *a = t->engine_data;

	io_destroy(a->ctx);
}

const struct load_engine load_engine_libaio = {
	.name = "libaio", .help = "Linux native AIO (io_submit)",
	.prio_per_io = true,
	.priv_size = sizeof(struct aio),
	.slots = { LOAD_SLOTS(struct aio, iocbs), LOAD_SLOTS(struct aio, batch),
		   LOAD_SLOTS(struct aio, events) },
	.init = aio_init, .queue = aio_queue, .commit = aio_commit,
	.reap = aio_reap, .exit = aio_exit,
};
