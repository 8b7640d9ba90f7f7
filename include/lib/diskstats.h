/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/diskstats: the kernel's own per-device counters since boot. */
#ifndef IOLENS_DISKSTATS_H
#define IOLENS_DISKSTATS_H

#include <linux/types.h>
#include "bpf/agg.h"

struct diskstat {
	__u32 dev;		/* kernel dev_t (major << 20 | minor) */
	char name[32];
	/* Per op group, in the order of enum iolens_sgrp. */
	__u64 ios[IOLENS_SG_NR];
	__u64 merges[IOLENS_SG_NR];
	__u64 sectors[IOLENS_SG_NR];
	__u64 time_ms[IOLENS_SG_NR];
	__u64 in_flight;
	__u64 io_ticks_ms;
	__u64 weighted_ms;
};

/* All devices; *out is malloc'ed.  Returns how many, or -errno. */
int diskstats_read(struct diskstat **out);

/* One device's, from its sysfs "stat" (no name): 0 or -errno. */
int diskstat_of_dev(__u32 dev, struct diskstat *d);
/* The same from that file kept open (diskstat_open()): a read, no path
 * walk through sysfs.  -ENODEV once the device is gone. */
int diskstat_open(__u32 dev);
int diskstat_read_fd(int fd, __u32 dev, struct diskstat *d);

#endif
