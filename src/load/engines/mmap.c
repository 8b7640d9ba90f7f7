// SPDX-License-Identifier: GPL-2.0
/*
 * mmap: the job's range of the file mapped once per thread, each I/O a
 * memcpy to or from the mapping, so that reads are page faults and writes
 * dirty pages, as fio's mmap engine.  With --direct, as fio's, each write
 * is msync'ed and the pages of every I/O are dropped (MADV_DONTNEED), the
 * nearest a mapping comes to bypassing the page cache.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"
#include "load/target.h"

struct map {
	char *base;
	__u64 start, len;	/* the file range mapped, page-aligned */
};

static int mmap_init(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;
	struct map *m = t->engine_data;
	int prot = PROT_READ | (t->target->writes ? PROT_WRITE : 0);

	m->start = o->offset & ~4095ULL;
	m->len = o->offset + o->size - m->start;
	m->base = mmap(NULL, m->len, prot, MAP_SHARED, t->fd, m->start);
	if (m->base == MAP_FAILED)
		return -errno;
	/* As fio's: tell the kernel how the job reads, for its readahead. */
	madvise(m->base, m->len, o->rw == LOAD_RW_READ || o->rw == LOAD_RW_WRITE ||
				    o->rw == LOAD_RW_RW ? MADV_SEQUENTIAL : MADV_RANDOM);
	return 0;
}

static int mmap_queue(struct load_thread *t, struct load_io *io, long *res)
{
	struct map *m = t->engine_data;
	char *at = m->base + (io->offset - m->start);

	if (io->dir == LOAD_WRITE)
		memcpy(at, io->buf, io->len);
	else
		memcpy(io->buf, at, io->len);
	*res = io->len;
	if (t->o->direct) {
		/* Both calls take whole pages only. */
		char *pg = (char *)((uintptr_t)at & ~(uintptr_t)4095);
		size_t len = at + io->len - pg;

		if (io->dir == LOAD_WRITE && msync(pg, len, MS_SYNC))
			*res = -errno;
		madvise(pg, len, MADV_DONTNEED);
	}
	return LOAD_Q_COMPLETED;
}

static void mmap_exit(struct load_thread *t)
{
	struct map *m = t->engine_data;

	munmap(m->base, m->len);
}

const struct load_engine load_engine_mmap = {
	.name = "mmap", .help = "memcpy to and from the file mapped (page faults)",
	.sync = true, .priv_size = sizeof(struct map),
	.init = mmap_init, .queue = mmap_queue, .exit = mmap_exit,
};
