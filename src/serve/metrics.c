// SPDX-License-Identifier: GPL-2.0
/*
 * The cumulative state of `iolens serve`: what each collection adds.
 *
 * Histograms: the log-linear buckets of bpf/hist_layout.h are folded into a fixed
 * list of `le` bounds.  Every bound is a bucket edge of the log-linear
 * layout, so the fold is exact: a log-linear bucket lies wholly below a
 * bound or wholly at or above it, none is split or guessed.  The duration
 * bounds are the 1-2.5-5 series from 1 us to 10 s, each taken down to the
 * nearest edge (2.5 us is 2496 ns: edges there are 32 ns apart); durations
 * are whole nanoseconds and a bucket le=E counts those below E ns.  The
 * queue-depth bounds are whole requests, counted up to and including le.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "lib/clock.h"
#include "serve/metrics_state.h"
#include "lib/cgroups.h"
#include "lib/counters.h"
#include "lib/devices.h"
#include "lib/hist.h"
#include "bpf/agg.h"
#include "trace/agg_trace.h"
#include "lib/vec.h"
#include "serve/disks.h"
#include "trace/block_trace.h"	/* mono_ns() */

const __u64 metrics_dur_bounds_ns[METRICS_DUR_BOUNDS] = {
	1000, 2496, 4992, 9984, 24832, 49664, 99328, 249856, 499712,
	999424, 2490368, 4980736, 9961472, 24903680, 49807360, 99614720,
	249561088, 499122176, 998244352, 2483027968ULL, 4966055936ULL,
	9932111872ULL,
};

/* Printed le values; the limits (exclusive) are these plus one, edges. */
const __u64 metrics_qd_bounds[METRICS_QD_BOUNDS] = {
	1, 2, 4, 8, 16, 32, 64, 127, 255, 511, 1023,
};

/* The kernel's histogram kind of each MH_*. */
static const int mh_kind[MH_NR] = {
	IOLENS_H_TOTAL, IOLENS_H_QUEUE, IOLENS_H_DEVICE, IOLENS_H_QD,
};

int metrics_fold(__u32 idx, const __u64 *limits, int n)
{
	__u64 upper;

	if (idx >= HIST_OVERFLOW)
		return n;
	upper = hist_lower(idx) + hist_width(idx);
	for (int i = 0; i < n; i++)
		if (upper <= limits[i])
			return i;
	return n;
}

struct metrics *metrics_new(bool detail, bool rmw, unsigned int labels,
			    const __u32 *devs, int ndev)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	if (!detail && !(m->disks = disks_new(devs, ndev))) {
		free(m);
		return NULL;
	}
	m->detail = detail;
	m->rmw = rmw;
	m->labels = labels;
	pthread_mutex_init(&m->lock, NULL);
	for (int i = 0; i < METRICS_DUR_BOUNDS; i++)
		m->limit_dur[i] = metrics_dur_bounds_ns[i];
	for (int i = 0; i < METRICS_QD_BOUNDS; i++)
		m->limit_qd[i] = metrics_qd_bounds[i] + 1;
	return m;
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	for (int i = 0; i < m->nlab; i++)
		free(m->lab[i].cgroup);
	free(m->lab);
	free(m->fails);
	free(m->devs);
	disks_free(m->disks);
	free(m);
}

