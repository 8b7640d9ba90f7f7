// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "stat/by_cgroup.h"
#include "stat/hwq.h"
#include "stat/print.h"
#include "lib/cgroups.h"
#include "lib/devices.h"
#include "lib/hist.h"
#include "lib/json.h"
#include "lib/units.h"
#include "trace/reqflags.h"

/* iostat's prefixes of its columns per op group (r/s, w_await, ...); the
 * groups' own names are agg_group_names. */
static const char *const iostat_grp[IOLENS_SG_NR] = { "r", "w", "d", "f" };

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

static struct cols cols_of(const struct stat_row *r, int g, double secs)
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

static double aqu_sz(const struct stat_row *r, double secs)
{
	double t = 0;

	for (int g = 0; g < IOLENS_SG_NR; g++)
		t += r->time_ns[g];
	return per_s(t / 1e9, secs);
}

static void print_header(void)
{
	printf("%-13s", "Device");
	for (int g = 0; g < 3; g++) {
		char a[16], b[16], c[16], d[16], e[16], f[16];

		snprintf(a, sizeof(a), "%s/s", iostat_grp[g]);
		snprintf(b, sizeof(b), "%skB/s", iostat_grp[g]);
		snprintf(c, sizeof(c), "%srqm/s", iostat_grp[g]);
		snprintf(d, sizeof(d), "%%%srqm", iostat_grp[g]);
		snprintf(e, sizeof(e), "%s_await", iostat_grp[g]);
		snprintf(f, sizeof(f), "%sareq-sz", iostat_grp[g]);
		printf(" %8s %9s %8s %6s %7s %8s", a, b, c, d, e, f);
	}
	printf(" %8s %7s %7s %6s %6s\n", "f/s", "f_await", "aqu-sz", "%util", "busy%");
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

/* ns over the interval as a percentage, "-" if unknown (< 0). */
static void print_pct_of(double ns, double secs)
{
	if (ns < 0)
		printf(" %6s", "-");
	else
		printf(" %6.2f", 100 * per_s(ns / 1e9, secs));
}

static void json_pct_of(struct json *j, const char *key, double ns, double secs)
{
	if (ns < 0)
		json_null(j, key);
	else
		json_f64(j, key, 100 * per_s(ns / 1e9, secs), 2);
}

/* The name, indented under the stacked device it is a member of (-S). */
static void print_name(const struct stat_row *r)
{
	int in = r->depth > 3 ? 6 : 2 * r->depth;

	printf("%*s%-*s", in, "", 13 - in, r->name);
}

static void print_row(const struct stat_row *r, double secs, bool human)
{
	struct cols f = cols_of(r, IOLENS_SG_FLUSH, secs);

	print_name(r);
	for (int g = 0; g < 3; g++) {
		struct cols c = cols_of(r, g, secs);

		printf(" %8.2f", c.ps);
		print_kb(c.kbps, 9, human);
		printf(" %8.2f %6.2f %7.2f", c.mps, c.pmerge, c.await_ms);
		print_kb(c.areq_kb, 8, human);
	}
	printf(" %8.2f %7.2f %7.2f", f.ps, f.await_ms, aqu_sz(r, secs));
	print_pct_of(r->util_ns, secs);
	print_pct_of(r->busy_ns, secs);
	printf("\n");
}

/* The p-th percentile of a histogram of `d`, if it has samples. */
static bool pct(const struct agg_dev *d, int g, int kind, double p, __u64 *v,
		bool *overflow)
{
	return d->hist[g][kind] &&
	       hist_percentile_n(d->hist[g][kind], d->hist_n[g][kind], p, v, overflow);
}

static void print_pct(const struct agg_dev *d, int g, int kind, double p)
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

/* Whether failure `f` counts in row r: its device's own, or a partition's
 * in its disk's line. */
static bool fail_in_row(const struct agg_failure *f, const struct stat_row *r)
{
	struct dev_info info;

	if (f->dev == r->dev)
		return true;
	return !r->partition && !dev_lookup(f->dev, &info) && info.disk == r->dev;
}

/* Row r's failures of op group g over the interval, by the kernel's
 * status (raw blk_status_t); how many in all. */
static __u64 fails_of(const struct stat_row *r, int g, const struct agg_trace *st,
		      __u64 by_status[256])
{
	__u64 n = 0;

	memset(by_status, 0, 256 * sizeof(*by_status));
	for (int i = 0; st && r->d && i < agg_trace_nfailures(st); i++) {
		const struct agg_failure *f = agg_trace_failure(st, i);

		if (f->n.ios && f->key.sg == g && fail_in_row(f, r)) {
			by_status[f->key.status] += f->n.ios;
			n += f->n.ios;
		}
	}
	return n;
}

/* A line per device and op group with failures: how many of how many,
 * by status. */
static void print_fail_lines(const struct stat_row *rows, int n,
			     const struct agg_trace *st)
{
	for (int i = 0; i < n; i++) {
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			__u64 by[256], failed = fails_of(&rows[i], g, st, by);
			const char *sep = ": ";

			if (!failed)
				continue;
			printf("(%s: %llu of %llu %s requests failed", rows[i].name,
			       (unsigned long long)failed,
			       (unsigned long long)rows[i].d->op[g].ios, agg_group_names[g]);
			for (int s = 0; s < 256; s++) {
				if (!by[s])
					continue;
				printf("%s%s %llu", sep, blk_status_name(s),
				       (unsigned long long)by[s]);
				sep = ", ";
			}
			printf(")\n");
		}
	}
}

