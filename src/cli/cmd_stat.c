// SPDX-License-Identifier: GPL-2.0
/*
 * iolens stat: iostat -x from in-kernel aggregation, plus what iostat cannot
 * show: latency percentiles, the queue/device split, queue depth at issue
 * and misaligned writes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/filters.h"
#include "cli/stat_print.h"
#include "lib/devices.h"
#include "lib/diskstats.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "trace/stat_trace.h"
#include "lib/vec.h"

#define CMD "stat"

struct stat_opts {
	__u32 devs[IOLENS_MAX_DEV_FILTER];
	int ndev;
	bool partitions, skip_boot, active_only, json, human, own_clock, stack, names;
	struct iolens_proc_filter proc;	/* --pid, --comm, --cgroup */
	unsigned long long interval_ns;	/* 0: one report since boot */
	unsigned long count;	/* 0: until interrupted */
};

enum { OPT_OWN_CLOCK = CLI_LONG };

static const struct cli_opt opts[] = {
	CLI_OPT_DEV,
	CLI_OPT('p', "partitions", NULL, "also a line per partition"),
	CLI_OPT('S', "stack", NULL, "stacked devices (dm, md) with the devices under them\nindented below; with -d, those devices too"),
	CLI_OPT('y', "skip-boot", NULL, "omit the report since boot"),
	CLI_GROUP(cli_proc_opts),
	CLI_OPT('z', "active", NULL, "omit devices without I/O in the interval"),
	CLI_OPT('N', "names", NULL, "devices by their stable names: /dev/mapper (LVM vg-lv,\ndm-crypt), /dev/md, else /dev/disk/by-id"),
	CLI_OPT('j', "json", NULL, "one JSON object per report (iostat's key names)"),
	CLI_OPT('H', "human", NULL, "sizes with units (4.0k, 1.2M) instead of kB"),
	CLI_OPT(OPT_OWN_CLOCK, "own-clock", NULL, "stamp issues with iolens's clock on every queue\n(the kernel's stamp is cached per plug)"),
	CLI_END,
};

const struct cli_cmd stat_cli = {
	.name = CMD,
	.usage = "usage: iolens stat [OPTIONS] [INTERVAL [COUNT]]\n",
	.about =
		"iostat -x per device, computed in the kernel, plus latency percentiles,\n"
		"queue vs device time, queue depth at issue and misaligned writes.\n"
		"Without INTERVAL: one report since boot from /proc/diskstats, as iostat.\n"
		"With it: the first report is since boot (unless -y), then one per\n"
		"INTERVAL (seconds, or 500ms), COUNT times or until Ctrl-C, which prints\n"
		"the interval so far.\n",
	.opts = opts,
	.more =
		"columns: iostat -x's, and\n"
		"  %util  the kernel's io_ticks over the interval, as iostat: time with a\n"
		"         request in the block layer, queued or at the device, counted in\n"
		"         whole jiffies (1-10 ms)\n"
		"  busy%  iolens's exact time with a request issued to the device and not\n"
		"         completed; - where unknown (a completion never delivered, a\n"
		"         partition, a bio-based device)\n"
		"bio-based devices (zram, dm, md, NVMe multipath heads): counts and times\n"
		"are the kernel's (diskstats), latency percentiles those of their bios.\n"
		"examples:\n"
		"  iolens stat -y 1\n"
		"  iolens stat -d loop0 -j 2 5\n",
	.numbers = true,
};

static bool listed(const struct stat_opts *o, __u32 dev)
{
	for (int i = 0; i < o->ndev; i++)
		if (o->devs[i] == dev)
			return true;
	return false;
}

/* Whether a device gets a line: a disk unless -d names others; a
 * partition with -p beside its disk's line, or when -d names it. */
static bool shown(const struct stat_opts *o, const struct dev_info *info)
{
	bool disk = !o->ndev || listed(o, info->disk);

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
	FILE *f = fopen("/proc/uptime", "r");
	double up = 0;

	if (f) {
		if (fscanf(f, "%lf", &up) != 1)
			up = 0;
		fclose(f);
	}
	return up;
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
		struct dev_info info;

		if (dev_lookup(ds[i].dev, &info) || !shown(o, &info))
			continue;
		snprintf(r->name, sizeof(r->name), "%s", ds[i].name);
		if (o->names)
			dev_stable_name(ds[i].dev, r->name, sizeof(r->name));
		r->dev = ds[i].dev;
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			r->ios[g] = ds[i].ios[g];
			r->bytes[g] = ds[i].sectors[g] * 512;
			r->merges[g] = ds[i].merges[g];
			r->timed[g] = ds[i].ios[g];
			r->time_ns[g] = ds[i].time_ms[g] * 1e6;
		}
		r->util_ns = ds[i].io_ticks_ms * 1e6;
		r->busy_ns = -1;
		r->nmembers = dev_members(r->dev, r->members, IOLENS_MAX_DEV_FILTER);
		/* iostat leaves out devices that never did I/O. */
		if (row_active(r) || o->ndev)
			nr++;
	}
	if (o->stack && stack_sort(rows, nr))
		nr = 0;
	stat_report(rows, nr, uptime_s(), true, NULL, o->json, o->human);
	free(rows);
	free(ds);
	return 0;
}

