// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics of iolens load: a job thread adds each I/O's latencies,
 * the sampler its bw and IOPS samples, and a group's or a run's threads
 * are summed as fio's group_reporting sums them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "lib/hist.h"
#include "load/load.h"
#include "load/stats.h"

/* The directions of the statistics (dir[] of struct load_stats): their
 * names in fio's reports. */
const char *load_dir_name(int dir)
{
	static const char *const names[LOAD_DIRS] = { "read", "write", "trim" };

	return dir >= 0 && dir < LOAD_DIRS ? names[dir] : "?";
}

void load_lat_add(struct load_lat *l, __u64 ns)
{
	if (!l->n || ns < l->min)
		l->min = ns;
	if (ns > l->max)
		l->max = ns;
	l->n++;
	l->sum += ns;
	l->sumsq += (unsigned __int128)ns * ns;
}

const double load_pcts[LOAD_NPCTS] = {
	1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99,
};

double load_lat_mean(const struct load_lat *l)
{
	return l->n ? (double)l->sum / l->n : 0;
}

/* Sample standard deviation, as fio's. */
double load_lat_stddev(const struct load_lat *l)
{
	long double s, var;

	if (l->n < 2)
		return 0;
	s = (long double)l->sum;
	var = ((long double)l->sumsq - s * s / l->n) / (l->n - 1);
	return var > 0 ? sqrtl(var) : 0;
}

const char *const load_lat_names[12] = {
	"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
};

void load_lat_mark(struct load_stats *st, __u64 ns)
{
	static const unsigned int ends[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000 };
	int unit = ns < 1000 ? LOAD_LAT_NS : ns < 1000000 ? LOAD_LAT_US : LOAD_LAT_MS;
	__u64 v = unit == LOAD_LAT_NS ? ns : unit == LOAD_LAT_US ? ns / 1000 : ns / 1000000;
	int i = 0;

	while (i < 11 && v >= ends[i])
		i++;
	st->lat_dist[unit + i]++;
}

void load_lat_pcts(const struct load_stats *st, int unit, int n, double *pct)
{
	__u64 total = 0;

	for (int d = 0; d < LOAD_DIRS; d++)
		total += st->dir[d].ios;
	for (int i = 0; i < n; i++) {
		__u64 c = st->lat_dist[unit + i];

		pct[i] = total ? 100.0 * c / total : 0;
		if (c && pct[i] < 0.01)
			pct[i] = 0.01;
	}
}

double load_rate_dev(const struct load_rate *r)
{
	return r->n > 1 ? sqrt(r->S / (r->n - 1.0)) : 0;
}

void load_rate_add(struct load_rate *r, __u64 v)
{
	double delta = (double)v - r->mean;

	if (!r->n || v < r->min)
		r->min = v;
	if (v > r->max)
		r->max = v;
	r->mean += delta / (r->n + 1.0);
	r->S += delta * ((double)v - r->mean);
	r->n++;
}

void load_rate_merge(struct load_rate *dst, const struct load_rate *src)
{
	if (!src->n)
		return;
	if (!dst->n) {
		*dst = *src;
		return;
	}
	/* Not a pooled statistic: fio adds each part, so that a group's
	 * min and mean are those of the jobs' sum of bandwidths. */
	dst->n += src->n;
	dst->min += src->min;
	dst->max += src->max;
	dst->mean += src->mean;
	dst->S += src->S;
}

static void lat_merge(struct load_lat *d, const struct load_lat *s)
{
	if (!s->n)
		return;
	if (!d->n || s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	d->n += s->n;
	d->sum += s->sum;
	d->sumsq += s->sumsq;
}

/* fio's group_reporting of clat per priority: the same direction and
 * priority add up, a new one is appended.  Out of memory, the figures
 * that could not be kept are dropped with the error set. */
static void prios_merge(struct load_stats *dst, const struct load_stats *src)
{
	for (unsigned int i = 0; i < src->nprios; i++) {
		const struct load_prio_stats *s = &src->prios[i];
		struct load_prio_stats *d = NULL, *grown;

		for (unsigned int k = 0; k < dst->nprios && !d; k++) {
			if (dst->prios[k].dir == s->dir && dst->prios[k].ioprio == s->ioprio)
				d = &dst->prios[k];
		}
		if (!d) {
			grown = realloc(dst->prios, (dst->nprios + 1) * sizeof(*grown));
			if (!grown) {
				dst->error = dst->error ? dst->error : ENOMEM;
				return;
			}
			dst->prios = grown;
			d = &grown[dst->nprios++];
			*d = (struct load_prio_stats){ .dir = s->dir, .ioprio = s->ioprio };
		}
		lat_merge(&d->clat, &s->clat);
		hist_add(d->hist, s->hist);
	}
}

void load_stats_free(struct load_stats *st)
{
	free(st->prios);
	st->prios = NULL;
	st->nprios = 0;
}

void load_stats_merge(struct load_stats *dst, const struct load_stats *src)
{
	prios_merge(dst, src);
	for (int i = 0; i < LOAD_DIRS; i++) {
		struct load_dir_stats *d = &dst->dir[i];
		const struct load_dir_stats *s = &src->dir[i];

		d->ios += s->ios;
		d->bytes += s->bytes;
		d->short_ios += s->short_ios;
		lat_merge(&d->slat, &s->slat);
		lat_merge(&d->clat, &s->clat);
		lat_merge(&d->lat, &s->lat);
		hist_add(d->clat_hist, s->clat_hist);
		load_rate_merge(&d->bw_rate, &s->bw_rate);
		load_rate_merge(&d->iops_rate, &s->iops_rate);
	}
	for (int i = 0; i < LOAD_DEPTH_BUCKETS; i++)
		dst->depth[i] += src->depth[i];
	for (int i = 0; i < LOAD_LAT_BUCKETS; i++)
		dst->lat_dist[i] += src->lat_dist[i];
	if (src->runtime_ns > dst->runtime_ns)
		dst->runtime_ns = src->runtime_ns;
	dst->thread_ns += src->thread_ns;
	dst->usr_ns += src->usr_ns;
	dst->sys_ns += src->sys_ns;
	dst->ctx += src->ctx;
	dst->majf += src->majf;
	dst->minf += src->minf;
	if (!dst->error)
		dst->error = src->error;
	/* fio's group shows its last thread's. */
	dst->latency_depth = src->latency_depth;
}
