// SPDX-License-Identifier: GPL-2.0
/*
 * iolens stat's rows: the report since boot from /proc/diskstats, then one
 * per interval from the in-kernel aggregation (print.c prints them).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stat/by_cgroup.h"
#include "stat/print.h"
#include "stat/stat.h"
#include "lib/priv.h"
#include "lib/clock.h"
#include "lib/filescan.h"
#include "lib/devices.h"
#include "lib/diskstats.h"
#include "lib/log.h"
#include "trace/agg_loop.h"
#include "trace/agg_trace.h"
#include "trace/reqflags.h"
#include "lib/vec.h"

#define CMD "stat"

static bool listed(const struct stat_opts *o, __u32 dev)
{
	for (int i = 0; i < o->a.ndev; i++)
		if (o->a.devs[i] == dev)
			return true;
	return false;
}

/* Whether a device gets a line: a disk unless -d names others; a
 * partition with -p beside its disk's line, or when -d names it. */
static bool shown(const struct stat_opts *o, const struct dev_info *info)
{
	bool disk = !o->a.ndev || listed(o, info->disk);

	if (info->disk == info->dev)
		return disk;
	return (o->partitions && disk) || listed(o, info->dev);
}

static int by_dev(const void *a, const void *b)
{
	const struct stat_row *x = a, *y = b;

	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/* -S: each stacked device followed by the devices under it, indented. */
static int stack_sort(struct stat_row *rows, int n)
{
	return dev_stack_sort(rows, n, sizeof(*rows), offsetof(struct stat_row, dev),
			      offsetof(struct stat_row, depth));
}

static bool row_active(const struct stat_row *r)
{
	for (int g = 0; g < IOLENS_SG_NR; g++)
		if (r->ios[g] || r->bytes[g])
			return true;
	return false;
}

static double uptime_s(void)
{
	double up;

	return file_scan("/proc/uptime", "%lf", &up) == 1 ? up : 0;
}

/*
 * What a line says of its device besides figures, read from sysfs once
 * (a handful of path walks each: with 64 disks, done every interval, they
 * were most of stat's CPU time).  info.dev 0: not there.
 */
struct desc {
	struct dev_info info;
	char name[64];
	__u32 members[IOLENS_MAX_DEV_FILTER];
	int nmembers;
};

static int desc_fill(struct desc *ds, __u32 dev, const struct stat_opts *o)
{
	if (dev_lookup(dev, &ds->info)) {
		ds->info.dev = 0;
		return -ENODEV;
	}
	snprintf(ds->name, sizeof(ds->name), "%s", ds->info.name);
	if (o->names)
		dev_stable_name(dev, ds->name, sizeof(ds->name));
	ds->nmembers = dev_members(dev, ds->members, IOLENS_MAX_DEV_FILTER);
	return 0;
}

static void row_desc(struct stat_row *r, const struct desc *ds)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->name, ds->name, sizeof(r->name));
	r->dev = ds->info.dev;
	r->bio_based = ds->info.bio_based;
	memcpy(r->members, ds->members, sizeof(r->members));
	r->nmembers = ds->nmembers;
}

/* The report since boot: iostat's columns from /proc/diskstats. */
static int report_boot(const struct stat_opts *o)
{
	struct diskstat *ds;
	struct stat_row *rows;
	int n = diskstats_read(&ds), nr = 0;

	if (n < 0) {
		pr_err("cannot read /proc/diskstats: %s", strerror(-n));
		return 1;
	}
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		free(ds);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct stat_row *r = &rows[nr];
		struct desc desc;

		if (desc_fill(&desc, ds[i].dev, o) || !shown(o, &desc.info))
			continue;
		row_desc(r, &desc);
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			r->ios[g] = ds[i].ios[g];
			r->bytes[g] = ds[i].sectors[g] * 512;
			r->merges[g] = ds[i].merges[g];
			r->timed[g] = ds[i].ios[g];
			r->time_ns[g] = ds[i].time_ms[g] * 1e6;
		}
		r->util_ns = ds[i].io_ticks_ms * 1e6;
		r->busy_ns = -1;
		/* iostat leaves out devices that never did I/O. */
		if (row_active(r) || o->a.ndev)
			nr++;
	}
	if (o->stack && stack_sort(rows, nr))
		nr = 0;
	stat_report(rows, nr, uptime_s(), true, NULL, NULL, o->a.json, o->human, 0);
	free(rows);
	free(ds);
	return 0;
}

