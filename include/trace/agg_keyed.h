/* SPDX-License-Identifier: GPL-2.0 */
/* The histograms agg_trace splits by process and flags (map lat_hists:
 * entries only ever added, counts never reset), kept sorted by key with
 * their last counts, so that each read gives the interval's differences. */
#ifndef IOLENS_AGG_KEYED_H
#define IOLENS_AGG_KEYED_H

#include "trace/agg_trace.h"

struct keyed_set;

struct keyed_set *keyed_set_new(void);
void keyed_set_free(struct keyed_set *ks);

/* Reads every entry of lat_hists (`fd`) and sets each one's difference
 * since the last read; `slots` (mmap of devs) names their devices, map
 * `stacks` (stacks_fd) their stacks.  0, or -ENOMEM. */
int keyed_set_read(struct keyed_set *ks, int fd, int stacks_fd,
		   const volatile struct iolens_dev_slot *slots, int nslots);

/* The entries, in key order; valid until the next read. */
int keyed_set_count(const struct keyed_set *ks);
const struct agg_keyed *keyed_set_get(const struct keyed_set *ks, int i);

#endif
