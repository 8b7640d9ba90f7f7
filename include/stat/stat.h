/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolens stat: iostat -x from in-kernel aggregation, plus what iostat cannot
 * show: latency percentiles, the queue/device split, queue depth at issue
 * and misaligned writes.  stat.c builds each report's rows (the first from
 * /proc/diskstats, then from the aggregation's slots); print.c prints them.
 */
#ifndef IOLENS_STAT_STAT_H
#define IOLENS_STAT_STAT_H

#include <stdbool.h>
#include <linux/types.h>
#include "trace/agg_loop.h"

/* What `iolens stat`'s options ask for. */
struct stat_opts {
	struct agg_cmd_opts a;	/* no INTERVAL: one report since boot */
	bool partitions, skip_boot, active_only, human, stack, names;
	bool by_hwq;		/* --by hwq: a line per hardware queue */
	bool by_cgroup;		/* --by cgroup: a line per cgroup */
	__u64 stuck_ns;		/* a warning for a request in flight this
				 * long; 0: none */
};

/* Runs `iolens stat`: 0, 1 on a runtime failure, 2 on a usage error
 * found only against the machine (-S with too many devices under -d's)
 * or between options (--pid without an INTERVAL). */
int stat_run(const struct stat_opts *o);

#endif
