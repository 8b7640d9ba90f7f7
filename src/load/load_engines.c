// SPDX-License-Identifier: GPL-2.0
/*
 * The engines of iolens load, with fio's meanings of slat and clat:
 *   psync     pread/pwrite; the call is the I/O, so there is no slat.
 *   io_uring  one ring per thread, the file registered (no fd lookup per
 *             I/O) and every slot's buffer registered (no page pinning per
 *             I/O: read_fixed/write_fixed); a whole batch per submit and
 *             every ready completion per reap.  Task work is deferred to
 *             our own waits where the kernel can (DEFER_TASKRUN), so that
 *             completions do not interrupt submission.
 *   libaio    io_submit of the whole batch, io_getevents for all ready.
 * A trim is the BLKDISCARD ioctl on each of them, one at a time, as fio
 * 3.33 does on all three.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <libaio.h>
#include <liburing.h>
#include "lib/clock.h"
#include "load/load.h"

void load_trim(struct load_thread *t, struct load_io *io, long *res)
{
	__u64 range[2] = { io->offset, io->len };

	*res = ioctl(t->fd, BLKDISCARD, range) ? -errno : (long)io->len;
}

/* ---- psync ---- */

static int psync_init(struct load_thread *t)
{
	(void)t;
	return 0;
}

static int psync_queue(struct load_thread *t, struct load_io *io, long *res)
{
	ssize_t n;

	if (io->dir == LOAD_WRITE)
		n = pwrite(t->fd, io->buf, io->len, io->offset);
	else
		n = pread(t->fd, io->buf, io->len, io->offset);
	*res = n < 0 ? -errno : n;
	return LOAD_Q_COMPLETED;
}

static int psync_commit(struct load_thread *t)
{
	(void)t;
	return 0;
}

static int psync_reap(struct load_thread *t, unsigned int min)
{
	(void)t;
	(void)min;
	return 0;
}

static void psync_exit(struct load_thread *t)
{
	(void)t;
}

/* ---- io_uring ---- */

struct uring {
	struct io_uring ring;
	bool fixed_file, fixed_bufs;
};

static int uring_setup(struct uring *u, unsigned int depth)
{
	static const unsigned int tries[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	int rc = -EINVAL;

	/* Older kernels refuse the newer flags with EINVAL: fall back. */
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		rc = io_uring_queue_init(depth, &u->ring, tries[i]);
		if (rc != -EINVAL)
			break;
	}
	return rc;
}

static int uring_init(struct load_thread *t)
{
	struct uring *u = calloc(1, sizeof(*u));
	struct iovec *iov;
	int rc;

	if (!u)
		return -ENOMEM;
	rc = uring_setup(u, t->depth);
	if (rc < 0) {
		free(u);
		return rc;
	}
	u->fixed_file = io_uring_register_files(&u->ring, &t->fd, 1) == 0;
	/* Fixed buffers pin memory against RLIMIT_MEMLOCK; without them
	 * the I/O still works, at the cost of pinning per request. */
	iov = calloc(t->depth, sizeof(*iov));
	if (iov) {
		for (unsigned int i = 0; i < t->depth; i++) {
			iov[i].iov_base = t->ios[i].buf;
			iov[i].iov_len = t->buf_len;
		}
		u->fixed_bufs = io_uring_register_buffers(&u->ring, iov, t->depth) == 0;
		free(iov);
	}
	t->engine_data = u;
	return 0;
}

static int uring_queue(struct load_thread *t, struct load_io *io, long *res)
{
	struct uring *u = t->engine_data;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	int fd = u->fixed_file ? 0 : t->fd;
	bool w = io->dir == LOAD_WRITE;

	(void)res;
	/* The ring has depth entries and at most depth I/Os are out. */
	if (u->fixed_bufs && w)
		io_uring_prep_write_fixed(sqe, fd, io->buf, io->len, io->offset, io->index);
	else if (u->fixed_bufs)
		io_uring_prep_read_fixed(sqe, fd, io->buf, io->len, io->offset, io->index);
	else if (w)
		io_uring_prep_write(sqe, fd, io->buf, io->len, io->offset);
	else
		io_uring_prep_read(sqe, fd, io->buf, io->len, io->offset);
	if (u->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, io);
	return LOAD_Q_QUEUED;
}

