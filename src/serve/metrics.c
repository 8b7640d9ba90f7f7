// SPDX-License-Identifier: GPL-2.0
/*
 * The cumulative state of `iolens serve` and its exposition.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "lib/clock.h"
#include "serve/metrics.h"
#include "lib/cgroups.h"
#include "lib/counters.h"
#include "lib/devices.h"
#include "lib/hist.h"
#include "bpf/agg.h"
#include "trace/agg_trace.h"
#include "lib/sanitize.h"
#include "lib/vec.h"
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

/* The histograms exported, in the order of the arrays below. */
enum { MH_TOTAL, MH_QUEUE, MH_DEVICE, MH_QD, MH_NR };
static const int mh_kind[MH_NR] = {
	IOLENS_H_TOTAL, IOLENS_H_QUEUE, IOLENS_H_DEVICE, IOLENS_H_QD,
};
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
	__u64 missed;
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

struct metrics {
	pthread_mutex_t lock;
	struct mdev *devs;	/* sorted by dev */
	int ndev;
	size_t cap;
	bool rmw;		/* read-modify-write reads are counted */
	unsigned int labels;	/* IOLENS_STAT_LABEL_* */
	struct mlabel *lab;	/* sorted by key */
	int nlab;
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

struct metrics *metrics_new(bool rmw, unsigned int labels)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
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
	free(m->devs);
	free(m);
}

/* Where `dev` is in m->devs, or would be put; *found whether it is. */
static int mdev_pos(const struct metrics *m, __u32 dev, bool *found)
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
	int lo = mdev_pos(m, dev, &found);

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
/* The counters of struct mop, each the sum of a kernel's counter. */
static const struct counter_map mop_counters[] = {
	MOP(ios, ios), MOP(bytes, bytes), MOP(merges, merges),
	MOP(misaligned, misaligned), MOP(rmw_reads, rmw_reads),
	MOP(rmw_bytes, rmw_bytes), MOP(other_ios, label_other_ios),
	MOP(other_bytes, label_other_bytes),
};