int metrics_dev_pos(const struct metrics *m, __u32 dev, bool *found)
{
	int lo = 0, hi = m->ndev;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (m->devs[mid].dev < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < m->ndev && m->devs[lo].dev == dev;
	return lo;
}

/* The entry of `dev`, added in order if new; NULL if out of memory. */
static struct mdev *mdev_get(struct metrics *m, __u32 dev)
{
	bool found;
	int lo = metrics_dev_pos(m, dev, &found);

	if (found)
		return &m->devs[lo];
	if (vec_grow(&m->devs, &m->cap, m->ndev + 1, sizeof(*m->devs), 8))
		return NULL;
	memmove(m->devs + lo + 1, m->devs + lo, (m->ndev - lo) * sizeof(*m->devs));
	m->ndev++;
	memset(&m->devs[lo], 0, sizeof(*m->devs));
	m->devs[lo].dev = dev;
	return &m->devs[lo];
}

static void hist_into(struct mhist *h, const __u64 *src, const __u64 *limits,
		      int n)
{
	for (__u32 b = 0; b < HIST_BUCKETS; b++)
		if (src[b])
			h->b[metrics_fold(b, limits, n)] += src[b];
}

#define MOP(f, from) { offsetof(struct mop, f), offsetof(struct iolens_stat, from) }
/* The counters of struct mop, each the sum of a kernel's counter: those
 * counted per request only with serve --detail (else diskstats has the
 * first three), and those counted always (at rare events, or for
 * labels). */
static const struct counter_map mop_counted[] = {
	MOP(ios, ios), MOP(bytes, bytes), MOP(merges, merges),
	MOP(misaligned, misaligned), MOP(rmw_reads, rmw_reads),
	MOP(rmw_bytes, rmw_bytes),
};
static const struct counter_map mop_events[] = {
	MOP(requeues, requeues), MOP(timeouts, timeouts),
	MOP(other_ios, label_other_ios), MOP(other_bytes, label_other_bytes),
};
#define NMAP(a) (sizeof(a) / sizeof((a)[0]))

static void add_dev(struct metrics *m, struct mdev *md, const struct agg_dev *d)
{
	/* Where ours is unknown the kernel's io_ticks stands in, as in
	 * `iolens stat`. */
	md->busy_ns += agg_dev_busy_unknown(d) ? d->io_ticks_ns : d->busy_ns;
	if (m->detail) {
		md->io_ticks_ns += d->io_ticks_ns;
		md->weighted_ns += d->weighted_ns;
		md->inflight_now = d->inflight_now;
	}
	md->missed += d->missed;
	md->oldest_ns = d->oldest_ns;
	md->bio_based = d->bio_based;
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		const struct iolens_stat *s = &d->op[g];
		struct mop *o = &md->op[g];
		__u64 sums[MH_NR] = {
			s->total_ns, s->queue_ns, s->device_ns, s->qd_sum,
		};
		__u64 counts[MH_NR] = { s->timed, s->split, s->split, s->issues };

		if (m->detail)
			counters_add_map(o, s, mop_counted, NMAP(mop_counted));
		counters_add_map(o, s, mop_events, NMAP(mop_events));
		for (int k = 0; k < MH_NR; k++) {
			const __u64 *src = d->hist[g][mh_kind[k]];

			/* Most devices are idle most intervals: skip their
			 * empty histograms without looking at a bucket. */
			if (!src || !d->hist_n[g][mh_kind[k]]) {
				if (src && counts[k])
					o->h[k].sum_unknown = true;
				continue;
			}
			if (k == MH_QD)
				hist_into(&o->h[k], src, m->limit_qd, METRICS_QD_BOUNDS);
			else
				hist_into(&o->h[k], src, m->limit_dur, METRICS_DUR_BOUNDS);
			o->h[k].sum += sums[k];
			if (d->hist_n[g][mh_kind[k]] != counts[k])
				o->h[k].sum_unknown = true;
		}
	}
}

static int label_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct iolens_label_key));
}

/* A comm as the process set it (a kernel array, maybe without a NUL):
 * label() escapes it where it is written. */
static void label_value(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = src[i];
	dst[i] = 0;
}

/* Gives l its cgroup label once the hierarchy walk finds it. */
static int mlabel_resolve(struct mlabel *l)
{
	const char *path;

	if (!(l->pending && !l->cgroup))
		return 0;
	path = cgroup_path(l->key.cg_hier, l->key.cg_id);
	if (!l->key.cg_id)
		path = "(unknown)";
	else if (!path && ++l->pending <= PENDING_MAX)
		return 0;
	l->cgroup = strdup(path ? path : "(gone)");
	if (!l->cgroup)
		return -ENOMEM;
	l->pending = 0;
	return 0;
}

