// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "lib/hist.h"
#include "lib/json.h"
#include "trace/rqsum.h"

const char *const rqsum_lat_names[RQSUM_LAT_NR] = { "total", "queue", "device" };

static void lat_add(struct rqsum *s, int k, __u64 from, __u64 to)
{
	__u32 b;

	if (!from || !to || to < from)
		return;		/* an end not seen: unknown, not zero */
	b = hist_index(to - from);
	if (b < HIST_BUCKETS) {
		s->lat[k][b]++;
		s->lat_n[k]++;
	}
}

void rqsum_add(struct rqsum *s, const struct iolens_rq *rq)
{
	s->requests++;
	s->bytes += rq->bytes;
	if (rq->qd) {
		s->qd_sum += rq->qd;
		s->qd_n++;
		if (rq->qd > s->qd_max)
			s->qd_max = rq->qd;
	}
	lat_add(s, RQSUM_TOTAL, rq->ts_start, rq->ts_complete);
	lat_add(s, RQSUM_QUEUE, rq->ts_start, rq->ts_issue);
	lat_add(s, RQSUM_DEVICE, rq->ts_issue, rq->ts_complete);
}

void rqsum_json_lat(struct json *j, const struct rqsum *s, const double *pcts,
		    const char *const *keys, int n)
{
	for (int k = 0; k < RQSUM_LAT_NR; k++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_ns", rqsum_lat_names[k]);
		if (!s->lat_n[k]) {
			json_null(j, key);
			continue;
		}
		json_obj_open(j, key);
		json_u64(j, "count", s->lat_n[k]);
		for (int i = 0; i < n; i++) {
			__u64 ns;
			bool over;

			hist_percentile(s->lat[k], pcts[i], &ns, &over);
			json_u64(j, keys[i], ns);
		}
		json_obj_close(j);
	}
}