/* A line of `d` (o: with --pid... only some processes' requests are
 * counted). */
static void row_from(struct stat_row *r, const struct desc *ds,
		     const struct agg_dev *d, bool partition,
		     const struct stat_opts *o)
{
	bool filtered = stat_proc_filter_set(&o->a.proc);

	row_desc(r, ds);
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		r->ios[g] = d->op[g].ios;
		r->bytes[g] = d->op[g].bytes;
		r->merges[g] = d->op[g].merges;
		r->timed[g] = d->op[g].timed;
		r->time_ns[g] = d->op[g].total_ns;
	}
	/* %util is iostat's: the kernel's io_ticks, every process's. */
	r->util_ns = filtered ? -1 : (double)d->io_ticks_ns;
	/* Busy time is kept per disk: partitions share its queue.  It is
	 * unknown where a completion was never delivered to us (our busy
	 * period never ended) and on bio-based disks (no requests). */
	r->busy_ns = partition || agg_dev_busy_unknown(d) ? -1 : (double)d->busy_ns;
	r->partition = partition;
	r->d = d;
}

struct table {
	const struct stat_opts *o;	/* what rows there are */
	struct stat_row *rows;
	struct agg_dev **sums;	/* per row, owned: a disk and its partitions */
	int n, cap;
	struct agg_dev *zero;	/* the figures of an idle device */
	struct desc *slot;	/* per slot: its device, looked up once */
	bool *here;		/* per slot: has a device this interval */
	/* Idle devices: /proc/diskstats' as last read, and each one's desc
	 * (looked up when first needed, .dev 0 and `looked` once it was
	 * not there), kept while the list stays the same. */
	__u32 *idle_dev;
	struct desc *idle;
	bool *looked;
	int nidle;
	__u64 looked_ns;	/* when the descs were last all dropped */
	struct stat_cg cg;	/* --by cgroup */
};

/* Names and members change in place now and then (dmsetup rename, an md
 * array grown): every desc is looked up again this often. */
#define DESC_TTL_NS (60 * 1000000000ULL)

static struct stat_row *table_add(struct table *t)
{
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		struct stat_row *r = realloc(t->rows, cap * sizeof(*r));
		struct agg_dev **s;

		if (!r)
			return NULL;
		t->rows = r;
		s = realloc(t->sums, cap * sizeof(*s));
		if (!s)
			return NULL;
		memset(s + t->cap, 0, (cap - t->cap) * sizeof(*s));
		t->sums = s;
		t->cap = cap;
	}
	return &t->rows[t->n++];
}

/* The last row's own sum, zeroed: only a disk whose partitions have slots
 * needs one (a row otherwise shows its slot's figures as they are). */
static struct agg_dev *row_sum(struct table *t, const struct agg_trace *st)
{
	struct agg_dev **s = &t->sums[t->n - 1];

	if (!*s && !(*s = agg_dev_new(st)))
		return NULL;
	agg_dev_zero(*s);
	return *s;
}

/* The cache of idle devices' descs for the devices of `ds`: emptied when
 * the list changed (a device came or went). */
static int idle_cache(struct table *t, const struct diskstat *ds, int n)
{
	bool same = n == t->nidle;

	for (int i = 0; i < n && same; i++)
		same = t->idle_dev[i] == ds[i].dev;
	if (same)
		return 0;
	free(t->idle_dev);
	free(t->idle);
	free(t->looked);
	t->nidle = 0;
	t->idle_dev = calloc(n ? n : 1, sizeof(*t->idle_dev));
	t->idle = calloc(n ? n : 1, sizeof(*t->idle));
	t->looked = calloc(n ? n : 1, sizeof(*t->looked));
	if (!t->idle_dev || !t->idle || !t->looked)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		t->idle_dev[i] = ds[i].dev;
	t->nidle = n;
	return 0;
}

