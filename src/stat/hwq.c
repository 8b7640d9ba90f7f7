// SPDX-License-Identifier: GPL-2.0
/*
 * A disk's figures by hardware queue (rq->mq_hctx->queue_num): whether one
 * queue is saturated while the others idle, and a polled queue's share.
 * Queues are counted at issue and completion as the disk's line is, so
 * their requests add up to it.
 */
#include <stdio.h>
#include "stat/hwq.h"

static bool active(const struct iolens_hwq_stat *q)
{
	return q->issues || q->ios || q->inflight;
}

/* A disk's row (not a partition's) with queues. */
static const struct iolens_hwq_stat *queues_of(const struct stat_row *r)
{
	return r->d && !r->partition && !r->bio_based ? r->d->hwq : NULL;
}

void stat_hwq_print(const struct stat_row *rows, int n, double secs)
{
	bool header = false;

	for (int i = 0; i < n; i++) {
		const struct iolens_hwq_stat *q = queues_of(&rows[i]);

		for (int k = 0; q && k < IOLENS_HWQ_MAX; k++) {
			if (!active(&q[k]))
				continue;
			if (!header) {
				printf("%-13s %4s %9s %10s %8s %7s %8s\n", "Device", "hwq",
				       "r+w/s", "kB/s", "await", "qd-avg", "inflight");
				header = true;
			}
			printf("%-13s %4d %9.2f %10.2f", rows[i].name, k,
			       q[k].ios / secs, q[k].bytes / 1024.0 / secs);
			if (q[k].timed)
				printf(" %8.2f", q[k].total_ns / 1e6 / q[k].timed);
			else
				printf(" %8s", "-");
			if (q[k].issues)
				printf(" %7.2f", (double)q[k].qd_sum / q[k].issues);
			else
				printf(" %7s", "-");
			printf(" %8lld\n", (long long)q[k].inflight);
		}
	}
}

void stat_hwq_json(struct json *j, const struct stat_row *r, double secs)
{
	const struct iolens_hwq_stat *q = queues_of(r);

	if (!q) {
		json_null(j, "hwq");
		return;
	}
	json_arr_open(j, "hwq");
	for (int k = 0; k < IOLENS_HWQ_MAX; k++) {
		if (!active(&q[k]))
			continue;
		json_obj_open(j, NULL);
		json_u64(j, "queue", k);
		json_u64(j, "ios", q[k].ios);
		json_u64(j, "bytes", q[k].bytes);
		json_f64(j, "r+w/s", q[k].ios / secs, 2);
		if (q[k].timed)
			json_f64(j, "await", q[k].total_ns / 1e6 / q[k].timed, 3);
		else
			json_null(j, "await");
		json_u64(j, "timed", q[k].timed);
		json_u64(j, "issues", q[k].issues);
		if (q[k].issues)
			json_f64(j, "qd_avg", (double)q[k].qd_sum / q[k].issues, 2);
		else
			json_null(j, "qd_avg");
		json_u64(j, "inflight", q[k].inflight < 0 ? 0 : q[k].inflight);
		json_obj_close(j);
	}
	json_arr_close(j);
}
