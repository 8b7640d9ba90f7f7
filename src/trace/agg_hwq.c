// SPDX-License-Identifier: GPL-2.0
/* A disk's figures by hardware queue over an interval (trace/agg_hwq.h). */
#include <errno.h>
#include <stdlib.h>
#include "trace/agg_hwq.h"

int agg_hwq_delta(struct agg_dev *d, struct iolens_hwq_stat **prev,
		  const volatile struct iolens_hwq_stat *now)
{
	if (!d->hwq)
		d->hwq = calloc(IOLENS_HWQ_MAX, sizeof(*d->hwq));
	if (!*prev)
		*prev = calloc(IOLENS_HWQ_MAX, sizeof(**prev));
	if (!d->hwq || !*prev)
		return -ENOMEM;
	for (int q = 0; q < IOLENS_HWQ_MAX; q++) {
		struct iolens_hwq_stat v, *p = &(*prev)[q], *o = &d->hwq[q];

		/* Each field read once: the programs go on adding to them. */
		v.inflight = now[q].inflight;
		v.issues = now[q].issues;
		v.qd_sum = now[q].qd_sum;
		v.ios = now[q].ios;
		v.bytes = now[q].bytes;
		v.total_ns = now[q].total_ns;
		v.timed = now[q].timed;
		o->inflight = v.inflight;
		o->issues = v.issues - p->issues;
		o->qd_sum = v.qd_sum - p->qd_sum;
		o->ios = v.ios - p->ios;
		o->bytes = v.bytes - p->bytes;
		o->total_ns = v.total_ns - p->total_ns;
		o->timed = v.timed - p->timed;
		*p = v;
	}
	return 0;
}

void agg_hwq_add(struct iolens_hwq_stat *dst, const struct iolens_hwq_stat *src)
{
	for (int q = 0; q < IOLENS_HWQ_MAX; q++) {
		dst[q].inflight += src[q].inflight;
		dst[q].issues += src[q].issues;
		dst[q].qd_sum += src[q].qd_sum;
		dst[q].ios += src[q].ios;
		dst[q].bytes += src[q].bytes;
		dst[q].total_ns += src[q].total_ns;
		dst[q].timed += src[q].timed;
	}
}
