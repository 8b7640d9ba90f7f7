/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolens lat: histograms of device time, queue time, total latency, request
 * size and queue depth, aggregated in the kernel (biolatency's job, with
 * 0.78%-fine buckets and percentiles), split per disk, per op and flags, per
 * submitting process.
 */
#ifndef IOLENS_LAT_LAT_H
#define IOLENS_LAT_LAT_H

#include <stdbool.h>
#include <linux/types.h>
#include "trace/agg_loop.h"

/* What `iolens lat`'s options ask for. */
struct lat_opts {
	struct agg_cmd_opts a;	/* no INTERVAL: one report at Ctrl-C */
	unsigned int kinds;	/* bits 1 << IOLENS_H_*; 0: device time */
	bool per_disk, per_flags, per_proc, fine;
	bool per_hwq, per_status;	/* --by hwq, --by status */
	bool per_cgroup;		/* --by cgroup */
	bool per_stack;			/* --by stack: the kernel's submitting stack */
};

/* Runs `iolens lat`: 0, or 1 on a runtime failure. */
int lat_run(const struct lat_opts *o);

#endif
