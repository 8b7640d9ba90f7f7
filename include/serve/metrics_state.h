/* SPDX-License-Identifier: GPL-2.0 */
/* serve's cumulative state (serve/metrics.c collects it), as its
 * exposition (serve/exposition.c) reads it under the lock. */
#ifndef IOLENS_SERVE_METRICS_STATE_H
#define IOLENS_SERVE_METRICS_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/types.h>
#include "bpf/agg.h"
#include "lib/devices.h"
#include "serve/metrics.h"

/* The histograms exported: mh_kind (metrics.c) and histograms[]
 * (exposition.c) are in this order. */
enum { MH_TOTAL, MH_QUEUE, MH_DEVICE, MH_QD, MH_NR };
#define MAX_BOUNDS METRICS_DUR_BOUNDS

struct mhist {
	__u64 b[MAX_BOUNDS + 1];	/* per bound, not cumulative; last +Inf */
	__u64 sum;			/* ns, or requests in flight */
	/* The sum is known only while every value counted in the histogram
	 * is in it too (device time: the kernel's start of a request may be
	 * unknown, then its device time is in the histogram only). */
	bool sum_unknown;
};

struct mop {
	__u64 ios, bytes, merges, misaligned;
	__u64 requeues, timeouts;
	__u64 rmw_reads, rmw_bytes;
	__u64 other_ios, other_bytes;	/* of label sets beyond the cap */
	struct mhist h[MH_NR];
};

struct mdev {
	__u32 dev;
	char name[DEV_NAME_LEN];
	struct mop op[IOLENS_SG_NR];
	__u64 busy_ns;
	__u64 io_ticks_ns;
	__u64 weighted_ns;	/* diskstats' weighted time */
	__u64 inflight_now;	/* diskstats' in flight, at the last collection */
	__u64 missed;
	__u64 oldest_ns;	/* at the last collection */
	bool bio_based;		/* no requests: no age */
};

/* A label set of the kernel's, with its label values fixed at first
 * sight: a cgroup removed later keeps the path it had. */
struct mlabel {
	struct iolens_label_key key;
	__u32 dev;
	/* Collections its cgroup's path was not found in: the walk of the
	 * hierarchy runs at most once a second, so a new cgroup may take
	 * two.  Until then (PENDING_MAX) the set is not exported. */
	int pending;
	char *cgroup;
	char comm[IOLENS_COMM_LEN];
	struct iolens_label_count n;	/* so far */
};
#define PENDING_MAX 3

/* Failed requests of a device, op group and status, so far. */
struct mfail {
	__u32 dev;
	__u8 sg;
	__u8 status;
	__u64 ios;
};

struct metrics {
	pthread_mutex_t lock;
	struct mdev *devs;	/* sorted by dev */
	int ndev;
	size_t cap;
	bool detail;		/* serve --detail (metrics_new()) */
	struct disks *disks;	/* without detail: the counts' source */
	bool rmw;		/* read-modify-write reads are counted */
	unsigned int labels;	/* IOLENS_STAT_LABEL_* */
	struct mlabel *lab;	/* sorted by key */
	int nlab;
	struct mfail *fails;
	int nfails;
	struct iolens_stat_counters lost;
	bool bpf_known;
	__u64 bpf_ns, bpf_runs;
	__u64 collected_ns;
	__u64 limit_dur[MAX_BOUNDS], limit_qd[MAX_BOUNDS];
};

/* Where `dev` is in m->devs, or would be put; *found whether it is. */
int metrics_dev_pos(const struct metrics *m, __u32 dev, bool *found);

#endif
