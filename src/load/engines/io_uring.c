// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring: one ring per thread, the file registered (no fd lookup per I/O)
 * and every slot's buffer registered (no page pinning per I/O:
 * read_fixed/write_fixed); a whole batch per submit and every ready
 * completion per reap.  Task work is deferred to our own waits where the
 * kernel can (DEFER_TASKRUN, Linux 6.1), so that completions do not
 * interrupt submission.
 */
#include <errno.h>
#include <stdlib.h>
#include <liburing.h>
#include "lib/clock.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"

struct uring {
	struct io_uring ring;
	bool fixed_file, fixed_bufs;
	bool vectored;		/* nonvectored=0: READV/WRITEV of iov */
	struct iovec *iov;	/* one per slot: its buffer */
};

static int uring_setup(struct uring *u, const struct load_thread *t)
{
	/* fio's hipri is polled completions; sqthread_poll a kernel
	 * thread that takes the submissions (no enter per batch). */
	unsigned int extra = (t->o->hipri ? IORING_SETUP_IOPOLL : 0) |
			     (t->o->sqthread_poll ? IORING_SETUP_SQPOLL : 0);
	static const unsigned int tries[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	int rc = -EINVAL;

	/* Older kernels refuse the newer flags with EINVAL: fall back. */
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		rc = io_uring_queue_init(t->depth, &u->ring, tries[i] | extra);
		if (rc != -EINVAL)
			break;
	}
	return rc;
}

static int uring_init(struct load_thread *t)
{
	struct uring *u = t->engine_data;
	int rc = uring_setup(u, t), *fds;

	if (rc < 0)
		return rc;
	/* The kernel copies the table: an I/O names its file by index. */
	fds = t->o->registerfiles ? calloc(t->nfiles, sizeof(*fds)) : NULL;
	for (unsigned int i = 0; fds && i < t->nfiles; i++)
		fds[i] = t->files[i].fd;
	u->fixed_file = fds && io_uring_register_files(&u->ring, fds, t->nfiles) == 0;
	free(fds);
	for (unsigned int i = 0; i < t->depth; i++) {
		u->iov[i].iov_base = t->ios[i].buf;
		u->iov[i].iov_len = t->buf_len;
	}
	/* Fixed buffers pin memory against RLIMIT_MEMLOCK; without them
	 * the I/O still works, at the cost of pinning per request. */
	u->fixed_bufs = t->o->fixedbufs && t->o->nonvectored &&
			io_uring_register_buffers(&u->ring, u->iov, t->depth) == 0;
	u->vectored = !t->o->nonvectored;
	return 0;
}

static int uring_queue(struct load_thread *t, struct load_io *io, long *res)
{
	struct uring *u = t->engine_data;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	int fd = u->fixed_file ? (int)io->file : io->fd;
	bool w = io->dir == LOAD_WRITE;

	/* The ring has depth entries and at most depth I/Os are out; but
	 * with sqthread_poll an entry is free only once the kernel's
	 * thread has taken it, which may not be yet. */
	while (!sqe) {
		int rc = io_uring_sqring_wait(&u->ring);

		if (rc < 0 && rc != -EINTR) {
			*res = rc;
			return LOAD_Q_COMPLETED;
		}
		sqe = io_uring_get_sqe(&u->ring);
	}
	if (u->fixed_bufs && w)
		io_uring_prep_write_fixed(sqe, fd, io->buf, io->len, io->offset, io->index);
	else if (u->fixed_bufs)
		io_uring_prep_read_fixed(sqe, fd, io->buf, io->len, io->offset, io->index);
	else if (u->vectored) {
		u->iov[io->index].iov_len = io->len;
		if (w)
			io_uring_prep_writev(sqe, fd, &u->iov[io->index], 1, io->offset);
		else
			io_uring_prep_readv(sqe, fd, &u->iov[io->index], 1, io->offset);
	} else if (w)
		io_uring_prep_write(sqe, fd, io->buf, io->len, io->offset);
	else
		io_uring_prep_read(sqe, fd, io->buf, io->len, io->offset);
	if (u->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	/* The job's or cmdprio's, carried even under sqthread_poll, where
	 * the kernel's thread submits; 0 where the job sets none: the
	 * kernel takes the submitting task's. */
	sqe->ioprio = io->ioprio;
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

static int uring_reap(struct load_thread *t, unsigned int min, unsigned int max, __u64 until)
{
	struct uring *u = t->engine_data;
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;
	__u64 now;
	int rc;

	if (until) {
		struct __kernel_timespec ts;
		struct timespec left;

		mono_left(until, &left);
		ts.tv_sec = left.tv_sec;
		ts.tv_nsec = left.tv_nsec;
		rc = io_uring_wait_cqes(&u->ring, &cqe, min, &ts, NULL);
		/* Out of time: what is there, if anything. */
		if (rc == -ETIME)
			rc = 0;
	} else {
		rc = io_uring_wait_cqe_nr(&u->ring, &cqe, min);
	}
	if (rc == -EINTR || rc == -EAGAIN)
		return 0;
	if (rc < 0)
		return rc;
	/* One clock read for all that are ready: they were all done by
	 * now, and the batch is what makes reaping cheap. */
	now = mono_ns();
	io_uring_for_each_cqe(&u->ring, head, cqe) {
		if (n == max)
			break;
		load_io_done(t, io_uring_cqe_get_data(cqe), cqe->res, now);
		n++;
	}
	io_uring_cq_advance(&u->ring, n);
	return n;
}

static void uring_exit(struct load_thread *t)
{
	struct uring *u = t->engine_data;

	io_uring_queue_exit(&u->ring);
}

const struct load_engine load_engine_io_uring = {
	.name = "io_uring", .help = "a ring per job, registered file and buffers",
	.prio_per_io = true,
	.priv_size = sizeof(struct uring),
	.slots = { LOAD_SLOTS(struct uring, iov) },
	.init = uring_init, .queue = uring_queue, .commit = uring_commit,
	.reap = uring_reap, .exit = uring_exit,
};