/* Lines of devices that did nothing since we started, as iostat prints
 * them: those -d names, else every one that did I/O since boot. */
static int idle_rows(const struct stat_opts *o, const struct agg_trace *st,
		     struct table *t)
{
	struct diskstat *ds = NULL;
	int n = o->a.ndev, err;

	if (!n && (n = diskstats_read(&ds)) < 0)
		return n;
	err = ds ? idle_cache(t, ds, n) : 0;
	for (int i = 0; i < n && !err; i++) {
		__u32 dev = ds ? ds[i].dev : o->a.devs[i];
		struct desc one, *desc = ds ? &t->idle[i] : &one;
		struct stat_row *r;
		bool seen = false;

		if (ds && !(ds[i].ios[0] | ds[i].ios[1] | ds[i].ios[2] | ds[i].ios[3]))
			continue;
		for (int k = 0; k < t->n && !seen; k++)
			seen = t->rows[k].dev == dev;
		if (seen)
			continue;
		if (!ds || !t->looked[i]) {
			desc_fill(desc, dev, o);
			if (ds)
				t->looked[i] = true;
		}
		if (!desc->info.dev || !shown(o, &desc->info))
			continue;
		if (!t->zero)
			t->zero = agg_dev_new(st);
		r = t->zero ? table_add(t) : NULL;
		if (!r)
			err = -ENOMEM;
		else
			row_from(r, desc, t->zero, desc->info.disk != desc->info.dev, o);
	}
	free(ds);
	return err;
}

/*
 * The rows of one interval: every disk (and with -p partition) that did I/O
 * since we started and is still there, plus idle ones (idle_rows()).
 * A device that went away is left out; one that appeared gets its slot at
 * its first request.
 */
static int build_rows(void *arg, const struct agg_trace *st)
{
	struct table *t = arg;
	const struct stat_opts *o = t->o;
	int nslots = agg_trace_nslots(st), err;

	t->n = 0;
	if (!t->slot && (!(t->slot = calloc(nslots, sizeof(*t->slot))) ||
			 !(t->here = calloc(nslots, sizeof(*t->here)))))
		return -ENOMEM;
	if (mono_ns() - t->looked_ns > DESC_TTL_NS) {
		t->looked_ns = mono_ns();
		memset(t->slot, 0, nslots * sizeof(*t->slot));
		t->nidle = -1;
	}
	/* A slot's device is looked up when it fills, and again after it
	 * was gone: the read of its stat (d->gone) says it is still there.
	 * A loop device detached and attached again may be another disk. */
	for (int i = 0; i < nslots; i++) {
		const struct agg_dev *d = agg_trace_dev(st, i);

		t->here[i] = d && !d->gone;
		if (!t->here[i])
			t->slot[i].info.dev = 0;
		else if (t->slot[i].info.dev != d->dev)
			t->here[i] = !desc_fill(&t->slot[i], d->dev, o);
	}
	for (int i = 0; i < nslots; i++) {
		const struct dev_info *disk = &t->slot[i].info;
		struct agg_dev *sum = NULL;
		struct stat_row *r;
		bool parts = false;

		if (!t->here[i] || disk->disk != disk->dev)
			continue;
		for (int k = 0; k < nslots && !parts; k++)
			parts = k != i && t->here[k] && t->slot[k].info.disk == disk->dev;
		if (shown(o, disk)) {
			r = table_add(t);
			if (!r)
				return -ENOMEM;
			/* A disk's line holds its partitions' requests too;
			 * its io_ticks already count theirs. */
			if (parts) {
				sum = row_sum(t, st);
				if (!sum)
					return -ENOMEM;
				for (int k = 0; k < nslots; k++)
					if (t->here[k] && t->slot[k].info.disk == disk->dev)
						agg_dev_add(sum, agg_trace_dev(st, k));
				sum->io_ticks_ns = agg_trace_dev(st, i)->io_ticks_ns;
			}
			row_from(r, &t->slot[i], sum ? sum : agg_trace_dev(st, i), false, o);
		}
		for (int k = 0; k < nslots; k++) {
			if (k == i || !t->here[k] || t->slot[k].info.disk != disk->dev ||
			    !shown(o, &t->slot[k].info))
				continue;
			r = table_add(t);
			if (!r)
				return -ENOMEM;
			row_from(r, &t->slot[k], agg_trace_dev(st, k), true, o);
		}
	}
	err = idle_rows(o, st, t);
	if (err)
		return err;
	if (o->active_only) {
		int k = 0;

		/* Rows point into the slots and t->sums, which stay. */
		for (int i = 0; i < t->n; i++)
			if (row_active(&t->rows[i]))
				t->rows[k++] = t->rows[i];
		t->n = k;
	}
	vec_sort(t->rows, t->n, sizeof(*t->rows), by_dev);
	return o->stack ? stack_sort(t->rows, t->n) : 0;
}

