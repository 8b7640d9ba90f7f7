// SPDX-License-Identifier: GPL-2.0
/*
 * The cumulative state of `iolens serve` and its exposition.
 *
 * Histograms: the log-linear buckets of iolens.h are folded into a fixed
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "metrics.h"
#include "devices.h"
#include "hist.h"
#include "iolens.h"
#include "stat_trace.h"
#include "block_trace.h"	/* mono_ns() */

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

/* The histograms exported, in the order of the arrays below. */
enum { MH_TOTAL, MH_QUEUE, MH_DEVICE, MH_QD, MH_NR };
static const int mh_kind[MH_NR] = {
	IOLENS_H_TOTAL, IOLENS_H_QUEUE, IOLENS_H_DEVICE, IOLENS_H_QD,
};
#define MAX_BOUNDS METRICS_DUR_BOUNDS

static const char *const op_name[IOLENS_SG_NR] = {
	[IOLENS_SG_READ] = "read", [IOLENS_SG_WRITE] = "write",
	[IOLENS_SG_DISCARD] = "discard", [IOLENS_SG_FLUSH] = "flush",
};

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
	struct mhist h[MH_NR];
};

struct mdev {
	__u32 dev;
	char name[DEV_NAME_LEN];
	struct mop op[IOLENS_SG_NR];
	__u64 busy_ns;
	__u64 missed;
};

struct metrics {
	pthread_mutex_t lock;
	struct mdev *devs;	/* sorted by dev */
	int ndev, cap;
	struct iolens_stat_counters lost;
	bool bpf_known;
	__u64 bpf_ns, bpf_runs;
	__u64 collected_ns;
	__u64 limit_dur[MAX_BOUNDS], limit_qd[MAX_BOUNDS];
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

struct metrics *metrics_new(void)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
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
	free(m->devs);
	free(m);
}

