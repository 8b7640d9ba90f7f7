// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include "lib/hist.h"

__u64 hist_count(const __u64 counts[HIST_BUCKETS])
{
	__u64 n = 0;

	for (__u32 i = 0; i < HIST_BUCKETS; i++)
		n += counts[i];
	return n;
}

void hist_add(__u64 dst[HIST_BUCKETS], const __u64 src[HIST_BUCKETS])
{
	for (__u32 i = 0; i < HIST_BUCKETS; i++)
		dst[i] += src[i];
}

bool hist_rank_bucket(const __u64 counts[HIST_BUCKETS], double p, __u32 *idx)
{
	return hist_rank_bucket_n(counts, hist_count(counts), p, idx);
}

bool hist_rank_bucket_n(const __u64 counts[HIST_BUCKETS], __u64 n, double p, __u32 *idx)
{
	__u64 rank, seen = 0;
	__u32 i;

	if (!n || !(p > 0))
		return false;
	/* Nearest rank: the smallest value with at least p% at or below. */
	rank = (__u64)ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += counts[i];
		if (seen >= rank)
			break;
	}
	*idx = i;
	return true;
}

bool hist_percentile(const __u64 counts[HIST_BUCKETS], double p, __u64 *value,
		     bool *overflow)
{
	return hist_percentile_n(counts, hist_count(counts), p, value, overflow);
}

bool hist_percentile_n(const __u64 counts[HIST_BUCKETS], __u64 n, double p,
		       __u64 *value, bool *overflow)
{
	__u32 i;

	*overflow = false;
	if (!hist_rank_bucket_n(counts, n, p, &i))
		return false;
	if (i == HIST_OVERFLOW) {
		*overflow = true;
		*value = hist_lower(i);
	} else {
		*value = hist_lower(i) + hist_width(i) / 2;
	}
	return true;
}
