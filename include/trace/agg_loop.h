/* SPDX-License-Identifier: GPL-2.0 */
/* The periodic reports of the aggregating commands (stat, lat): the maps of
 * the aggregation read every interval, each read made into one report. */
#ifndef IOLENS_TRACE_AGG_LOOP_H
#define IOLENS_TRACE_AGG_LOOP_H

#include <stdbool.h>
#include <linux/types.h>
#include "trace/agg_trace.h"

/* What the aggregating commands are all told: which I/O to count and
 * when to report (-d, --pid/--comm/--cgroup, -j, --own-clock, INTERVAL
 * [COUNT]), filled by cli_parse() from the commands' option rows
 * (mostly cli/filters.h's CLI_AGG_*()). */
struct agg_cmd_opts {
	__u32 devs[IOLENS_MAX_DEV_FILTER];
	int ndev;
	struct iolens_proc_filter proc;
	bool json, own_clock;
	unsigned long long interval_ns;	/* 0: no INTERVAL */
	unsigned long count;		/* 0: until interrupted */
};

/*
 * From the last read of `st` on, every `interval_ns` (0: never on time),
 * at most `count` times (0: no limit), until a stop is requested (Ctrl-C,
 * SIGTERM; caught from now on), and then once more for the interval so
 * far: reads the maps, calls build(arg, st) to make the report of what
 * they hold and print(arg, st, seconds since the previous read) to write
 * it.  A
 * read or build failing (-errno) is said in one line and ends the loop.
 * Returns that error, or 0.
 */
int agg_loop(struct agg_trace *st, __u64 interval_ns, unsigned long count,
	     int (*build)(void *arg, const struct agg_trace *st),
	     void (*print)(void *arg, const struct agg_trace *st, double secs),
	     void *arg);

#endif
