// SPDX-License-Identifier: GPL-2.0
/*
 * iolens stat: iostat -x from in-kernel aggregation, plus what iostat cannot
 * show: latency percentiles, the queue/device split, queue depth at issue
 * and misaligned writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "trace/block_trace.h"
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/devices.h"
#include "lib/diskstats.h"
#include "lib/hist.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "trace/stat_trace.h"
#include "lib/units.h"

#define CMD "stat"

struct stat_opts {
	__u32 devs[IOLENS_MAX_DEV_FILTER];
	int ndev;
	bool partitions, skip_boot, active_only, json, human, own_clock;
	struct iolens_proc_filter proc;	/* --pid, --comm, --cgroup */
	unsigned long long interval_ns;	/* 0: one report since boot */
	unsigned long count;	/* 0: until interrupted */
};

/* One line of the table: a device over one period. */
struct row {
	char name[DEV_NAME_LEN];
	__u32 dev;
	__u64 ios[IOLENS_SG_NR], bytes[IOLENS_SG_NR], merges[IOLENS_SG_NR];
	__u64 timed[IOLENS_SG_NR];	/* of ios: with a known total time */
	double time_ns[IOLENS_SG_NR];	/* total time over `timed` */
	double busy_ns;			/* < 0: unknown */
	bool io_ticks;			/* busy_ns is the kernel's io_ticks */
	bool bio_based;			/* its disk takes bios, not requests */
	const struct stat_dev *d;	/* iolens's own figures; NULL since boot */
};

static const char *const sg_names[IOLENS_SG_NR] = {
	"read", "write", "discard", "flush",
};

enum { OPT_OWN_CLOCK = CLI_LONG };

static const struct cli_opt opts[] = {
	CLI_OPT('d', "dev", "DEV", "only this disk (loop0, /dev/loop0, 7:0); repeatable"),
	CLI_OPT('p', "partitions", NULL, "also a line per partition"),
	CLI_OPT('y', "skip-boot", NULL, "omit the report since boot"),
	CLI_GROUP(cli_proc_opts),
	CLI_OPT('z', "active", NULL, "omit devices without I/O in the interval"),
	CLI_OPT('j', "json", NULL, "one JSON object per report (iostat's key names)"),
	CLI_OPT('H', "human", NULL, "sizes with units (4.0k, 1.2M) instead of kB"),
	CLI_OPT(OPT_OWN_CLOCK, "own-clock", NULL, "stamp issues with iolens's clock on every queue\n(the kernel's stamp is cached per plug)"),
	CLI_END,
};

static const struct cli_cmd cmd = {
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
		"examples:\n"
		"  iolens stat -y 1\n"
		"  iolens stat -d loop0 -j 2 5\n",
	.numbers = true,
};