/* A line of `d` (o: -N names; with --pid... only some processes' requests
 * are counted). */
static void row_from(struct stat_row *r, const struct dev_info *info,
		     const struct stat_dev *d, bool partition,
		     const struct stat_opts *o)
{
	bool filtered = stat_proc_filter_set(&o->proc);

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", info->name);
	if (o->names)
		dev_stable_name(info->dev, r->name, sizeof(r->name));
	r->dev = info->dev;
	r->bio_based = info->bio_based;
	r->nmembers = dev_members(r->dev, r->members, IOLENS_MAX_DEV_FILTER);
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
	r->busy_ns = partition || stat_dev_busy_unknown(d) ? -1 : (double)d->busy_ns;
	r->d = d;
}

struct table {
	struct stat_row *rows;
	struct stat_dev **sums;	/* per row, owned */
	int n, cap;
	struct dev_info *info;	/* per slot, this interval */
};

static struct stat_row *table_add(struct table *t, const struct stat_trace *st)
{
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		struct stat_row *r = realloc(t->rows, cap * sizeof(*r));
		struct stat_dev **s;

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
	if (!t->sums[t->n] && !(t->sums[t->n] = stat_dev_new(st)))
		return NULL;
	stat_dev_zero(t->sums[t->n]);
	return &t->rows[t->n++];
}

/* Lines of devices that did nothing since we started, as iostat prints
 * them: those -d names, else every one that did I/O since boot. */
static int idle_rows(const struct stat_opts *o, const struct stat_trace *st,
		     struct table *t)
{
	struct diskstat *ds = NULL;
	int n = o->ndev;

	if (!n && (n = diskstats_read(&ds)) < 0)
		return n;
	for (int i = 0; i < n; i++) {
		__u32 dev = ds ? ds[i].dev : o->devs[i];
		struct dev_info info;
		struct stat_row *r;
		bool seen = false;

		if (ds && !(ds[i].ios[0] | ds[i].ios[1] | ds[i].ios[2] | ds[i].ios[3]))
			continue;
		for (int k = 0; k < t->n && !seen; k++)
			seen = t->rows[k].dev == dev;
		if (seen || dev_lookup(dev, &info) || !shown(o, &info))
			continue;
		r = table_add(t, st);
		if (!r) {
			free(ds);
			return -ENOMEM;
		}
		row_from(r, &info, t->sums[t->n - 1], info.disk != info.dev, o);
	}
	free(ds);
	return 0;
}

/*
 * The rows of one interval: every disk (and with -p partition) that did I/O
 * since we started and is still there, plus idle ones (idle_rows()).
 * A device that went away is left out; one that appeared gets its slot at
 * its first request.
 */
static int build_rows(const struct stat_opts *o, const struct stat_trace *st,
		      struct table *t)
{
	int nslots = stat_trace_nslots(st), err;

	t->n = 0;
	if (!t->info && !(t->info = calloc(nslots, sizeof(*t->info))))
		return -ENOMEM;
	/* One sysfs lookup per slot and interval; .dev 0 = no device. */
	for (int i = 0; i < nslots; i++) {
		const struct stat_dev *d = stat_trace_dev(st, i);

		if (!d || dev_lookup(d->dev, &t->info[i]))
			t->info[i].dev = 0;
	}
	for (int i = 0; i < nslots; i++) {
		const struct dev_info *disk = &t->info[i];
		struct stat_row *r;

		if (!disk->dev || disk->disk != disk->dev)
			continue;
		if (shown(o, disk)) {
			r = table_add(t, st);
			if (!r)
				return -ENOMEM;
			/* A disk's line holds its partitions' requests too;
			 * its io_ticks already count theirs. */
			for (int k = 0; k < nslots; k++)
				if (t->info[k].dev && t->info[k].disk == disk->dev)
					stat_dev_add(t->sums[t->n - 1], stat_trace_dev(st, k));
			t->sums[t->n - 1]->io_ticks_ns = stat_trace_dev(st, i)->io_ticks_ns;
			row_from(r, disk, t->sums[t->n - 1], false, o);
		}
		for (int k = 0; k < nslots; k++) {
			if (k == i || !t->info[k].dev || t->info[k].disk != disk->dev ||
			    !shown(o, &t->info[k]))
				continue;
			r = table_add(t, st);
			if (!r)
				return -ENOMEM;
			row_from(r, &t->info[k], stat_trace_dev(st, k), true, o);
		}
	}
	err = idle_rows(o, st, t);
	if (err)
		return err;
	if (o->active_only) {
		int k = 0;

		/* Rows point into t->sums, which stay where they are. */
		for (int i = 0; i < t->n; i++)
			if (row_active(&t->rows[i]))
				t->rows[k++] = t->rows[i];
		t->n = k;
	}
	vec_sort(t->rows, t->n, sizeof(*t->rows), by_dev);
	return o->stack ? stack_sort(t->rows, t->n) : 0;
}

