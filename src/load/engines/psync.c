// SPDX-License-Identifier: GPL-2.0
/* psync: pread/pwrite.  The call is the I/O, so there is no slat (fio's
 * meaning) and one I/O in flight per job. */
#include <errno.h>
#include <unistd.h>
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"

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

const struct load_engine load_engine_psync = {
	.name = "psync",
	.help = "pread/pwrite, one I/O at a time (default)",
	.sync = true,
	.queue = psync_queue,
};