static void add_dev(struct metrics *m, struct mdev *md, const struct agg_dev *d)
{
	/* Where ours is unknown the kernel's io_ticks stands in, as in
	 * `iolens stat`. */
	md->busy_ns += agg_dev_busy_unknown(d) ? d->io_ticks_ns : d->busy_ns;
	md->io_ticks_ns += d->io_ticks_ns;
	md->missed += d->missed;
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		const struct iolens_stat *s = &d->op[g];
		struct mop *o = &md->op[g];
		__u64 sums[MH_NR] = {
			s->total_ns, s->queue_ns, s->device_ns, s->qd_sum,
		};
		__u64 counts[MH_NR] = { s->timed, s->split, s->split, s->issues };

		counters_add_map(o, s, mop_counters,
				 sizeof(mop_counters) / sizeof(mop_counters[0]));
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

int metrics_collect(struct metrics *m, const struct agg_trace *st)
{
	struct iolens_stat_counters lost;
	int n = agg_trace_nslots(st), err = 0, nl = 0;
	struct stat_label *lv = NULL;

	/* Outside the lock: they read maps. */
	agg_trace_losses(st, &lost);
	if (m->labels) {
		nl = agg_trace_labels(st, &lv);
		if (nl < 0)
			return nl;
	}
	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < n; i++) {
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
	free(lv);
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
	bool oom;	/* a part could not be formatted: no page at all */
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

/* A label value: comm and cgroup are their owners' choice, device names
 * the kernel's; all escaped and made valid UTF-8 by lib/sanitize, as
 * the exposition format and promtool want. */
static void label(FILE *f, const char *s)
{
	san_fputs_label(f, s);
}

static void labels(FILE *f, const struct mdev *d, int g)
{
	fputs("{device=\"", f);
	label(f, d->name);
	if (g >= 0)
		fprintf(f, "\",op=\"%s", agg_group_names[g]);
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

/* A counter by device only: the field at `off` of struct mop, summed over
 * the op groups (each is counted in its own). */
static void device_counter(struct out *o, const struct metrics *m,
			   const char *name, const char *help, size_t off)
{
	family(o, name, "counter", help);
	for (int i = 0; i < m->ndev; i++) {
		__u64 v = 0;

		for (int g = 0; g < IOLENS_SG_NR; g++)
			v += *(const __u64 *)((const char *)&m->devs[i].op[g] + off);
		fputs(name, o->f);
		labels(o->f, &m->devs[i], -1);
		fprintf(o->f, "} %llu\n", (unsigned long long)v);
	}
}

/* A counter of seconds by device: the ns field at `off` of struct mdev. */
static void device_seconds(struct out *o, const struct metrics *m,
			   const char *name, const char *help, size_t off)
{
	family(o, name, "counter", help);
	for (int i = 0; i < m->ndev; i++) {
		fputs(name, o->f);
		labels(o->f, &m->devs[i], -1);
		fputs("} ", o->f);
		seconds(o->f, *(const __u64 *)((const char *)&m->devs[i] + off));
		fputc('\n', o->f);
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

/* One sample of a label family: label sets summed by their values. */
struct lrow {
	int dev;		/* index in m->devs */
	int sg;
	const char *value;
	__u64 v;
};

static int lrow_cmp(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->sg != y->sg)
		return x->sg < y->sg ? -1 : 1;
	return strcmp(x->value, y->value);
}

/*
 * iolens_{cgroup,comm}_{requests,bytes}_total: the kernel's label sets
 * summed by the one label (comm and cgroup may both be kept), and per
 * device and op the sets beyond the cap as "(other)", so that a family
 * always adds up to iolens_requests_total or _bytes_total.  Sets whose
 * cgroup is not yet named are left out until it is.
 */
static void label_family(struct out *o, const struct metrics *m, bool cgroup,
			 bool bytes)
{
	const char *lname = cgroup ? "cgroup" : "comm";
	struct lrow *r = malloc((m->nlab + m->ndev * IOLENS_SG_NR + 1) * sizeof(*r));
	char name[64];
	int n = 0;
	bool found;

	if (!r) {
		o->oom = true;
		return;
	}
	for (int i = 0; i < m->nlab; i++) {
		const struct mlabel *l = &m->lab[i];

		if (l->pending)
			continue;
		r[n].dev = mdev_pos(m, l->dev, &found);
		if (!found)
			continue;
		r[n].sg = l->key.sg;
		r[n].value = cgroup ? l->cgroup : l->comm;
		r[n++].v = bytes ? l->n.bytes : l->n.ios;
	}
	for (int i = 0; i < m->ndev; i++)
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			const struct mop *op = &m->devs[i].op[g];

			if (!(bytes ? op->other_bytes : op->other_ios))
				continue;
			r[n].dev = i;
			r[n].sg = g;
			r[n].value = "(other)";
			r[n++].v = bytes ? op->other_bytes : op->other_ios;
		}
	vec_sort(r, n, sizeof(*r), lrow_cmp);
	snprintf(name, sizeof(name), "iolens_%s_%s_total", lname,
		 bytes ? "bytes" : "requests");
	family(o, name, "counter", cgroup ?
	       (bytes ? "Bytes completed, by the cgroup the block layer charged the request to."
		      : "Requests completed, by the cgroup the block layer charged them to.") :
	       (bytes ? "Bytes completed, by the command name of the task that submitted the request."
		      : "Requests completed, by the command name of the task that submitted them."));
	for (int i = 0; i < n; i++) {
		__u64 v = r[i].v;

		while (i + 1 < n && !lrow_cmp(&r[i], &r[i + 1]))
			v += r[++i].v;
		fputs(name, o->f);
		labels(o->f, &m->devs[r[i].dev], r[i].sg);
		fprintf(o->f, ",%s=\"", lname);
		label(o->f, r[i].value);
		fprintf(o->f, "\"} %llu\n", (unsigned long long)v);
	}
	free(r);
}

/* The counters by device (and op), a row each: by op the field at `off`
 * of struct mop, by device alone that field summed over the ops, or the
 * seconds of the ns field at `off` of struct mdev. */
static const struct counter_family {
	const char *name;
	const char *help;
	void (*write)(struct out *o, const struct metrics *m, const char *name,
		      const char *help, size_t off);
	size_t off;
	bool rmw;		/* only where RMW reads are counted */
} counters[] = {
/* A row names its field f by the struct its writer reads (and as the
 * __u64 it reads), so that a writer cannot be given another's offset. */
#define U64_AT(T, f) (offsetof(T, f) + 0 * sizeof(char[		\
	__builtin_types_compatible_p(__typeof__(((T *)0)->f), __u64) ? 1 : -1]))
#define ROW(n, h, fn, at, ...) \
	{ .name = (n), .help = (h), .write = (fn), .off = (at), __VA_ARGS__ }
#define BY_OP(n, f, h)		ROW(n, h, counter_op, U64_AT(struct mop, f))
#define BY_DEVICE(n, f, h, ...)	ROW(n, h, device_counter, U64_AT(struct mop, f), __VA_ARGS__)
#define SECONDS(n, f, h)	ROW(n, h, device_seconds, U64_AT(struct mdev, f))
	BY_OP("iolens_requests_total", ios,
	      "Block requests completed, as /proc/diskstats counts them."),
	BY_OP("iolens_bytes_total", bytes, "Bytes completed."),
	BY_OP("iolens_merged_total", merges, "Bios merged into requests that were issued."),
	BY_DEVICE("iolens_misaligned_writes_total", misaligned,
		  "Writes whose start or size is not a multiple of the physical block."),
	BY_DEVICE("iolens_rmw_reads_total", rmw_reads,
		  "Data reads started inside a buffered write to a file: the page cache reading a page the write covers only partly (read-modify-write).",
		  .rmw = true),
	BY_DEVICE("iolens_rmw_read_bytes_total", rmw_bytes,
		  "Bytes of those reads, as started.", .rmw = true),
	SECONDS("iolens_busy_seconds_total", busy_ns,
		"Time with a request issued and not completed (the kernel's io_ticks over an interval where a completion was missed, and on bio-based devices)."),
	SECONDS("iolens_io_time_seconds_total", io_ticks_ns,
		"The kernel's io_ticks: time with a request in the block layer, in whole jiffies (iostat's %util, node_exporter's node_disk_io_time_seconds_total)."),
#undef SECONDS
#undef BY_DEVICE
#undef BY_OP
#undef ROW
#undef U64_AT
};

