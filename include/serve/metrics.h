/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `iolens serve` exports: cumulative totals of the in-kernel
 * aggregation since serve started, per whole disk and op group, and their
 * exposition in the Prometheus text format or OpenMetrics.  One collector
 * adds intervals; any number of scrapes format snapshots.  Nothing is ever
 * reset, so every counter only goes up.
 */
#ifndef IOLENS_METRICS_H
#define IOLENS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct metrics;
struct agg_trace;

/* Histogram `le` bounds (see metrics.c): durations are folded into these
 * bounds in ns, which are all bucket edges of the log-linear layout. */
#define METRICS_DUR_BOUNDS	22
#define METRICS_QD_BOUNDS	11
extern const __u64 metrics_dur_bounds_ns[METRICS_DUR_BOUNDS];
extern const __u64 metrics_qd_bounds[METRICS_QD_BOUNDS];

/* Index of the `le` bound a log-linear bucket folds into: a bound whose
 * limit (exclusive, in the histogram's units) is at or above the bucket's
 * upper edge; n = +Inf.  `limits` are all bucket edges. */
int metrics_fold(__u32 idx, const __u64 *limits, int n);

/* `detail`: the aggregation counts in the kernel (serve --detail), and
 * what only that gives is exported; else the counts are each disk's
 * diskstats (serve/disks.h), of the disks `devs` hold (their disks), all
 * when ndev is 0.  `rmw`: read-modify-write reads are counted; `labels`:
 * the IOLENS_STAT_LABEL_* families are exported. */
struct metrics *metrics_new(bool detail, bool rmw, unsigned int labels,
			    const __u32 *devs, int ndev);
void metrics_free(struct metrics *m);

/* Adds the interval `st` holds after a agg_trace_read() (histograms of
 * IOLENS_H_TOTAL, _QUEUE, _DEVICE and _QD), its losses so far and, with
 * labels, its label sets; without `detail`, the disks' diskstats since the
 * last collection.  0 or -errno. */
int metrics_collect(struct metrics *m, const struct agg_trace *st);

/* In-kernel cost of our programs: run time and runs so far; `known` false
 * when the kernel does not count them (stats not enabled). */
void metrics_set_bpf(struct metrics *m, bool known, __u64 run_ns, __u64 runs);

/* CLOCK_MONOTONIC of the last collection, 0 before the first. */
__u64 metrics_collected_ns(struct metrics *m);

/* A snapshot, formatted; malloc'd, *len bytes, NULL if out of memory.
 * `openmetrics`: OpenMetrics 1.0 (family names without _total, # EOF),
 * else the Prometheus text format 0.0.4. */
char *metrics_format(struct metrics *m, bool openmetrics, size_t *len);

#endif