/* The entry of `dev`, added in order if new; NULL if out of memory. */
static struct mdev *mdev_get(struct metrics *m, __u32 dev)
{
	int lo = 0, hi = m->ndev;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (m->devs[mid].dev == dev)
			return &m->devs[mid];
		if (m->devs[mid].dev < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (m->ndev == m->cap) {
		int cap = m->cap ? 2 * m->cap : 8;
		struct mdev *v = realloc(m->devs, cap * sizeof(*v));

		if (!v)
			return NULL;
		m->devs = v;
		m->cap = cap;
	}
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

static void add_dev(struct metrics *m, struct mdev *md, const struct stat_dev *d)
{
	/* Where ours is unknown the kernel's io_ticks stands in, as in
	 * `iolens stat`. */
	md->busy_ns += stat_dev_busy_unknown(d) ? d->io_ticks_ns : d->busy_ns;
	md->missed += d->missed;
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		const struct iolens_stat *s = &d->op[g];
		struct mop *o = &md->op[g];
		__u64 sums[MH_NR] = {
			s->total_ns, s->queue_ns, s->device_ns, s->qd_sum,
		};
		__u64 counts[MH_NR] = { s->timed, s->split, s->split, s->issues };

		o->ios += s->ios;
		o->bytes += s->bytes;
		o->merges += s->merges;
		o->misaligned += s->misaligned;
		for (int k = 0; k < MH_NR; k++) {
			const __u64 *src = d->hist[g][mh_kind[k]];

			if (!src)
				continue;
			if (k == MH_QD)
				hist_into(&o->h[k], src, m->limit_qd, METRICS_QD_BOUNDS);
			else
				hist_into(&o->h[k], src, m->limit_dur, METRICS_DUR_BOUNDS);
			o->h[k].sum += sums[k];
			if (hist_count(src) != counts[k])
				o->h[k].sum_unknown = true;
		}
	}
}

int metrics_collect(struct metrics *m, const struct stat_trace *st)
{
	struct iolens_stat_counters lost;
	int n = stat_trace_nslots(st), err = 0;

	/* Outside the lock: it reads a map. */
	stat_trace_losses(st, &lost);
	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < n; i++) {
		const struct stat_dev *d = stat_trace_dev(st, i);
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

/* ---- exposition ---- */

struct out {
	FILE *f;
	bool om;
};

/* # HELP and # TYPE of a family.  OpenMetrics names a counter's family
 * without its _total suffix, the text format names the sample. */
static void family(struct out *o, const char *name, const char *type,
		   const char *help)
{
	size_t len = strlen(name);

	if (o->om && !strcmp(type, "counter") && len > 6 &&
	    !strcmp(name + len - 6, "_total"))
		len -= 6;
	fprintf(o->f, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, name, help,
		(int)len, name, type);
}

static void seconds(FILE *f, __u64 ns)
{
	fprintf(f, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
		(unsigned long long)(ns % 1000000000ULL));
}

/* Device names come from the kernel ("loop0", "nvme0n1", "MAJ:MIN"); they
 * are escaped all the same, as a label value must be. */
static void label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void labels(FILE *f, const struct mdev *d, int g)
{
	fputs("{device=\"", f);
	label(f, d->name);
	if (g >= 0)
		fprintf(f, "\",op=\"%s", op_name[g]);
	fputc('"', f);
}

static void counter_op(struct out *o, const struct metrics *m, const char *name,
		       const char *help, size_t off)
{
	family(o, name, "counter", help);
	for (int i = 0; i < m->ndev; i++)
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			fputs(name, o->f);
			labels(o->f, &m->devs[i], g);
			fprintf(o->f, "} %llu\n", (unsigned long long)
				*(const __u64 *)((const char *)&m->devs[i].op[g] + off));
		}
}

static void histogram(struct out *o, const struct metrics *m, int k,
		      const char *name, const char *help)
{
	bool dur = k != MH_QD;
	int n = dur ? METRICS_DUR_BOUNDS : METRICS_QD_BOUNDS;

	family(o, name, "histogram", help);
	for (int i = 0; i < m->ndev; i++) {
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			const struct mhist *h = &m->devs[i].op[g].h[k];
			__u64 cum = 0;

			for (int b = 0; b <= n; b++) {
				cum += h->b[b];
				fprintf(o->f, "%s_bucket", name);
				labels(o->f, &m->devs[i], g);
				if (b == n)
					fputs(",le=\"+Inf\"", o->f);
				else if (dur)
					fprintf(o->f, ",le=\"%.12g\"",
						metrics_dur_bounds_ns[b] / 1e9);
				else
					fprintf(o->f, ",le=\"%llu%s\"", (unsigned long long)
						metrics_qd_bounds[b], o->om ? ".0" : "");
				fprintf(o->f, "} %llu\n", (unsigned long long)cum);
			}
			fprintf(o->f, "%s_count", name);
			labels(o->f, &m->devs[i], g);
			fprintf(o->f, "} %llu\n", (unsigned long long)cum);
			/* Never a made-up sum: without it, no _sum line. */
			if (h->sum_unknown)
				continue;
			fprintf(o->f, "%s_sum", name);
			labels(o->f, &m->devs[i], g);
			fputs("} ", o->f);
			if (dur)
				seconds(o->f, h->sum);
			else
				fprintf(o->f, "%llu", (unsigned long long)h->sum);
			fputc('\n', o->f);
		}
	}
}

