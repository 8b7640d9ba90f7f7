/* SPDX-License-Identifier: GPL-2.0 */
/* `iolens stat`'s report: its rows as iostat -x prints them, with iolens's
 * own columns, in text or JSON. */
#ifndef IOLENS_STAT_PRINT_H
#define IOLENS_STAT_PRINT_H

#include <stdbool.h>
#include "lib/devices.h"
#include "trace/agg_trace.h"

/* One line of `iolens stat`'s table: a device over one period. */
struct stat_row {
	char name[64];		/* kernel's, or with -N the stable one */
	__u32 dev;
	__u64 ios[IOLENS_SG_NR], bytes[IOLENS_SG_NR], merges[IOLENS_SG_NR];
	__u64 timed[IOLENS_SG_NR];	/* of ios: with a known total time */
	double time_ns[IOLENS_SG_NR];	/* total time over `timed` */
	double util_ns;			/* the kernel's io_ticks; < 0: unknown */
	double busy_ns;			/* iolens's exact busy time; < 0: unknown */
	bool bio_based;			/* its disk takes bios, not requests */
	__u32 members[IOLENS_MAX_DEV_FILTER];	/* a stacked device's (dm, md) */
	int nmembers;
	int depth;			/* with -S: under how many holders */
	bool partition;			/* a partition's line (a disk's holds
					 * its partitions' requests too) */
	const struct agg_dev *d;	/* iolens's own figures; NULL since boot */
};

struct stat_cg;

/* One report of `n` rows over `secs`; `boot`: since boot, from diskstats
 * (`st` NULL), else iolens's own figures from `st`; by cgroup from `cg`
 * (or NULL). */
void stat_report(const struct stat_row *rows, int n, double secs, bool boot,
		 const struct agg_trace *st, const struct stat_cg *cg, bool json,
		 bool human, __u64 stuck_ns);

#endif
