/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a disk has in flight, as agg_trace reads it from its slot of `devs`:
 * completions the kernel never ran the hook for, found once the disk is
 * idle, and the age of the oldest request (bpf/agg.h IOLENS_AGE_SHIFT).
 */
#ifndef IOLENS_AGG_INFLIGHT_H
#define IOLENS_AGG_INFLIGHT_H

#include "trace/agg_trace.h"

/* A disk's age words and old count when missed completions were found:
 * what they counted then never completes. */
struct agg_inflight_base {
	__u64 age[IOLENS_AGE_EPOCHS];
	__s64 old;
};

/* Requests counted in flight whose completion never reached the hook,
 * found where the disk did nothing in the interval (`prev` and `now` its
 * counters at the last read and now) and the kernel has nothing in
 * flight: added to ds->leaked and returned; their ages go to `base`.
 * Only a disk idle for a whole interval is trusted: under load the
 * kernel's count (requests in state MQ_RQ_IN_FLIGHT) and ours disagree
 * for a moment around every completion. */
__s64 agg_inflight_reconcile(struct agg_inflight_base *base,
			     volatile struct iolens_dev_slot *ds,
			     const struct iolens_stat *prev,
			     const struct iolens_stat *now);

/* d->oldest_ns, oldest_beyond, watch and watch_age_ns at `now`. */
void agg_inflight_ages(struct agg_inflight_base *base,
		       const volatile struct iolens_dev_slot *ds, __u64 now,
		       struct agg_dev *d);

#endif