static void format(struct out *o, const struct metrics *m)
{
	struct rusage ru;
	FILE *f = o->f;

	counter_op(o, m, "iolens_requests_total",
		   "Block requests completed, as /proc/diskstats counts them.",
		   offsetof(struct mop, ios));
	counter_op(o, m, "iolens_bytes_total", "Bytes completed.",
		   offsetof(struct mop, bytes));
	counter_op(o, m, "iolens_merged_total",
		   "Bios merged into requests that were issued.",
		   offsetof(struct mop, merges));

	family(o, "iolens_misaligned_writes_total", "counter",
	       "Writes whose start or size is not a multiple of the physical block.");
	for (int i = 0; i < m->ndev; i++) {
		__u64 v = 0;

		for (int g = 0; g < IOLENS_SG_NR; g++)
			v += m->devs[i].op[g].misaligned;
		fputs("iolens_misaligned_writes_total", f);
		labels(f, &m->devs[i], -1);
		fprintf(f, "} %llu\n", (unsigned long long)v);
	}
	family(o, "iolens_busy_seconds_total", "counter",
	       "Time with a request issued and not completed (the kernel's io_ticks over an interval where a completion was missed).");
	for (int i = 0; i < m->ndev; i++) {
		fputs("iolens_busy_seconds_total", f);
		labels(f, &m->devs[i], -1);
		fputs("} ", f);
		seconds(f, m->devs[i].busy_ns);
		fputc('\n', f);
	}
	family(o, "iolens_completions_missed_total", "counter",
	       "Completions the kernel did not run iolens's hook for.");
	for (int i = 0; i < m->ndev; i++) {
		fputs("iolens_completions_missed_total", f);
		labels(f, &m->devs[i], -1);
		fprintf(f, "} %llu\n", (unsigned long long)m->devs[i].missed);
	}

	histogram(o, m, MH_TOTAL, "iolens_request_duration_seconds",
		  "Time from the request's start (the kernel's accounting) to its end, as iostat's await.");
	histogram(o, m, MH_QUEUE, "iolens_queue_duration_seconds",
		  "Time from the request's start to its issue to the driver.");
	histogram(o, m, MH_DEVICE, "iolens_device_duration_seconds",
		  "Time from the request's issue to the driver to its end.");
	histogram(o, m, MH_QD, "iolens_queue_depth",
		  "Requests in flight on the device at each issue, this one included.");

	family(o, "iolens_events_lost_total", "counter",
	       "Events the in-kernel aggregation could not keep, by reason.");
	fprintf(f, "iolens_events_lost_total{reason=\"no_slot\"} %llu\n",
		(unsigned long long)m->lost.no_slot);
	fprintf(f, "iolens_events_lost_total{reason=\"no_stamp\"} %llu\n",
		(unsigned long long)m->lost.no_stamp);

	family(o, "iolens_process_cpu_seconds_total", "counter",
	       "User and system CPU time of the iolens process.");
	if (!getrusage(RUSAGE_SELF, &ru)) {
		__u64 us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ULL +
			   ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;

		fputs("iolens_process_cpu_seconds_total ", f);
		seconds(f, us * 1000);
		fputc('\n', f);
	}
	/* Unknown when the kernel does not count runs: no family at all. */
	if (m->bpf_known) {
		family(o, "iolens_bpf_run_seconds_total", "counter",
		       "Time iolens's BPF programs ran in the kernel.");
		fputs("iolens_bpf_run_seconds_total ", f);
		seconds(f, m->bpf_ns);
		fputc('\n', f);
		family(o, "iolens_bpf_runs_total", "counter",
		       "Runs of iolens's BPF programs.");
		fprintf(f, "iolens_bpf_runs_total %llu\n",
			(unsigned long long)m->bpf_runs);
	}
	if (o->om)
		fputs("# EOF\n", f);
}

char *metrics_format(struct metrics *m, bool openmetrics, size_t *len)
{
	struct out o = { .om = openmetrics };
	char *buf = NULL;
	bool bad;

	o.f = open_memstream(&buf, len);
	if (!o.f)
		return NULL;
	pthread_mutex_lock(&m->lock);
	format(&o, m);
	pthread_mutex_unlock(&m->lock);
	bad = ferror(o.f);
	if (fclose(o.f) || bad) {
		free(buf);
		return NULL;
	}
	return buf;
}
