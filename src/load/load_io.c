// SPDX-License-Identifier: GPL-2.0
/*
 * What an engine calls when an I/O completes: the job's statistics.  Apart
 * from the job loop, which calls the engines, so that the engines call
 * nothing that calls them: the loop calls load_opts.c, which finds the
 * engines by name.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lib/log.h"
#include "load/engine.h"
#include "lib/hist.h"
#include "load/iolog.h"
#include "load/job.h"
#include "load/load.h"
#include "load/stats.h"

void load_job_err(struct load_thread *t, const char *what, __u64 offset,
		  int err)
{
	if (!t->st.error)
		t->st.error = err;
	fprintf(stderr, "iolens load: job '%s': %s at offset %llu failed: %s (errno %d)\n",
		log_name(t->o->name), what, (unsigned long long)offset, strerror(err), err);
	t->stop = true;
}

void load_io_done(struct load_thread *t, struct load_io *io, long res,
		  __u64 now)
{
	struct load_dir_stats *d;
	__u64 clat;

	t->free[t->nfree++] = io;
	t->think_done++;
	/* fill_device: the space ran out, the job's end; a block not
	 * written whole is not one to read back. */
	if (t->o->fill_device && io->dir == LOAD_WRITE &&
	    (res == -ENOSPC || res == -EDQUOT || (res >= 0 && (__u64)res < io->len))) {
		t->exhausted = true;
		if (t->written) {
			__u64 b = (io->offset - t->o->offset) / t->verify_bs;

			t->written[b / 64] &= ~(1ULL << (b % 64));
		}
		if (res < 0)
			return;
	}
	if (res < 0) {
		load_job_err(t, load_dir_name(io->dir), io->offset, (int)-res);
		return;
	}
	/* Nothing moved: the end of the file (a read of a file made empty
	 * by create_on_open), an error as fio's "full resid". */
	if (!res && io->len && io->dir != LOAD_TRIM) {
		load_job_err(t, io->dir == LOAD_READ ? "read (no byte: the file's end)" :
			     "write (no byte)", io->offset, EIO);
		return;
	}
	if (!io->counted)
		return;		/* issued in the ramp */
	d = &t->st.dir[io->dir];
	/* The sampler reads these two from its thread; with one writer a
	 * relaxed store is a plain store. */
	__atomic_store_n(&d->ios, d->ios + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&d->bytes, d->bytes + res, __ATOMIC_RELAXED);
	if ((__u64)res != io->len)
		d->short_ios++;
	clat = now - io->t_issue;
	/* A trim is done at once on every engine: no slat, as fio's. */
	if (!t->eng->sync && io->dir != LOAD_TRIM)
		load_lat_add(&d->slat, io->t_issue - io->t_start);
	load_lat_add(&d->clat, clat);
	load_lat_add(&d->lat, now - io->t_start);
	d->clat_hist[hist_index(clat)]++;
	load_lat_mark(&t->st, clat);
	if (t->o->latency_target_ns && io->dir != LOAD_TRIM)
		load_latgoal_io(t, now - io->t_start);
	if (io->prio_stat != LOAD_PRIO_NO_STATS) {
		struct load_prio_stats *p = &t->st.prios[io->prio_stat];

		load_lat_add(&p->clat, clat);
		p->hist[hist_index(clat)]++;
	}
	if (t->logging)
		load_iolog_io(t, io, res, now);
}