static int uring_commit(struct load_thread *t)
{
	struct uring *u = t->engine_data;
	int rc;

	do {
		rc = io_uring_submit(&u->ring);
	} while (rc == -EINTR);
	return rc;
}

static int uring_reap(struct load_thread *t, unsigned int min)
{
	struct uring *u = t->engine_data;
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;
	__u64 now;
	int rc;

	rc = io_uring_wait_cqe_nr(&u->ring, &cqe, min);
	if (rc == -EINTR || rc == -EAGAIN)
		return 0;
	if (rc < 0)
		return rc;
	/* One clock read for all that are ready: they were all done by
	 * now, and the batch is what makes reaping cheap. */
	now = mono_ns();
	io_uring_for_each_cqe(&u->ring, head, cqe) {
		load_io_done(t, io_uring_cqe_get_data(cqe), cqe->res, now);
		n++;
	}
	io_uring_cq_advance(&u->ring, n);
	return n;
}

static void uring_exit(struct load_thread *t)
{
	struct uring *u = t->engine_data;

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u);
	t->engine_data = NULL;
}

/* ---- libaio ---- */

struct aio {
	io_context_t ctx;
	struct iocb *iocbs;	/* one per slot */
	struct iocb **batch;
	unsigned int nbatch;
	struct io_event *events;
};

static int aio_init(struct load_thread *t)
{
	struct aio *a = calloc(1, sizeof(*a));
	int rc;

	if (!a)
		return -ENOMEM;
	a->iocbs = calloc(t->depth, sizeof(*a->iocbs));
	a->batch = calloc(t->depth, sizeof(*a->batch));
	a->events = calloc(t->depth, sizeof(*a->events));
	rc = a->iocbs && a->batch && a->events ? io_setup(t->depth, &a->ctx) : -ENOMEM;
	if (rc < 0) {
		free(a->iocbs);
		free(a->batch);
		free(a->events);
		free(a);
		return rc;
	}
	t->engine_data = a;
	return 0;
}

static int aio_queue(struct load_thread *t, struct load_io *io, long *res)
{
	struct aio *a = t->engine_data;
	struct iocb *cb = &a->iocbs[io->index];

	(void)res;
	if (io->dir == LOAD_WRITE)
		io_prep_pwrite(cb, t->fd, io->buf, io->len, io->offset);
	else
		io_prep_pread(cb, t->fd, io->buf, io->len, io->offset);
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

static int aio_reap(struct load_thread *t, unsigned int min)
{
	struct aio *a = t->engine_data;
	__u64 now;
	int rc;

	rc = io_getevents(a->ctx, min, t->depth, a->events, NULL);
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

	if (!a)
		return;
	io_destroy(a->ctx);
	free(a->iocbs);
	free(a->batch);
	free(a->events);
	free(a);
	t->engine_data = NULL;
}

static const struct load_engine engines[] = {
	[LOAD_PSYNC] = {
		.name = "psync", .sync = true, .init = psync_init,
		.queue = psync_queue, .commit = psync_commit,
		.reap = psync_reap, .exit = psync_exit,
	},
	[LOAD_IO_URING] = {
		.name = "io_uring", .init = uring_init, .queue = uring_queue,
		.commit = uring_commit, .reap = uring_reap, .exit = uring_exit,
	},
	[LOAD_LIBAIO] = {
		.name = "libaio", .init = aio_init, .queue = aio_queue,
		.commit = aio_commit, .reap = aio_reap, .exit = aio_exit,
	},
};

const struct load_engine *load_engine_get(int id)
{
	return &engines[id];
}
