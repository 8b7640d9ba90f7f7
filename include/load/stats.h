/* SPDX-License-Identifier: GPL-2.0 */
/* load's own: adding to the statistics of load/load.h (load_stats.c). */
#ifndef IOLENS_LOAD_STATS_H
#define IOLENS_LOAD_STATS_H

#include <linux/types.h>
#include "load/load.h"

void load_lat_add(struct load_lat *l, __u64 ns);
/* An I/O of this clat in fio's latency distribution. */
void load_lat_mark(struct load_stats *st, __u64 ns);
void load_rate_add(struct load_rate *r, __u64 v);
/* fio's group_reporting sum of samples: min, max, mean and S add up. */
void load_rate_merge(struct load_rate *dst, const struct load_rate *src);

#endif
