/* SPDX-License-Identifier: GPL-2.0 */
/* Failed requests by device, op group, status and submitter (map
 * `failures` of bpf/agg.bpf.c: entries only ever added, counts never
 * reset), kept with their last counts so that each read gives both the
 * totals and the interval's differences. */
#ifndef IOLENS_AGG_FAIL_H
#define IOLENS_AGG_FAIL_H

#include "bpf/agg.h"

/* One key's failures. */
struct agg_failure {
	struct iolens_fail_key key;
	__u32 dev;			/* of key.slot */
	struct iolens_fail_count total;	/* since the start */
	struct iolens_fail_count n;	/* over the last interval */
};

struct fail_set;

struct fail_set *fail_set_new(void);
void fail_set_free(struct fail_set *fs);

/* Reads every entry of `failures` (`fd`); `slots` (mmap of devs) names
 * their devices.  0, or -ENOMEM. */
int fail_set_read(struct fail_set *fs, int fd,
		  const volatile struct iolens_dev_slot *slots, int nslots);

/* The entries, in the order first seen; valid until the next read. */
int fail_set_count(const struct fail_set *fs);
const struct agg_failure *fail_set_get(const struct fail_set *fs, int i);

#endif