static double per_s(double v, double secs)
{
	return secs > 0 ? v / secs : 0;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* iostat's columns for one op group. */
struct cols {
	double ps, kbps, mps, pmerge, await_ms, areq_kb;
};

static struct cols cols_of(const struct row *r, int g, double secs)
{
	struct cols c = {
		.ps = per_s(r->ios[g], secs),
		.kbps = per_s(r->bytes[g] / 1024.0, secs),
		.mps = per_s(r->merges[g], secs),
		.pmerge = 100 * ratio(r->merges[g], r->merges[g] + r->ios[g]),
		.await_ms = ratio(r->time_ns[g], r->timed[g]) / 1e6,
		.areq_kb = ratio(r->bytes[g] / 1024.0, r->ios[g]),
	};
	return c;
}

static double aqu_sz(const struct row *r, double secs)
{
	double t = 0;

	for (int g = 0; g < IOLENS_SG_NR; g++)
		t += r->time_ns[g];
	return per_s(t / 1e9, secs);
}

static void print_header(void)
{
	static const char *const grp[] = { "r", "w", "d" };

	printf("%-13s", "Device");
	for (int g = 0; g < 3; g++) {
		char a[16], b[16], c[16], d[16], e[16], f[16];

		snprintf(a, sizeof(a), "%s/s", grp[g]);
		snprintf(b, sizeof(b), "%skB/s", grp[g]);
		snprintf(c, sizeof(c), "%srqm/s", grp[g]);
		snprintf(d, sizeof(d), "%%%srqm", grp[g]);
		snprintf(e, sizeof(e), "%s_await", grp[g]);
		snprintf(f, sizeof(f), "%sareq-sz", grp[g]);
		printf(" %8s %9s %8s %6s %7s %8s", a, b, c, d, e, f);
	}
	printf(" %8s %7s %7s %6s\n", "f/s", "f_await", "aqu-sz", "%util");
}

static void print_kb(double kb, int width, bool human)
{
	char buf[32];

	if (!human) {
		printf(" %*.2f", width, kb);
		return;
	}
	fmt_bytes(buf, sizeof(buf), kb * 1024);
	printf(" %*s", width, buf);
}

static void print_row(const struct row *r, double secs, bool human)
{
	struct cols f = cols_of(r, IOLENS_SG_FLUSH, secs);

	printf("%-13s", r->name);
	for (int g = 0; g < 3; g++) {
		struct cols c = cols_of(r, g, secs);

		printf(" %8.2f", c.ps);
		print_kb(c.kbps, 9, human);
		printf(" %8.2f %6.2f %7.2f", c.mps, c.pmerge, c.await_ms);
		print_kb(c.areq_kb, 8, human);
	}
	printf(" %8.2f %7.2f %7.2f", f.ps, f.await_ms, aqu_sz(r, secs));
	if (r->busy_ns < 0)
		printf(" %6s\n", "-");
	else
		printf(" %6.2f\n", 100 * per_s(r->busy_ns / 1e9, secs));
}

/* The p-th percentile of a histogram of `d`, if it has samples. */
static bool pct(const struct stat_dev *d, int g, int kind, double p, __u64 *v,
		bool *overflow)
{
	return d->hist[g][kind] && hist_percentile(d->hist[g][kind], p, v, overflow);
}

static void print_pct(const struct stat_dev *d, int g, int kind, double p)
{
	char buf[32];
	bool over;
	__u64 v;

	if (!pct(d, g, kind, p, &v, &over)) {
		printf(" %8s", "-");
		return;
	}
	fmt_ns(buf + 1, sizeof(buf) - 1, v);
	buf[0] = '>';
	printf(" %8s", over ? buf : buf + 1);
}

static void print_avg_ns(double sum, double n)
{
	char buf[32];

	if (n <= 0) {
		printf(" %8s", "-");
		return;
	}
	fmt_ns(buf, sizeof(buf), (__u64)(sum / n + 0.5));
	printf(" %8s", buf);
}

static void print_extras(const struct row *rows, int n)
{
	printf("%-13s %-7s %9s %8s %8s %8s %8s %8s %7s %6s %8s\n", "Device", "op",
	       "ios", "p50", "p99", "max", "queue", "device", "qd-avg",
	       "qd-max", "misalign");
	for (int i = 0; i < n; i++) {
		const struct stat_dev *d = rows[i].d;

		for (int g = 0; g < IOLENS_SG_NR; g++) {
			const struct iolens_stat *o = &d->op[g];
			bool over;
			__u64 v;

			if (!o->ios && !o->issues)
				continue;
			printf("%-13s %-7s %9llu", rows[i].name, sg_names[g],
			       (unsigned long long)o->ios);
			print_pct(d, g, IOLENS_H_TOTAL, 50);
			print_pct(d, g, IOLENS_H_TOTAL, 99);
			print_pct(d, g, IOLENS_H_TOTAL, 100);
			print_avg_ns(o->queue_ns, o->split);
			print_avg_ns(o->device_ns, o->split);
			if (o->issues)
				printf(" %7.2f", ratio(o->qd_sum, o->issues));
			else
				printf(" %7s", "-");
			if (pct(d, g, IOLENS_H_QD, 100, &v, &over))
				printf(" %6llu", (unsigned long long)v);
			else
				printf(" %6s", "-");
			if (o->checked)
				printf(" %7.1f%%\n", 100 * ratio(o->misaligned, o->checked));
			else
				printf(" %8s\n", "-");
		}
	}
}

static void json_pct(struct json *j, const char *key, const struct stat_dev *d,
		     int g, int kind, double p)
{
	bool over;
	__u64 v;

	/* In the overflow bucket the value is only a lower bound. */
	if (pct(d, g, kind, p, &v, &over) && !over)
		json_u64(j, key, v);
	else
		json_null(j, key);
}

static void json_avg(struct json *j, const char *key, double sum, double n)
{
	if (n > 0)
		json_f64(j, key, sum / n, 2);
	else
		json_null(j, key);
}

static void json_ops(struct json *j, const struct stat_dev *d)
{
	json_obj_open(j, "ops");
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		const struct iolens_stat *o = &d->op[g];
		bool over;
		__u64 v;

		json_obj_open(j, sg_names[g]);
		json_u64(j, "ios", o->ios);
		json_u64(j, "bytes", o->bytes);
		json_u64(j, "merges", o->merges);
		json_u64(j, "total_ns", o->total_ns);
		json_u64(j, "timed", o->timed);
		json_pct(j, "p50_ns", d, g, IOLENS_H_TOTAL, 50);
		json_pct(j, "p90_ns", d, g, IOLENS_H_TOTAL, 90);
		json_pct(j, "p99_ns", d, g, IOLENS_H_TOTAL, 99);
		json_pct(j, "max_ns", d, g, IOLENS_H_TOTAL, 100);
		json_avg(j, "queue_avg_ns", o->queue_ns, o->split);
		json_avg(j, "device_avg_ns", o->device_ns, o->split);
		json_u64(j, "split", o->split);
		json_u64(j, "own_clock", o->own_clock);
		json_u64(j, "issues", o->issues);
		json_avg(j, "qd_avg", o->qd_sum, o->issues);
		if (pct(d, g, IOLENS_H_QD, 100, &v, &over) && !over)
			json_u64(j, "qd_max", v);
		else
			json_null(j, "qd_max");
		json_u64(j, "writes_checked", o->checked);
		json_u64(j, "misaligned", o->misaligned);
		json_u64(j, "misaligned_bytes", o->misaligned_bytes);
		json_obj_close(j);
	}
	json_obj_close(j);
}

