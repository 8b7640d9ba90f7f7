// SPDX-License-Identifier: GPL-2.0
/*
 * The synchronous engines, fio's family of one system call per I/O: the
 * call is the I/O, so there is no slat (fio's meaning) and one I/O in
 * flight per job.  They differ only in the call, as fio's engines/sync.c:
 *   sync     lseek, then read/write
 *   psync    pread/pwrite
 *   vsync    lseek, then readv/writev of one vector
 *   pvsync   preadv/pwritev
 *   pvsync2  preadv2/pwritev2, with RWF_HIPRI under --hipri (Linux 4.6)
 */
#include <errno.h>
#include <unistd.h>
#include <sys/uio.h>
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"

#ifndef RWF_HIPRI
#define RWF_HIPRI 0x00000001	/* include/uapi/linux/fs.h, Linux 4.6 */
#endif

static long done(ssize_t n)
{
	return n < 0 ? -errno : n;
}

static int sync_queue(struct load_thread *t __attribute__((unused)), struct load_io *io,
		      long *res)
{
	bool w = io->dir == LOAD_WRITE;

	if (lseek(io->fd, io->offset, SEEK_SET) < 0)
		*res = -errno;
	else
		*res = done(w ? write(io->fd, io->buf, io->len) :
				read(io->fd, io->buf, io->len));
	return LOAD_Q_COMPLETED;
}

static int psync_queue(struct load_thread *t __attribute__((unused)), struct load_io *io,
		       long *res)
{
	bool w = io->dir == LOAD_WRITE;

	*res = done(w ? pwrite(io->fd, io->buf, io->len, io->offset) :
			pread(io->fd, io->buf, io->len, io->offset));
	return LOAD_Q_COMPLETED;
}

static int vsync_queue(struct load_thread *t __attribute__((unused)), struct load_io *io,
		       long *res)
{
	struct iovec v = { io->buf, io->len };
	bool w = io->dir == LOAD_WRITE;

	if (lseek(io->fd, io->offset, SEEK_SET) < 0)
		*res = -errno;
	else
		*res = done(w ? writev(io->fd, &v, 1) : readv(io->fd, &v, 1));
	return LOAD_Q_COMPLETED;
}

static int pvsync_queue(struct load_thread *t __attribute__((unused)), struct load_io *io,
			long *res)
{
	struct iovec v = { io->buf, io->len };
	bool w = io->dir == LOAD_WRITE;

	*res = done(w ? pwritev(io->fd, &v, 1, io->offset) :
			preadv(io->fd, &v, 1, io->offset));
	return LOAD_Q_COMPLETED;
}

static int pvsync2_queue(struct load_thread *t, struct load_io *io, long *res)
{
	struct iovec v = { io->buf, io->len };
	int flags = t->o->hipri ? RWF_HIPRI : 0;
	bool w = io->dir == LOAD_WRITE;

	*res = done(w ? pwritev2(io->fd, &v, 1, io->offset, flags) :
			preadv2(io->fd, &v, 1, io->offset, flags));
	return LOAD_Q_COMPLETED;
}

/* A row of the family: fio's name, its help and its call, nothing else.
 * Each engine keeps its own queue function, so the call is direct. */
#define SYNC_ENGINE(id, text)						\
	const struct load_engine load_engine_##id = {			\
		.name = #id, .help = text, .sync = true,		\
		.queue = id##_queue,					\
	}

SYNC_ENGINE(sync, "read/write after lseek, one I/O at a time");
SYNC_ENGINE(psync, "pread/pwrite, one I/O at a time (default)");
SYNC_ENGINE(vsync, "readv/writev after lseek, one I/O at a time");
SYNC_ENGINE(pvsync, "preadv/pwritev, one I/O at a time");
SYNC_ENGINE(pvsync2, "preadv2/pwritev2 (--hipri: RWF_HIPRI polling)");
