// SPDX-License-Identifier: GPL-2.0
/* What a disk has in flight (trace/agg_inflight.h). */
#include <string.h>
#include "lib/devices.h"
#include "trace/agg_inflight.h"

__s64 agg_inflight_reconcile(struct agg_inflight_base *base,
			     volatile struct iolens_dev_slot *ds,
			     const struct iolens_stat *prev,
			     const struct iolens_stat *now)
{
	__s64 n = ds->inflight - ds->leaked;
	__u64 kin[2];

	for (int g = 0; g < IOLENS_SG_NR; g++)
		if (now[g].ios != prev[g].ios || now[g].issues != prev[g].issues)
			return 0;
	if (n <= 0 || dev_sysfs_u64s(ds->dev, "inflight", kin, 2) || kin[0] + kin[1])
		return 0;
	ds->leaked += n;
	/* Nothing issued in the interval and nothing in flight: every age
	 * counted now is of a completion missed. */
	for (int i = 0; i < IOLENS_AGE_EPOCHS; i++)
		base->age[i] = ds->age[i];
	base->old = ds->age_old;
	return n;
}

/*
 * The age of the oldest request a disk counts in flight at `now` (see
 * IOLENS_AGE_SHIFT), less those of missed completions: a lower bound, the
 * end of its epoch.  A word taken over by a later epoch moved its count to
 * age_old, the base's part of it too.
 */
void agg_inflight_ages(struct agg_inflight_base *p,
		       const volatile struct iolens_dev_slot *ds, __u64 now,
		       struct agg_dev *d)
{
	__u32 cur = now >> IOLENS_AGE_SHIFT, oldest = cur + 1;
	__s64 old;

	for (int i = 0; i < IOLENS_AGE_EPOCHS; i++) {
		__u64 w = ds->age[i], b = p->age[i];
		__u32 e = w >> 32;

		if (b && b >> 32 != e) {
			p->old += (__u32)b;
			p->age[i] = b = 0;
		}
		if ((__u32)w > (__u32)b && e < oldest)
			oldest = e;
	}
	old = ds->age_old - p->old;
	d->oldest_beyond = old > 0;
	if (d->oldest_beyond)
		oldest = cur >= IOLENS_AGE_EPOCHS ? cur - IOLENS_AGE_EPOCHS : 0;
	d->oldest_ns = oldest <= cur && now > ((__u64)oldest + 1) << IOLENS_AGE_SHIFT ?
		       now - (((__u64)oldest + 1) << IOLENS_AGE_SHIFT) : 0;
	/* The watched request, if it stays the same while read. */
	d->watch.rq = 0;
	d->watch_age_ns = 0;
	if (ds->watch.rq) {
		__u64 rq = ds->watch.rq;

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		memcpy(&d->watch, (const void *)&ds->watch, sizeof(d->watch));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (ds->watch.rq != rq || d->watch.rq != rq || !d->watch.start ||
		    d->watch.start > now)
			d->watch.rq = 0;
		d->watch_age_ns = d->watch.rq ? now - d->watch.start : 0;
	}
}