/* The label sets so far into m->lab (sorted again once new ones came). */
static int labels_merge(struct metrics *m, const struct stat_label *v, int n)
{
	int sorted = m->nlab;

	for (int i = 0; i < n; i++) {
		/* m->lab is NULL before the first set. */
		struct mlabel *l = sorted ? bsearch(&v[i].key, m->lab, sorted,
						    sizeof(*l), label_cmp) : NULL;

		if (!l) {
			l = vec_add(&m->lab, &m->nlab, sizeof(*l));
			if (!l)
				return -ENOMEM;
			l->key = v[i].key;
			l->dev = v[i].dev;
			l->pending = !!(m->labels & IOLENS_STAT_LABEL_CGROUP);
			label_value(l->comm, v[i].key.comm[0] ? v[i].key.comm : "(unknown)",
				    sizeof(l->comm));
		}
		l->n = v[i].n;
	}
	if (m->nlab > sorted)
		vec_sort(m->lab, m->nlab, sizeof(*m->lab), label_cmp);
	for (int i = 0; i < m->nlab; i++)
		if (mlabel_resolve(&m->lab[i]))
			return -ENOMEM;
	return 0;
}

/* The interval's failures by status, added to m->fails. */
static int fails_add(struct metrics *m, const struct agg_trace *st)
{
	for (int i = 0; i < agg_trace_nfailures(st); i++) {
		const struct agg_failure *f = agg_trace_failure(st, i);
		struct mfail key = { .dev = f->dev, .sg = f->key.sg,
				     .status = f->key.status }, *e;

		if (!f->n.ios)
			continue;
		e = vec_find(m->fails, m->nfails, sizeof(*e), 0, &key,
			     offsetof(struct mfail, ios));
		if (!e) {
			e = vec_add(&m->fails, &m->nfails, sizeof(*e));
			if (!e)
				return -ENOMEM;
			*e = key;
		}
		e->ios += f->n.ios;
	}
	return 0;
}

/* The disks' diskstats since the last collection into their entries. */
static int disks_add(struct metrics *m, const struct disk_delta *v, int n)
{
	for (int i = 0; i < n; i++) {
		struct mdev *md = mdev_get(m, v[i].dev);

		if (!md)
			return -ENOMEM;
		/* A device gone keeps the name it had. */
		if (!md->name[0] || strchr(md->name, ':'))
			memcpy(md->name, v[i].name, sizeof(md->name));
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			md->op[g].ios += v[i].ios[g];
			md->op[g].bytes += v[i].bytes[g];
			md->op[g].merges += v[i].merges[g];
		}
		md->io_ticks_ns += v[i].io_ticks_ns;
		md->weighted_ns += v[i].weighted_ns;
		md->inflight_now = v[i].inflight;
	}
	return 0;
}

int metrics_collect(struct metrics *m, const struct agg_trace *st)
{
	struct iolens_stat_counters lost;
	int n = agg_trace_nslots(st), err = 0, nl = 0, nd = 0;
	struct stat_label *lv = NULL;
	struct disk_delta *dv = NULL;

	/* Outside the lock: they read maps and files. */
	agg_trace_losses(st, &lost);
	if (m->labels) {
		nl = agg_trace_labels(st, &lv);
		if (nl < 0)
			return nl;
	}
	if (m->disks) {
		nd = disks_read(m->disks, &dv);
		if (nd < 0) {
			free(lv);
			return nd;
		}
	}
	pthread_mutex_lock(&m->lock);
	err = disks_add(m, dv, nd);
	for (int i = 0; i < n && !err; i++) {
		const struct agg_dev *d = agg_trace_dev(st, i);
		struct mdev *md;

		if (!d)
			continue;
		md = mdev_get(m, d->dev);
		if (!md) {
			err = -ENOMEM;
			break;
		}
		/* A device gone keeps the name it had. */
		if (!md->name[0] || strchr(md->name, ':'))
			snprintf(md->name, sizeof(md->name), "%s", dev_name(d->dev));
		add_dev(m, md, d);
	}
	if (!err)
		err = labels_merge(m, lv, nl);
	if (!err)
		err = fails_add(m, st);
	free(lv);
	free(dv);
	m->lost = lost;
	m->collected_ns = mono_ns();
	pthread_mutex_unlock(&m->lock);
	return err;
}

void metrics_set_bpf(struct metrics *m, bool known, __u64 run_ns, __u64 runs)
{
	pthread_mutex_lock(&m->lock);
	m->bpf_known = known;
	m->bpf_ns = run_ns;
	m->bpf_runs = runs;
	pthread_mutex_unlock(&m->lock);
}

__u64 metrics_collected_ns(struct metrics *m)
{
	__u64 v;

	pthread_mutex_lock(&m->lock);
	v = m->collected_ns;
	pthread_mutex_unlock(&m->lock);
	return v;
}
