/* SPDX-License-Identifier: GPL-2.0 */
/* A summary of traced block requests: counts, sizes, queue depth at issue
 * and latency histograms (attach, bench). */
#ifndef IOLENS_RQSUM_H
#define IOLENS_RQSUM_H

#include <linux/types.h>
#include "bpf/hist_layout.h"
#include "bpf/block.h"

struct json;

enum rqsum_lat { RQSUM_TOTAL, RQSUM_QUEUE, RQSUM_DEVICE, RQSUM_LAT_NR };

/* "total" (start to completion), "queue" (start to issue), "device". */
extern const char *const rqsum_lat_names[RQSUM_LAT_NR];

struct rqsum {
	__u64 requests, bytes;
	__u64 qd_sum, qd_n, qd_max;	/* in flight at issue, where seen */
	__u64 lat[RQSUM_LAT_NR][HIST_BUCKETS];
	__u64 lat_n[RQSUM_LAT_NR];	/* with both ends seen */
};

void rqsum_add(struct rqsum *s, const struct iolens_rq *rq);

/* "<name>_ns": {"count", "p50", ...} of each latency, null where no
 * request had both ends seen; `n` percentiles `pcts` under `keys`. */
void rqsum_json_lat(struct json *j, const struct rqsum *s, const double *pcts,
		    const char *const *keys, int n);

#endif