static void json_row(struct json *j, const struct row *r, double secs)
{
	static const char *const grp[] = { "r", "w", "d", "f" };
	char key[16];

	json_obj_open(j, NULL);
	json_str(j, "disk_device", r->name);
	snprintf(key, sizeof(key), "%u:%u", kdev_major(r->dev), kdev_minor(r->dev));
	json_str(j, "dev", key);
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		struct cols c = cols_of(r, g, secs);

#define KEY(fmt) (snprintf(key, sizeof(key), fmt, grp[g]), key)
		json_f64(j, KEY("%s/s"), c.ps, 2);
		if (g == IOLENS_SG_FLUSH) {
			json_f64(j, KEY("%s_await"), c.await_ms, 2);
			break;
		}
		json_f64(j, KEY("%skB/s"), c.kbps, 2);
		json_f64(j, KEY("%srqm/s"), c.mps, 2);
		json_f64(j, KEY("%srqm"), c.pmerge, 2);
		json_f64(j, KEY("%s_await"), c.await_ms, 2);
		json_f64(j, KEY("%sareq-sz"), c.areq_kb, 2);
#undef KEY
	}
	json_f64(j, "aqu-sz", aqu_sz(r, secs), 2);
	if (r->busy_ns < 0)
		json_null(j, "util");
	else
		json_f64(j, "util", 100 * per_s(r->busy_ns / 1e9, secs), 2);
	json_str(j, "util_source", r->busy_ns < 0 ? NULL :
		 r->io_ticks ? "io_ticks" : "busy_time");
	/* Where iolens's figures come from: block_rq_* events, or for a
	 * bio-based device diskstats' counts and bio latencies. */
	json_str(j, "source", !r->d ? "diskstats" : r->bio_based ? "bios" : "requests");
	if (r->d) {
		json_u64(j, "completions_missed", r->d->missed);
		json_ops(j, r->d);
	}
	json_obj_close(j);
}