/* Whether any line had a failed request in the interval. */
static bool any_failed(const struct stat_row *rows, int n,
		       const struct agg_trace *st)
{
	__u64 by[256];

	for (int i = 0; i < n; i++)
		for (int g = 0; g < IOLENS_SG_NR; g++)
			if (fails_of(&rows[i], g, st, by))
				return true;
	return false;
}

static void print_extras(const struct stat_row *rows, int n,
			 const struct agg_trace *st)
{
	bool failures = any_failed(rows, n, st);

	printf("%-13s %-7s %9s %8s %8s %8s %8s %8s %7s %6s %8s", "Device", "op",
	       "ios", "p50", "p99", "max", "queue", "device", "qd-avg",
	       "qd-max", "misalign");
	/* Only when something failed: an SRE's eye goes to it. */
	printf(failures ? " %7s\n" : "\n", "failed%");
	for (int i = 0; i < n; i++) {
		const struct agg_dev *d = rows[i].d;

		for (int g = 0; g < IOLENS_SG_NR; g++) {
			const struct iolens_stat *o = &d->op[g];
			__u64 by[256], failed;
			bool over;
			__u64 v;

			if (!o->ios && !o->issues)
				continue;
			print_name(&rows[i]);
			printf(" %-7s %9llu", agg_group_names[g], (unsigned long long)o->ios);
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
				printf(" %7.1f%%", 100 * ratio(o->misaligned, o->checked));
			else
				printf(" %8s", "-");
			if (failures && (failed = fails_of(&rows[i], g, st, by)))
				printf(" %6.1f%%", 100 * ratio(failed, o->ios));
			else if (failures)
				printf(" %7s", "-");
			printf("\n");
		}
	}
	if (failures)
		print_fail_lines(rows, n, st);
}

static void json_pct(struct json *j, const char *key, const struct agg_dev *d,
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

static void json_fails(struct json *j, const struct stat_row *r, int g,
		       const struct agg_trace *st)
{
	__u64 by[256];

	json_u64(j, "failed", fails_of(r, g, st, by));
	json_obj_open(j, "failed_by_status");
	for (int s = 0; s < 256; s++)
		if (by[s])
			json_u64(j, blk_status_name(s), by[s]);
	json_obj_close(j);
}

static void json_ops(struct json *j, const struct stat_row *r,
		     const struct agg_trace *st)
{
	const struct agg_dev *d = r->d;

	json_obj_open(j, "ops");
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		const struct iolens_stat *o = &d->op[g];
		bool over;
		__u64 v;

		json_obj_open(j, agg_group_names[g]);
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
		json_fails(j, r, g, st);
		json_u64(j, "requeues", o->requeues);
		json_u64(j, "timeouts", o->timeouts);
		json_obj_close(j);
	}
	json_obj_close(j);
}

/* Of the groups' counts, the ops that are not the group's own, by name:
 * zone resets and appends, write-zeroes, secure erases, driver ops. */
static void json_other_ops(struct json *j, const struct agg_dev *d)
{
	struct iolens_op_count by[IOLENS_OP_NR] = {};

	for (__u32 k = 0; k < IOLENS_KOPS; k++) {
		struct iolens_rq rq = { .kflags = k };

		reqflags_normalize(&rq);
		by[rq.op].ios += d->other_ops[k].ios;
		by[rq.op].bytes += d->other_ops[k].bytes;
	}
	json_obj_open(j, "other_ops");
	for (int op = 0; op < IOLENS_OP_NR; op++) {
		if (!by[op].ios && !by[op].bytes)
			continue;
		json_obj_open(j, op_name(op));
		json_u64(j, "ios", by[op].ios);
		json_u64(j, "bytes", by[op].bytes);
		json_obj_close(j);
	}
	json_obj_close(j);
}

/* A disk's oldest request in flight, and the one it watches when that
 * is stuck. */
static void json_age(struct json *j, const struct stat_row *r, __u64 stuck_ns)
{
	const struct agg_dev *d = r->d;
	const struct iolens_watch *w = &d->watch;

	if (r->partition || r->bio_based) {
		json_null(j, "inflight_oldest_s");
		json_null(j, "inflight_oldest_beyond");
		json_null(j, "stuck");
		return;
	}
	json_f64(j, "inflight_oldest_s", d->oldest_ns / 1e9, 3);
	json_bool(j, "inflight_oldest_beyond", d->oldest_beyond);
	if (!stuck_ns || d->oldest_ns < stuck_ns || !w->rq || d->watch_age_ns < stuck_ns) {
		json_null(j, "stuck");
		return;
	}
	json_obj_open(j, "stuck");
	json_f64(j, "age_s", d->watch_age_ns / 1e9, 3);
	json_u64(j, "sector", w->sector);
	json_u64(j, "bytes", w->bytes);
	json_u64(j, "pid", w->tgid);
	json_str(j, "comm", w->comm);
	json_bool(j, "submitter", w->submitter);
	json_obj_close(j);
}

