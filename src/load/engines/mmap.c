// SPDX-License-Identifier: GPL-2.0
/*
 * mmap: the job's range of each file mapped once per thread, each I/O a
 * memcpy to or from the mapping, so that reads are page faults and writes
 * dirty pages, as fio's mmap engine.  With --direct, as fio's, each I/O's
 * pages are msync'ed (MS_SYNC), reads too.  Nothing bypasses the page
 * cache: fio then calls posix_madvise(POSIX_MADV_DONTNEED), which glibc
 * makes a no-op (Linux's MADV_DONTNEED would drop unwritten changes of a
 * private mapping), so fio's pages stay mapped and cached, and iolens's do
 * too.  A real MADV_DONTNEED would unmap them: a fault again on the next
 * touch, and a TLB flush that may interrupt every other CPU the process's
 * threads last ran on (x86 skips a CPU in lazy TLB mode for some).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"
#include "load/target.h"

/* Each file's range mapped, page-aligned: 4 KiB pages or larger (arm64
 * and ppc64 kernels have 16 and 64 KiB ones). */
struct map {
	struct map_file {
		char *base;
		__u64 start, len;
	} *v;
	__u64 page;
};

static int mmap_init(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;
	struct map *m = t->engine_data;
	int prot = PROT_READ | (t->target->writes ? PROT_WRITE : 0);

	m->page = sysconf(_SC_PAGESIZE);
	m->v = calloc(t->nfiles, sizeof(*m->v));
	if (!m->v)
		return -ENOMEM;
	for (unsigned int i = 0; i < t->nfiles; i++) {
		struct map_file *f = &m->v[i];

		f->start = o->offset & ~(m->page - 1);
		f->len = o->offset + t->files[i].size - f->start;
		f->base = mmap(NULL, f->len, prot, MAP_SHARED, t->files[i].fd, f->start);
		if (f->base == MAP_FAILED) {
			int e = errno;

			while (i--)
				munmap(m->v[i].base, m->v[i].len);
			free(m->v);
			return -e;
		}
		/* As fio's: tell the kernel how the job reads, for its
		 * readahead. */
		madvise(f->base, f->len, o->rw == LOAD_RW_READ || o->rw == LOAD_RW_WRITE ||
					 o->rw == LOAD_RW_RW ? MADV_SEQUENTIAL : MADV_RANDOM);
	}
	return 0;
}

static int mmap_queue(struct load_thread *t, struct load_io *io, long *res)
{
	struct map *m = t->engine_data;
	struct map_file *f = &m->v[io->file];
	char *at = f->base + (io->offset - f->start);

	if (io->dir == LOAD_WRITE)
		memcpy(at, io->buf, io->len);
	else
		memcpy(io->buf, at, io->len);
	*res = io->len;
	if (t->o->direct) {
		/* msync() wants a page-aligned address.  On a block device
		 * with a volatile write cache each call is also a cache flush
		 * (blkdev_fsync()), a read's as much as a write's, for fio as
		 * for iolens. */
		char *pg = (char *)((uintptr_t)at & ~(uintptr_t)(m->page - 1));

		if (msync(pg, at + io->len - pg, MS_SYNC))
			*res = -errno;
	}
	return LOAD_Q_COMPLETED;
}

static void mmap_exit(struct load_thread *t)
{
	struct map *m = t->engine_data;

	for (unsigned int i = 0; i < t->nfiles; i++)
		munmap(m->v[i].base, m->v[i].len);
	free(m->v);
}

const struct load_engine load_engine_mmap = {
	.name = "mmap", .help = "memcpy to and from the file mapped (page faults)",
	.sync = true, .priv_size = sizeof(struct map),
	.init = mmap_init, .queue = mmap_queue, .exit = mmap_exit,
};