static void report(const struct stat_opts *o, const struct row *rows, int n,
		   double secs, bool boot, const struct stat_trace *st)
{
	char ts[64];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (o->json) {
		struct json j;

		json_init(&j, stdout);
		json_obj_open(&j, NULL);
		json_str(&j, "timestamp", ts);
		json_str(&j, "period", boot ? "boot" : "interval");
		json_f64(&j, "seconds", secs, 6);
		json_arr_open(&j, "devices");
		for (int i = 0; i < n; i++)
			json_row(&j, &rows[i], secs);
		json_arr_close(&j);
		if (st) {
			struct iolens_stat_counters lost;

			stat_trace_losses(st, &lost);
			json_u64(&j, "untracked_device_events", lost.no_slot);
			json_u64(&j, "issue_stamps_missing", lost.no_stamp);
		}
		json_obj_close(&j);
		json_newline(&j);
	} else {
		print_header();
		for (int i = 0; i < n; i++)
			print_row(&rows[i], secs, o->human);
		for (int i = 0; i < n; i++)
			if (rows[i].d && rows[i].d->missed)
				printf("(%s: %llu completions were never delivered to iolens: %%util is the kernel's io_ticks this time)\n",
				       rows[i].name, (unsigned long long)rows[i].d->missed);
		if (boot)
			printf("(since boot, from /proc/diskstats; iolens's own figures begin with the next report)\n");
		else if (n) {
			printf("\n");
			print_extras(rows, n);
		}
		printf("\n");
	}
	fflush(stdout);
}

static bool wanted(const struct stat_opts *o, __u32 disk)
{
	if (!o->ndev)
		return true;
	for (int i = 0; i < o->ndev; i++)
		if (o->devs[i] == disk)
			return true;
	return false;
}

static int by_dev(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static bool row_active(const struct row *r)
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
	struct row *rows;
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
		struct row *r = &rows[nr];
		struct dev_info info;

		if (dev_lookup(ds[i].dev, &info) || !wanted(o, info.disk) ||
		    (info.disk != info.dev && !o->partitions))
			continue;
		snprintf(r->name, sizeof(r->name), "%s", ds[i].name);
		r->dev = ds[i].dev;
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			r->ios[g] = ds[i].ios[g];
			r->bytes[g] = ds[i].sectors[g] * 512;
			r->merges[g] = ds[i].merges[g];
			r->timed[g] = ds[i].ios[g];
			r->time_ns[g] = ds[i].time_ms[g] * 1e6;
		}
		r->busy_ns = ds[i].io_ticks_ms * 1e6;
		r->io_ticks = true;
		/* iostat leaves out devices that never did I/O. */
		if (row_active(r) || o->ndev)
			nr++;
	}
	report(o, rows, nr, uptime_s(), true, NULL);
	free(rows);
	free(ds);
	return 0;
}

