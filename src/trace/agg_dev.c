// SPDX-License-Identifier: GPL-2.0
/* A device's figures over an interval: sums and tests (trace/agg_trace.h). */
#include <string.h>
#include <stdlib.h>
#include "lib/diskstats.h"
#include "lib/hist.h"
#include "lib/sanitize.h"
#include "trace/agg_hwq.h"
#include "trace/agg_trace.h"
#include "trace/reqflags.h"

/*
 * io_ticks counts whole jiffies: each busy period is rounded to them (the
 * kernel adds now - stamp in jiffies at its start and end), and an
 * interval's ends are cut at jiffies too, so it may fall short of our busy
 * time by a jiffy per busy period and two more: 10 ms each at HZ=100.  A
 * missed completion ends no busy period, so it shows beyond that.
 */
#define JIFFY_MAX_NS 10000000ULL

/* Read in place, while the programs add to it: each count is read once,
 * and what came after goes to the next interval. */
__u64 agg_hist_delta(const volatile struct iolens_hist *h, __u32 *prev, __u64 *out)
{
	__u64 n = 0;

	for (__u32 b = 0; b < HIST_BUCKETS; b++) {
		__u32 v = h->b[b];

		out[b] = (__u32)(v - prev[b]);
		prev[b] = v;
		n += out[b];
	}
	return n;
}

void agg_dev_kernel_counts(struct agg_dev *d, const struct diskstat *now,
			   const struct diskstat *prev)
{
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		struct iolens_stat *o = &d->op[g];

		o->ios = now->ios[g] - prev->ios[g];
		o->bytes = (now->sectors[g] - prev->sectors[g]) * 512;
		o->merges = now->merges[g] - prev->merges[g];
		o->timed = o->ios;
		o->total_ns = (now->time_ms[g] - prev->time_ms[g]) * 1000000ULL;
	}
}

void agg_stat_sum(struct iolens_stat *dst, const struct iolens_stat *v,
		  int ncpu)
{
	const __u64 *src = (const __u64 *)v;
	__u64 *d = (__u64 *)dst;
	size_t n = sizeof(*v) / sizeof(__u64);

	memset(dst, 0, sizeof(*dst));
	for (int c = 0; c < ncpu; c++)
		for (size_t i = 0; i < n; i++)
			d[i] += src[c * n + i];
}

void agg_stat_sub(struct iolens_stat *d, const struct iolens_stat *a,
		  const struct iolens_stat *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	__u64 *r = (__u64 *)d;

	for (size_t i = 0; i < sizeof(*d) / sizeof(__u64); i++)
		r[i] = x[i] - y[i];
}

bool agg_dev_busy_unknown(const struct agg_dev *d)
{
	return d->missed || d->bio_based ||
	       d->busy_ns > d->io_ticks_ns + (d->busy_periods + 2) * JIFFY_MAX_NS;
}

void agg_dev_zero(struct agg_dev *d)
{
	for (int g = 0; g < IOLENS_SG_NR; g++)
		for (int k = 0; k < IOLENS_H_NR; k++)
			if (d->hist[g][k] && d->hist_n[g][k])
				memset(d->hist[g][k], 0, HIST_BUCKETS * sizeof(__u64));
	memset(d->hist_n, 0, sizeof(d->hist_n));
	memset(d->op, 0, sizeof(d->op));
	memset(d->other_ops, 0, sizeof(d->other_ops));
	if (d->hwq)
		memset(d->hwq, 0, IOLENS_HWQ_MAX * sizeof(*d->hwq));
	d->busy_ns = 0;
	d->missed = 0;
	d->io_ticks_ns = 0;
	d->busy_periods = 0;
	d->bio_based = false;
	d->oldest_ns = 0;
	d->oldest_beyond = false;
	d->watch.rq = 0;
	d->watch_age_ns = 0;
}

void agg_dev_add(struct agg_dev *dst, const struct agg_dev *src)
{
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		const __u64 *x = (const __u64 *)&src->op[g];
		__u64 *r = (__u64 *)&dst->op[g];

		for (size_t i = 0; i < sizeof(src->op[g]) / sizeof(__u64); i++)
			r[i] += x[i];
		for (int k = 0; k < IOLENS_H_NR; k++)
			if (dst->hist[g][k] && src->hist[g][k] && src->hist_n[g][k]) {
				hist_add(dst->hist[g][k], src->hist[g][k]);
				dst->hist_n[g][k] += src->hist_n[g][k];
			}
	}
	dst->busy_ns += src->busy_ns;
	dst->missed += src->missed;
	dst->io_ticks_ns += src->io_ticks_ns;
	dst->busy_periods += src->busy_periods;
	for (int k = 0; k < IOLENS_KOPS; k++) {
		dst->other_ops[k].ios += src->other_ops[k].ios;
		dst->other_ops[k].bytes += src->other_ops[k].bytes;
	}
	if (dst->hwq && src->hwq)
		agg_hwq_add(dst->hwq, src->hwq);
	dst->bio_based |= src->bio_based;
	if (src->oldest_ns > dst->oldest_ns)
		dst->oldest_ns = src->oldest_ns;
	dst->oldest_beyond |= src->oldest_beyond;
	if (src->watch.rq && src->watch_age_ns >= dst->watch_age_ns) {
		dst->watch = src->watch;
		dst->watch_age_ns = src->watch_age_ns;
	}
}

void agg_dev_other_ops(struct agg_dev *d, struct iolens_op_count *prev,
		       const volatile struct iolens_op_count *now)
{
	for (int k = 0; k < IOLENS_KOPS; k++) {
		struct iolens_op_count v = { now[k].ios, now[k].bytes };

		d->other_ops[k].ios = v.ios - prev[k].ios;
		d->other_ops[k].bytes = v.bytes - prev[k].bytes;
		prev[k] = v;
	}
}

bool agg_dev_stuck(const struct agg_dev *d, const char *name, __u64 stuck_ns,
		   char *buf, size_t len)
{
	static bool ops_known;
	char who[SAN_TEXT_MAX(IOLENS_COMM_LEN) + 1], dev[SAN_TEXT_MAX(64) + 1];
	const struct iolens_watch *w = &d->watch;
	struct iolens_rq rq = { .kflags = w->op };
	size_t at;

	if (!stuck_ns || !d->oldest_ns || d->oldest_ns < stuck_ns)
		return false;
	at = snprintf(buf, len, "STUCK: %s has a request in flight for %s%.1f s",
		      san_text_buf(dev, sizeof(dev), name),
		      d->oldest_beyond ? "more than " : "", d->oldest_ns / 1e9);
	if (at >= len)
		return true;
	if (!w->rq || d->watch_age_ns < stuck_ns) {
		snprintf(buf + at, len - at, " (which one is not known: iolens watched another)");
		return true;
	}
	/* Only now, once: the kernel's op numbers, from its BTF. */
	if (!ops_known) {
		reqflags_init();
		ops_known = true;
	}
	reqflags_normalize(&rq);
	snprintf(buf + at, len - at, ": %s of %u bytes at sector %llu, %s by pid %u (%s), %.1f s ago",
		 op_name(rq.op), w->bytes, (unsigned long long)w->sector,
		 w->submitter ? "submitted" : "issued", w->tgid,
		 san_text_buf(who, sizeof(who), w->comm), d->watch_age_ns / 1e9);
	return true;
}

void agg_dev_free(struct agg_dev *d)
{
	if (!d)
		return;
	free(d->hist_mem);
	free(d->hwq);
	free(d);
}
