/* SPDX-License-Identifier: GPL-2.0 */
/* Percentiles and merging over the histogram layout of bpf/hist_layout.h. */
#ifndef IOLENS_HIST_H
#define IOLENS_HIST_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/hist_layout.h"

/* Sum of all buckets. */
__u64 hist_count(const __u64 counts[HIST_BUCKETS]);

/* dst += src, bucket by bucket (per-CPU copies, intervals). */
void hist_add(__u64 dst[HIST_BUCKETS], const __u64 src[HIST_BUCKETS]);

/* The bucket holding the p-th percentile (0 < p <= 100, nearest rank);
 * false for an empty histogram. */
bool hist_rank_bucket(const __u64 counts[HIST_BUCKETS], double p, __u32 *idx);

/*
 * The p-th percentile (0 < p <= 100, nearest rank) as the midpoint of its
 * bucket: within 1/(2 * HIST_SUB) of the exact value, exact below
 * HIST_LINEAR.  Returns false for an empty histogram.  *overflow is set
 * when the percentile lies in HIST_OVERFLOW: then *value is only a lower
 * bound.
 */
bool hist_percentile(const __u64 counts[HIST_BUCKETS], double p, __u64 *value,
		     bool *overflow);

/* The same with the histogram's count known (`n`, its sum): one partial
 * pass instead of a count and a pass. */
bool hist_rank_bucket_n(const __u64 counts[HIST_BUCKETS], __u64 n, double p, __u32 *idx);
bool hist_percentile_n(const __u64 counts[HIST_BUCKETS], __u64 n, double p,
		       __u64 *value, bool *overflow);

#endif