/* The histograms exported, by MH_*. */
static const struct {
	const char *name;
	const char *help;
} histograms[MH_NR] = {
	[MH_TOTAL] = { "iolens_request_duration_seconds",
		       "Time from the request's start (the kernel's accounting) to its end, as iostat's await." },
	[MH_QUEUE] = { "iolens_queue_duration_seconds",
		       "Time from the request's start to its issue to the driver." },
	[MH_DEVICE] = { "iolens_device_duration_seconds",
			"Time from the request's issue to the driver to its end." },
	[MH_QD] = { "iolens_queue_depth",
		    "Requests in flight on the device at each issue, this one included." },
};

static void format(struct out *o, const struct metrics *m)
{
	struct rusage ru;
	FILE *f = o->f;

	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		const struct counter_family *c = &counters[i];

		if (!c->rmw || m->rmw)
			c->write(o, m, c->name, c->help, c->off);
	}
	family(o, "iolens_completions_missed_total", "counter",
	       "Completions the kernel did not run iolens's hook for.");
	for (int i = 0; i < m->ndev; i++) {
		fputs("iolens_completions_missed_total", f);
		labels(f, &m->devs[i], -1);
		fprintf(f, "} %llu\n", (unsigned long long)m->devs[i].missed);
	}
	for (int k = 0; k < MH_NR; k++)
		histogram(o, m, k, histograms[k].name, histograms[k].help);

	if (m->labels & IOLENS_STAT_LABEL_CGROUP) {
		label_family(o, m, true, false);
		label_family(o, m, true, true);
	}
	if (m->labels & IOLENS_STAT_LABEL_COMM) {
		label_family(o, m, false, false);
		label_family(o, m, false, true);
	}
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
	bad = ferror(o.f) || o.oom;
	if (fclose(o.f) || bad) {
		free(buf);
		return NULL;
	}
	return buf;
}