/* `filtered`: only some processes' requests are counted (--pid...). */
static void row_from(struct row *r, const struct dev_info *info,
		     const struct stat_dev *d, bool partition, bool filtered)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", info->name);
	r->dev = info->dev;
	r->bio_based = info->bio_based;
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		r->ios[g] = d->op[g].ios;
		r->bytes[g] = d->op[g].bytes;
		r->merges[g] = d->op[g].merges;
		r->timed[g] = d->op[g].timed;
		r->time_ns[g] = d->op[g].total_ns;
	}
	/* Busy time is kept per disk: partitions share its queue.  It cannot
	 * exceed the kernel's io_ticks (which also counts queue time) by more
	 * than their rounding, unless a completion was never delivered to us:
	 * then our busy period never ends, ours is unknown, and iostat's
	 * io_ticks is shown. */
	r->io_ticks = !partition && stat_dev_busy_unknown(d);
	r->busy_ns = partition ? -1 : r->io_ticks ? d->io_ticks_ns : (double)d->busy_ns;
	/* io_ticks are every process's: no stand-in for some processes'. */
	if (r->io_ticks && filtered)
		r->busy_ns = -1;
	r->d = d;
}

struct table {
	struct row *rows;
	struct stat_dev **sums;	/* per row, owned */
	int n, cap;
	struct dev_info *info;	/* per slot, this interval */
};

static struct row *table_add(struct table *t, const struct stat_trace *st)
{
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		struct row *r = realloc(t->rows, cap * sizeof(*r));
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

/*
 * The rows of one interval: every disk (and with -p partition) that did I/O
 * since we started and is still there, plus the disks asked for with -d.
 * A device that went away is left out; one that appeared gets its slot at
 * its first request.
 */
static int build_rows(const struct stat_opts *o, const struct stat_trace *st,
		      struct table *t)
{
	int nslots = stat_trace_nslots(st);

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
		struct row *r;

		if (!disk->dev || disk->disk != disk->dev)
			continue;
		r = table_add(t, st);
		if (!r)
			return -ENOMEM;
		/* A disk's line holds its partitions' requests too. */
		for (int k = 0; k < nslots; k++)
			if (t->info[k].dev && t->info[k].disk == disk->dev)
				stat_dev_add(t->sums[t->n - 1], stat_trace_dev(st, k));
		row_from(r, disk, t->sums[t->n - 1], false, stat_proc_filter_set(&o->proc));
		for (int k = 0; o->partitions && k < nslots; k++) {
			if (k == i || !t->info[k].dev || t->info[k].disk != disk->dev)
				continue;
			r = table_add(t, st);
			if (!r)
				return -ENOMEM;
			row_from(r, &t->info[k], stat_trace_dev(st, k), true,
				 stat_proc_filter_set(&o->proc));
		}
	}
	for (int i = 0; i < o->ndev; i++) {
		struct dev_info info;
		bool seen = false;
		struct row *r;

		for (int k = 0; k < t->n && !seen; k++)
			seen = t->rows[k].dev == o->devs[i];
		if (seen || dev_lookup(o->devs[i], &info))
			continue;
		r = table_add(t, st);
		if (!r)
			return -ENOMEM;
		row_from(r, &info, t->sums[t->n - 1], false, stat_proc_filter_set(&o->proc));
	}
	if (o->active_only) {
		int k = 0;

		/* Rows point into t->sums, which stay where they are. */
		for (int i = 0; i < t->n; i++)
			if (row_active(&t->rows[i]))
				t->rows[k++] = t->rows[i];
		t->n = k;
	}
	qsort(t->rows, t->n, sizeof(*t->rows), by_dev);
	return 0;
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
	report(c->o, c->t->rows, c->t->n, stat_trace_interval_s(c->st), false, c->st);
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

	cli_begin(&p, &cmd, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case 'd':
			if (cli_disk(CMD, optarg, o.devs, &o.ndev))
				return 2;
			break;
		case 'p': o.partitions = true; break;
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
	if (stat_proc_filter_set(&o.proc)) {
		if (!o.interval_ns)
			return usage_err(CMD, "--pid, --comm and --cgroup need an INTERVAL: the report since boot is the kernel's, of every process");
		o.skip_boot = true;
	}
	if (!o.interval_ns)
		return report_boot(&o);
	return run(&o);
}
