/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load's own: fio's per-job logs (load_iolog.c), write_bw_log,
 * write_iops_log and write_lat_log, in fio's format so that fio2gnuplot
 * and fio_generate_plots read them.
 */
#ifndef IOLENS_LOAD_IOLOG_H
#define IOLENS_LOAD_IOLOG_H

#include <stdio.h>
#include <linux/types.h>
#include "load/load.h"

enum load_log_kind { LOAD_LOG_LAT, LOAD_LOG_SLAT, LOAD_LOG_CLAT, LOAD_LOG_BW,
		     LOAD_LOG_IOPS, LOAD_LOG_KINDS };

/* One log file of a thread and, with log_avg_msec, its open windows. */
struct load_log {
	FILE *f;
	__u64 from_ms[LOAD_DIRS];	/* the window's start */
	double sum[LOAD_DIRS];		/* lat kinds: the window's values */
	__u64 n[LOAD_DIRS], max[LOAD_DIRS];
	__u64 done[LOAD_DIRS];		/* bw, iops: bytes or I/Os before it */
};

struct load_thread;
struct load_io;

/* Makes the thread's log files (never through a link), each named as
 * fio's: PREFIX_KIND.N.log in the current folder.  0, or 1 after one
 * line. */
int load_iolog_open(struct load_thread *t);
/* A counted I/O done at `now` with `res` bytes. */
void load_iolog_io(struct load_thread *t, const struct load_io *io, long res, __u64 now);
/* The windows still open written out, the files closed. */
int load_iolog_close(struct load_thread *t, __u64 now);

#endif
