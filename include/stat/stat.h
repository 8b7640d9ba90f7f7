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
#include "bpf/agg.h"

/* What `iolens stat`'s options ask for. */
struct stat_opts {
	__u32 devs[IOLENS_MAX_DEV_FILTER];
	int ndev;
	bool partitions, skip_boot, active_only, json, human, own_clock, stack, names;
	struct iolens_proc_filter proc;	/* --pid, --comm, --cgroup */
	unsigned long long interval_ns;	/* 0: one report since boot */
	unsigned long count;	/* 0: until interrupted */
};

/* Runs `iolens stat`: 0, 1 on a runtime failure, 2 on a usage error
 * found only against the machine (-S with too many devices under -d's)
 * or between options (--pid without an INTERVAL). */
int stat_run(const struct stat_opts *o);

#endif