/* Each interval's report, once build_rows() made it. */
static void print_rows(void *arg, const struct agg_trace *st, double secs)
{
	struct table *t = arg;
	int err = t->o->by_cgroup ? stat_cg_update(&t->cg, st) : 0;

	if (err)
		pr_err("reading the counts by cgroup: %s", strerror(-err));
	stat_report(t->rows, t->n, secs, false, st, t->o->by_cgroup && !err ? &t->cg : NULL,
		    t->o->a.json, t->o->human, t->o->stuck_ns);
}

/* -S -d DEV: the devices under each one asked for, down the stack. */
static int add_members(struct stat_opts *o)
{
	__u32 m[IOLENS_MAX_DEV_FILTER];

	for (int i = 0; i < o->a.ndev; i++) {
		int n = dev_members(o->a.devs[i], m, IOLENS_MAX_DEV_FILTER);

		for (int k = 0; k < n; k++) {
			if (listed(o, m[k]))
				continue;
			if (o->a.ndev == IOLENS_MAX_DEV_FILTER)
				return usage_err(CMD, "at most %d devices, with those under -d's", IOLENS_MAX_DEV_FILTER);
			o->a.devs[o->a.ndev++] = m[k];
		}
	}
	return 0;
}

static int run(const struct stat_opts *o)
{
	struct agg_trace_opts so = {
		.devs = o->a.devs, .ndev = o->a.ndev, .partitions = o->partitions,
		.own_clock = o->a.own_clock, .by_hwq = o->by_hwq,
		.labels = o->by_cgroup ? IOLENS_STAT_LABEL_CGROUP : 0,
		.max_labels = STAT_CGROUP_SETS,
		.kinds = AGG_KINDS_STAT,
		.proc = &o->a.proc,
	};
	struct table t = { .o = o };
	struct agg_trace *st;
	unsigned long count = o->a.count;
	int err;

	/* Refused before any report: a whole report then a refusal reads as
	 * if the run had started. */
	if (priv_check_tracing(CMD))
		return 1;
	if (!o->skip_boot) {
		if (report_boot(o))
			return 1;
		/* The report since boot is the first of COUNT. */
		if (count && !--count)
			return 0;
	}
	st = agg_trace_start(CMD, &so);
	if (!st)
		return 1;
	err = agg_loop(st, o->a.interval_ns, count, build_rows, print_rows, &t);
	for (int i = 0; i < t.cap; i++)
		agg_dev_free(t.sums[i]);
	agg_dev_free(t.zero);
	stat_cg_free(&t.cg);
	free(t.sums);
	free(t.rows);
	free(t.slot);
	free(t.here);
	free(t.idle_dev);
	free(t.idle);
	free(t.looked);
	agg_trace_stop(st);
	return err ? 1 : 0;
}

int stat_run(const struct stat_opts *opts)
{
	struct stat_opts o = *opts;

	if (o.stack && add_members(&o))
		return 2;
	if (stat_proc_filter_set(&o.a.proc)) {
		if (!o.a.interval_ns)
			return usage_err(CMD, "--pid, --comm and --cgroup need an INTERVAL: the report since boot is the kernel's, of every process");
		o.skip_boot = true;
	}
	if (!o.a.interval_ns)
		return report_boot(&o);
	/* JSON names the ops other than read and write (zone resets, ...)
	 * with this kernel's numbers. */
	if (o.a.json)
		reqflags_init();
	return run(&o);
}