/* Whether a disk is zoned (SMR, ZNS, zoned null_blk), and its zone size. */
static void json_zoned(struct json *j, __u32 dev)
{
	const struct dev_info *di = dev_get(dev);

	json_str(j, "zoned", *di->zoned ? di->zoned : NULL);
	if (di->zone_bytes)
		json_u64(j, "zone_size_bytes", di->zone_bytes);
	else
		json_null(j, "zone_size_bytes");
}

static void json_row(struct json *j, const struct stat_row *r, double secs,
		     const struct agg_trace *st, const struct stat_cg *cg, __u64 stuck_ns)
{
	char key[16];

	json_obj_open(j, NULL);
	json_str(j, "disk_device", r->name);
	snprintf(key, sizeof(key), "%u:%u", kdev_major(r->dev), kdev_minor(r->dev));
	json_str(j, "dev", key);
	for (int g = 0; g < IOLENS_SG_NR; g++) {
		struct cols c = cols_of(r, g, secs);

#define KEY(fmt) (snprintf(key, sizeof(key), fmt, iostat_grp[g]), key)
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
	json_pct_of(j, "util", r->util_ns, secs);
	json_pct_of(j, "busy", r->busy_ns, secs);
	/* Where iolens's figures come from: block_rq_* events, or for a
	 * bio-based device diskstats' counts and bio latencies. */
	json_str(j, "source", !r->d ? "diskstats" : r->bio_based ? "bios" : "requests");
	json_zoned(j, r->dev);
	if (r->nmembers) {
		json_arr_open(j, "members");
		for (int i = 0; i < r->nmembers; i++)
			json_str(j, NULL, dev_name(r->members[i]));
		json_arr_close(j);
	}
	if (r->d) {
		json_u64(j, "completions_missed", r->d->missed);
		json_age(j, r, stuck_ns);
		json_ops(j, r, st);
		if (!r->bio_based)
			json_other_ops(j, r->d);
		if (st && agg_trace_by_hwq(st))
			stat_hwq_json(j, r, secs);
		if (cg && !r->partition)
			stat_cg_json(j, cg, r, secs);
	}
	json_obj_close(j);
}

void stat_report(const struct stat_row *rows, int n, double secs, bool boot,
		 const struct agg_trace *st, const struct stat_cg *cg, bool json,
		 bool human, __u64 stuck_ns)
{
	char line[512];

	char ts[64];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (json) {
		struct json j;

		json_init(&j, stdout);
		json_obj_open(&j, NULL);
		json_str(&j, "timestamp", ts);
		json_str(&j, "period", boot ? "boot" : "interval");
		json_f64(&j, "seconds", secs, 6);
		json_arr_open(&j, "devices");
		for (int i = 0; i < n; i++)
			json_row(&j, &rows[i], secs, st, cg, stuck_ns);
		json_arr_close(&j);
		if (st) {
			struct iolens_stat_counters lost;

			agg_trace_losses(st, &lost);
			json_u64(&j, "untracked_device_events", lost.no_slot);
			if (cg && cgroup_writeback_note())
				json_str(&j, "writeback_note", cgroup_writeback_note());
			json_u64(&j, "issue_stamps_missing", lost.no_stamp);
			json_u64(&j, "failures_not_by_status", lost.no_fail_key);
			json_u64(&j, "failures_timed_as_successes", lost.no_fail_mark);
			json_u64(&j, "completions_rescued", lost.rescued);
			if (agg_trace_by_hwq(st))
				json_u64(&j, "hwq_unknown_events", lost.no_hwq);
		}
		json_obj_close(&j);
		json_newline(&j);
	} else {
		print_header();
		for (int i = 0; i < n; i++)
			print_row(&rows[i], secs, human);
		for (int i = 0; i < n; i++)
			if (rows[i].d && rows[i].d->missed)
				printf("(%s: %llu completions were never delivered to iolens: its busy%% is unknown this time)\n",
				       rows[i].name, (unsigned long long)rows[i].d->missed);
		for (int i = 0; i < n; i++)
			if (rows[i].d && !rows[i].partition &&
			    agg_dev_stuck(rows[i].d, rows[i].name, stuck_ns, line, sizeof(line)))
				printf("%s\n", line);
		if (boot)
			printf("(since boot, from /proc/diskstats; iolens's own figures begin with the next report)\n");
		else if (n) {
			printf("\n");
			print_extras(rows, n, st);
			if (st && agg_trace_by_hwq(st))
				stat_hwq_print(rows, n, secs);
			if (cg)
				stat_cg_print(cg, rows, n, secs);
		}
		printf("\n");
	}
	fflush(stdout);
}