struct tick_ctx {
	const struct stat_opts *o;
	struct stat_trace *st;
	struct table *t;
};

/* Interrupted by Ctrl-C: reports the interval so far. */
static int tick(void *arg)
{
	struct tick_ctx *c = arg;
	int err = stat_trace_read(c->st);

	err = err ?: build_rows(c->o, c->st, c->t);
	if (err) {
		pr_err("reading the aggregation maps: %s", strerror(-err));
		return err;
	}
	stat_report(c->t->rows, c->t->n, stat_trace_interval_s(c->st), false, c->st,
		    c->o->json, c->o->human);
	return 0;
}

/* -S -d DEV: the devices under each one asked for, down the stack. */
static int add_members(struct stat_opts *o)
{
	__u32 m[IOLENS_MAX_DEV_FILTER];

	for (int i = 0; i < o->ndev; i++) {
		int n = dev_members(o->devs[i], m, IOLENS_MAX_DEV_FILTER);

		for (int k = 0; k < n; k++) {
			if (listed(o, m[k]))
				continue;
			if (o->ndev == IOLENS_MAX_DEV_FILTER)
				return usage_err(CMD, "at most %d devices, with those under -d's", IOLENS_MAX_DEV_FILTER);
			o->devs[o->ndev++] = m[k];
		}
	}
	return 0;
}

static int run(const struct stat_opts *o)
{
	struct stat_trace_opts so = {
		.devs = o->devs, .ndev = o->ndev, .partitions = o->partitions,
		.own_clock = o->own_clock,
		.kinds = 1U << IOLENS_H_TOTAL | 1U << IOLENS_H_QD,
		.proc = &o->proc,
	};
	struct table t = {};
	struct tick_ctx c = { .o = o, .t = &t };
	unsigned long count = o->count;
	int err;

	if (!o->skip_boot) {
		if (report_boot(o))
			return 1;
		/* The report since boot is the first of COUNT. */
		if (count && !--count)
			return 0;
	}
	c.st = stat_trace_start(CMD, &so);
	if (!c.st)
		return 1;
	err = stop_every(stat_trace_read_ns(c.st), o->interval_ns, count, true, tick, &c);
	for (int i = 0; i < t.cap; i++)
		stat_dev_free(t.sums[i]);
	free(t.sums);
	free(t.rows);
	free(t.info);
	stat_trace_stop(c.st);
	return err ? 1 : 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = {};
	struct cli_parser p;
	int c, r;

	cli_begin(&p, &stat_cli, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case 'd':
			if (cli_disk(CMD, optarg, o.devs, &o.ndev))
				return 2;
			break;
		case 'p': o.partitions = true; break;
		case 'S': o.stack = true; break;
		case 'N': o.names = true; break;
		case 'y': o.skip_boot = true; break;
		case 'z': o.active_only = true; break;
		case 'j': o.json = true; break;
		case 'H': o.human = true; break;
		case OPT_OWN_CLOCK: o.own_clock = true; break;
		default:
			r = cli_proc_opt(&o.proc, CMD, c, optarg);
			if (r != 1)
				return 2;
		}
	}
	if (c < 0)
		return cli_exit(c);
	if (cli_interval_count(CMD, argc, argv, &o.interval_ns, &o.count))
		return 2;
	if (o.stack && add_members(&o))
		return 2;
	if (stat_proc_filter_set(&o.proc)) {
		if (!o.interval_ns)
			return usage_err(CMD, "--pid, --comm and --cgroup need an INTERVAL: the report since boot is the kernel's, of every process");
		o.skip_boot = true;
	}
	if (!o.interval_ns)
		return report_boot(&o);
	return run(&o);
}
