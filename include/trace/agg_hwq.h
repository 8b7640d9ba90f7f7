/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A disk's figures by hardware queue (bpf/agg.h struct iolens_hwq_stat),
 * as agg_trace reads them from its slot's entries of `hwq_stats`.
 */
#ifndef IOLENS_AGG_HWQ_H
#define IOLENS_AGG_HWQ_H

#include "trace/agg_trace.h"

/* d->hwq from the map's entries `now` of the disk's slot since *prev, which
 * becomes `now` (both IOLENS_HWQ_MAX entries, allocated at the first
 * call); inflight is the queue's at the read.  0 or -ENOMEM. */
int agg_hwq_delta(struct agg_dev *d, struct iolens_hwq_stat **prev,
		  const volatile struct iolens_hwq_stat *now);

/* dst += src, IOLENS_HWQ_MAX entries each. */
void agg_hwq_add(struct iolens_hwq_stat *dst, const struct iolens_hwq_stat *src);

#endif
