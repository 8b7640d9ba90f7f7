/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IOLENS_BPF_HIST_LAYOUT_H
#define IOLENS_BPF_HIST_LAYOUT_H

/*
 * Histogram layout, shared by every BPF aggregation and by userspace: log-
 * linear like fio's and HdrHistogram's.  Values below 2 * HIST_SUB get a
 * bucket each; above that every power-of-two range [2^e, 2^(e+1)) is split
 * into HIST_SUB equal buckets.  A bucket is then at most 1/HIST_SUB of its
 * lower bound wide, so its midpoint is off by at most 1/(2 * HIST_SUB) =
 * 0.78% of any value in it: percentiles carry a relative error below 1%.
 * Index math is branchy rather than built on __builtin_clzll, which the BPF
 * backend cannot always lower.
 */
#ifndef HIST_INLINE
#define HIST_INLINE static inline __attribute__((always_inline))
#endif

#define HIST_SUB_BITS	6
#define HIST_SUB	(1U << HIST_SUB_BITS)		/* buckets per power of two */
#define HIST_LINEAR	(2U * HIST_SUB)			/* values kept exactly */
/* Values of 2^HIST_MAX_BITS and more (18 minutes in ns, 1 TiB in bytes)
 * go to the last bucket, HIST_OVERFLOW, which has no upper bound. */
#define HIST_MAX_BITS	40
#define HIST_OVERFLOW	(HIST_LINEAR + (HIST_MAX_BITS - HIST_SUB_BITS - 1) * HIST_SUB)
#define HIST_BUCKETS	(HIST_OVERFLOW + 1)

/* Index of the highest set bit of v > 0. */
HIST_INLINE unsigned int hist_msb(__u64 v)
{
	unsigned int e = 0;

	if (v >> 32) { v >>= 32; e += 32; }
	if (v >> 16) { v >>= 16; e += 16; }
	if (v >> 8) { v >>= 8; e += 8; }
	if (v >> 4) { v >>= 4; e += 4; }
	if (v >> 2) { v >>= 2; e += 2; }
	if (v >> 1) e += 1;
	return e;
}

HIST_INLINE __u32 hist_index(__u64 v)
{
	unsigned int e;

	if (v < HIST_LINEAR)
		return (__u32)v;
	e = hist_msb(v);
	if (e >= HIST_MAX_BITS)
		return HIST_OVERFLOW;
	return HIST_LINEAR + (e - HIST_SUB_BITS - 1) * HIST_SUB +
	       (__u32)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* Smallest value of bucket `idx`. */
HIST_INLINE __u64 hist_lower(__u32 idx)
{
	unsigned int g;

	if (idx < HIST_LINEAR)
		return idx;
	g = (idx - HIST_LINEAR) / HIST_SUB;	/* power of two 2^(g + 7) */
	return (__u64)(HIST_SUB + (idx - HIST_LINEAR) % HIST_SUB) << (g + 1);
}

/* Width of bucket `idx`; HIST_OVERFLOW has no upper bound, this is its
 * nominal width. */
HIST_INLINE __u64 hist_width(__u32 idx)
{
	if (idx < HIST_LINEAR)
		return 1;
	return 1ULL << ((idx - HIST_LINEAR) / HIST_SUB + 1);
}

/* One histogram (map `hists` of agg.bpf.c, shared by all CPUs; map
 * `sys_hists` of tasks.bpf.c, per CPU): counts wrap at 2^32, differences
 * taken modulo 2^32 stay exact below that many events per read interval. */
struct iolens_hist {
	__u32 b[HIST_BUCKETS];
};

#endif
