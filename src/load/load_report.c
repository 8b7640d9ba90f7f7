// SPDX-License-Identifier: GPL-2.0
/*
 * The reports of iolens load, in fio's shapes: the normal text a fio user
 * reads, and the JSON with fio's field names and units (bw in KiB/s,
 * runtime in ms, latencies in ns), so that scripts written against fio's
 * JSON read ours unchanged.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/hist.h"
#include "lib/json.h"
#include "load/load.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "load/report.h"
#include "load/steady.h"

static const char *const dir_upper[LOAD_DIRS] = { "READ", "WRITE", "TRIM" };
static const char *const depth_names[LOAD_DEPTH_BUCKETS] = {
	"1", "2", "4", "8", "16", "32", ">=64",
};

static double per_s(__u64 v, __u64 ns)
{
	return ns ? (double)v * 1e9 / ns : 0;
}

/*
 * fio's num2str: at most four digits before the unit, a decimal only when
 * scaled and there is room ("207k", "12.3k", "1234", "48.2MiB").
 */
void load_num2str(char *buf, size_t len, double v, int base,
		  const char *const *units)
{
	int u = 0, digits;

	while (v >= 10000 && units[u + 1]) {
		v /= base;
		u++;
	}
	digits = v >= 1000 ? 4 : v >= 100 ? 3 : v >= 10 ? 2 : 1;
	if (u && digits < 3)
		snprintf(buf, len, "%.*f%s", 3 - digits, v, units[u]);
	else
		snprintf(buf, len, "%.0f%s", v, units[u]);
}

const char *const load_iops_units[] = { "", "k", "M", "G", "T", NULL };
const char *const load_bin_units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", NULL };
static const char *const dec_units[] = { "B", "kB", "MB", "GB", "TB", "PB", NULL };

static void bw_pair(char *buf, size_t len, double bytes_s)
{
	char b[32], d[32];

	load_num2str(b, sizeof(b), bytes_s, 1024, load_bin_units);
	load_num2str(d, sizeof(d), bytes_s, 1000, dec_units);
	snprintf(buf, len, "%s/s (%s/s)", b, d);
}

/* fio shows latencies in nsec until they are large and spread enough
 * for usec, and likewise for msec. */
static void show_lat(FILE *f, const char *name, const struct load_lat *l)
{
	double min = l->min, max = l->max, mean = load_lat_mean(l), dev = load_lat_stddev(l);
	const char *unit = "nsec";

	if (!l->n)
		return;
	if (min > 2000000 && max > 99999999 && dev > 1000000.0) {
		unit = "msec";
		min /= 1e6, max /= 1e6, mean /= 1e6, dev /= 1e6;
	} else if (min > 2000 && max > 99999 && dev > 1000.0) {
		unit = "usec";
		min /= 1e3, max /= 1e3, mean /= 1e3, dev /= 1e3;
	}
	fprintf(f, "    %4s (%s): min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f\n",
		name, unit, min, max, mean, dev);
}

static void show_pcts(FILE *f, const char *title, const __u64 *hist)
{
	__u64 v[LOAD_NPCTS];
	unsigned int scale = 0;
	const char *unit = "nsec";
	bool over;

	for (size_t i = 0; i < LOAD_NPCTS; i++) {
		if (!hist_percentile(hist, load_pcts[i], &v[i], &over))
			return;
	}
	/* The unit of the smallest: none shows as 0 for being under it. */
	if (v[0] >= 1000000) {
		scale = 1000000, unit = "msec";
	} else if (v[0] >= 1000) {
		scale = 1000, unit = "usec";
	}
	fprintf(f, "    %s percentiles (%s):\n", title, unit);
	for (size_t i = 0; i < LOAD_NPCTS; i++) {
		fprintf(f, "%s%5.2fth=[%5llu]%s", i % 4 ? " " : "     | ",
			load_pcts[i], (unsigned long long)(scale ? v[i] / scale : v[i]),
			i == LOAD_NPCTS - 1 ? "\n" : i % 4 == 3 ? ",\n" : ",");
	}
}

/*
 * The aggregate bandwidth of a group (stonewall, new_group) in a
 * direction, in bytes/s as fio's rs->agg: all its bytes over its longest
 * runtime in ms.
 */
__u64 load_group_agg(const struct load_result *r, int n, int groupid, int d)
{
	__u64 bytes = 0, max_ms = 0, ms;

	for (int i = 0; i < n; i++) {
		if (r[i].groupid != groupid || !r[i].st.dir[d].ios)
			continue;
		bytes += r[i].st.dir[d].bytes;
		ms = (r[i].st.runtime_ns + 500000) / 1000000;
		max_ms = ms > max_ms ? ms : max_ms;
	}
	return max_ms ? bytes * 1000 / max_ms : 0;
}

/* fio's "per": the job's mean bw sample (KiB/s, truncated as fio's int)
 * as a share of the group's aggregate, at most 100. */
static double bw_per(const struct load_rate *bw, __u64 agg)
{
	double p;

	if (agg <= 1024)
		return 100.0;
	p = (int)bw->mean * 100.0 / (agg / 1024.0);
	return p > 100 ? 100 : p;
}

static void show_rates(FILE *f, const struct load_dir_stats *ds, __u64 agg)
{
	const struct load_rate *bw = &ds->bw_rate, *io = &ds->iops_rate;
	unsigned long long min = bw->min, max = bw->max;
	double mean = bw->mean, dev = load_rate_dev(bw);
	const char *unit = "KiB";

	if (bw->n) {
		/* fio turns to MiB/s above 1 GiB/s; min and max truncated */
		if (mean > 1024.0 * 1024.0) {
			min = min / 1024.0;
			max = max / 1024.0;
			mean /= 1024;
			dev /= 1024;
			unit = "MiB";
		}
		fprintf(f, "   bw (%5s/s): min=%5llu, max=%5llu, per=%3.2f%%, avg=%5.02f, stdev=%5.02f, samples=%llu\n",
			unit, min, max, bw_per(bw, agg), mean, dev,
			(unsigned long long)bw->n);
	}
	if (io->n)
		fprintf(f, "   iops        : min=%5llu, max=%5llu, avg=%5.02f, stdev=%5.02f, samples=%llu\n",
			(unsigned long long)io->min, (unsigned long long)io->max,
			io->mean, load_rate_dev(io), (unsigned long long)io->n);
}

/* The priorities of direction d with samples in turn, *i from 0; NULL
 * after the last. */
static const struct load_prio_stats *prio_next(const struct load_stats *st, int d,
					       unsigned int *i)
{
	while (*i < st->nprios) {
		const struct load_prio_stats *p = &st->prios[(*i)++];

		if (p->dir == d && p->clat.n)
			return p;
	}
	return NULL;
}

/* fio's clat per priority shows where two priorities or more of the
 * direction have samples. */
static bool by_prio(const struct load_stats *st, int d)
{
	unsigned int i = 0;

	return prio_next(st, d, &i) && prio_next(st, d, &i);
}

/* "clat prio 1/0", with ios the share of the direction's I/Os. */
static void prio_name(char *buf, size_t len, const struct load_prio_stats *p, __u64 ios)
{
	int n = snprintf(buf, len, "clat prio %u/%u", p->ioprio >> 13, p->ioprio & 7);

	if (ios && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (%.2f%% of IOs)", 100.0 * p->clat.n / ios);
}

static void show_dir(FILE *f, const struct load_stats *st, int d, __u64 agg)
{
	const struct load_dir_stats *ds = &st->dir[d];
	const struct load_prio_stats *p;
	char iops[32], bw[80], io[32], name[64];

	if (!ds->ios)
		return;
	load_num2str(iops, sizeof(iops), per_s(ds->ios, st->runtime_ns), 1000, load_iops_units);
	bw_pair(bw, sizeof(bw), per_s(ds->bytes, st->runtime_ns));
	load_num2str(io, sizeof(io), ds->bytes, 1024, load_bin_units);
	fprintf(f, "  %s: IOPS=%s, BW=%s(%s/%llumsec)\n", load_dir_name(d), iops, bw,
		io, (unsigned long long)((st->runtime_ns + 500000) / 1000000));
	show_lat(f, "slat", &ds->slat);
	show_lat(f, "clat", &ds->clat);
	show_lat(f, "lat", &ds->lat);
	for (unsigned int i = 0; by_prio(st, d) && (p = prio_next(st, d, &i));) {
		prio_name(name, sizeof(name), p, 0);
		show_lat(f, name, &p->clat);
	}
	show_pcts(f, "clat", ds->clat_hist);
	for (unsigned int i = 0; by_prio(st, d) && (p = prio_next(st, d, &i));) {
		prio_name(name, sizeof(name), p, ds->ios);
		show_pcts(f, name, p->hist);
	}
	show_rates(f, ds, agg);
}

static double pct_of(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static __u64 depth_total(const struct load_stats *st)
{
	__u64 n = 0;

	for (int i = 0; i < LOAD_DEPTH_BUCKETS; i++)
		n += st->depth[i];
	return n;
}

static const struct {
	const char *unit;
	int first, n;
} lat_units[] = {
	{ "nsec", LOAD_LAT_NS, 10 }, { "usec", LOAD_LAT_US, 10 }, { "msec", LOAD_LAT_MS, 12 },
};

/* fio's "lat (usec)   : 2=0.01%, ..." lines: the buckets with I/Os, five
 * a line. */
static void show_lat_dist(FILE *f, const struct load_stats *st)
{
	double pct[12];

	for (size_t u = 0; u < sizeof(lat_units) / sizeof(lat_units[0]); u++) {
		int shown = 0;

		load_lat_pcts(st, lat_units[u].first, lat_units[u].n, pct);
		for (int i = 0; i < lat_units[u].n; i++) {
			if (pct[i] <= 0)
				continue;
			if (shown % 5 == 0)
				fprintf(f, "%s  lat (%s)   : ", shown ? "\n" : "", lat_units[u].unit);
			fprintf(f, "%s%s=%3.2f%%", shown % 5 ? ", " : "", load_lat_names[i], pct[i]);
			shown++;
		}
		if (shown)
			fputc('\n', f);
	}
}

/* fio's steady state line: the means of the ring and the criterion. */
static void show_steady(FILE *f, const struct load_steady *ss)
{
	char bw[80], iops[32];

	bw_pair(bw, sizeof(bw), load_steady_mean(ss, false));
	load_num2str(iops, sizeof(iops), load_steady_mean(ss, true), 1000, load_iops_units);
	fprintf(f, "  steadystate  : attained=%s, bw=%s, iops=%s, %s%s=%.3f%s\n",
		ss->attained ? "yes" : "no", bw, iops, ss->flags & LOAD_SS_IOPS ? "iops" : "bw",
		ss->flags & LOAD_SS_SLOPE ? " slope" : " mean dev", ss->criterion,
		ss->flags & LOAD_SS_PCT ? "%" : "");
}

static void show_job(FILE *f, const struct load_result *r, const __u64 *agg)
{
	const struct load_stats *st = &r->st;
	__u64 nd = depth_total(st);
	char when[64];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", localtime(&now));
	fprintf(f, "%s: (groupid=%d, jobs=%u): err=%2d: pid=%d: %s\n",
		log_name(r->o->name), r->groupid, r->nthreads, st->error, (int)getpid(), when);
	for (int d = 0; d < LOAD_DIRS; d++)
		show_dir(f, st, d, agg[d]);
	show_lat_dist(f, st);
	/* Of the summed run time of the threads, as fio's: a group of two
	 * busy threads is at 100%, not 200%. */
	fprintf(f, "  cpu          : usr=%.2f%%, sys=%.2f%%, ctx=%llu, majf=%llu, minf=%llu\n",
		pct_of(st->usr_ns, st->thread_ns), pct_of(st->sys_ns, st->thread_ns),
		(unsigned long long)st->ctx, (unsigned long long)st->majf,
		(unsigned long long)st->minf);
	fprintf(f, "  IO depths    :");
	for (int i = 0; i < LOAD_DEPTH_BUCKETS; i++)
		fprintf(f, " %s=%.1f%%%s", depth_names[i], pct_of(st->depth[i], nd),
			i < LOAD_DEPTH_BUCKETS - 1 ? "," : "\n");
	fprintf(f, "     issued rwts: total=%llu,%llu,%llu,0 short=%llu,%llu,%llu,0 dropped=0,0,0,0\n",
		(unsigned long long)st->dir[0].ios, (unsigned long long)st->dir[1].ios,
		(unsigned long long)st->dir[2].ios,
		(unsigned long long)st->dir[0].short_ios,
		(unsigned long long)st->dir[1].short_ios,
		(unsigned long long)st->dir[2].short_ios);
	/* fio's line of every job: latency_target in ns, its window in us. */
	fprintf(f, "     latency   : target=%llu, window=%llu, percentile=%.2f%%, depth=%u\n",
		(unsigned long long)r->o->latency_target_ns,
		(unsigned long long)(r->o->latency_window_ns / 1000), r->o->latency_pct,
		st->latency_depth);
	if (r->ss)
		show_steady(f, r->ss);
	fputc('\n', f);
}

/* "Run status group": aggregate bandwidth over the longest runtime, and
 * the slowest and fastest job. */
static void show_group(FILE *f, const struct load_result *r, int n)
{
	fprintf(f, "Run status group %d (all jobs):\n", r->groupid);
	for (int d = 0; d < LOAD_DIRS; d++) {
		double lo = -1, hi = 0, bw;
		__u64 bytes = 0, rmin = ~0ULL, rmax = 0;
		char agg[80], a[32], b[32], c[32], e[32], io[32], iod[32];

		for (int i = 0; i < n; i++) {
			const struct load_stats *st = &r[i].st;

			if (!st->dir[d].ios)
				continue;
			bw = per_s(st->dir[d].bytes, st->runtime_ns);
			lo = lo < 0 || bw < lo ? bw : lo;
			hi = bw > hi ? bw : hi;
			bytes += st->dir[d].bytes;
			rmin = st->runtime_ns < rmin ? st->runtime_ns : rmin;
			rmax = st->runtime_ns > rmax ? st->runtime_ns : rmax;
		}
		if (lo < 0)
			continue;
		bw_pair(agg, sizeof(agg), per_s(bytes, rmax));
		load_num2str(a, sizeof(a), lo, 1024, load_bin_units);
		load_num2str(b, sizeof(b), hi, 1024, load_bin_units);
		load_num2str(c, sizeof(c), lo, 1000, dec_units);
		load_num2str(e, sizeof(e), hi, 1000, dec_units);
		load_num2str(io, sizeof(io), bytes, 1024, load_bin_units);
		load_num2str(iod, sizeof(iod), bytes, 1000, dec_units);
		fprintf(f, "%7s: bw=%s, %s/s-%s/s (%s/s-%s/s), io=%s (%s), run=%llu-%llumsec\n",
			dir_upper[d], agg, a, b, c, e, io, iod,
			(unsigned long long)((rmin + 500000) / 1000000),
			(unsigned long long)((rmax + 500000) / 1000000));
	}
}

void load_report_normal(FILE *f, const struct load_result *r, int n,
			struct load_disks *disks)
{
	__u64 agg[LOAD_DIRS];

	for (int i = 0; i < n; i++) {
		for (int d = 0; d < LOAD_DIRS; d++)
			agg[d] = load_group_agg(r, n, r[i].groupid, d);
		show_job(f, &r[i], agg);
	}
	/* One status per group (stonewall, new_group); the results of a
	 * group are next to each other. */
	for (int i = 0, k; i < n; i = k) {
		for (k = i + 1; k < n && r[k].groupid == r[i].groupid;)
			k++;
		show_group(f, r + i, k - i);
	}
	load_disks_text(disks, f);
}

/* ---- JSON ---- */

static void json_lat(struct json *j, const char *key, const struct load_lat *l,
		     const __u64 *hist)
{
	char name[16];
	bool over;
	__u64 v;

	json_obj_open(j, key);
	json_u64(j, "min", l->n ? l->min : 0);
	json_u64(j, "max", l->max);
	json_f64(j, "mean", load_lat_mean(l), 6);
	json_f64(j, "stddev", load_lat_stddev(l), 6);
	json_u64(j, "N", l->n);
	/* fio has the percentiles only where there are samples. */
	if (hist && l->n) {
		json_obj_open(j, "percentile");
		for (size_t i = 0; i < LOAD_NPCTS; i++) {
			snprintf(name, sizeof(name), "%f", load_pcts[i]);
			if (hist_percentile(hist, load_pcts[i], &v, &over))
				json_u64(j, name, v);
		}
		json_obj_close(j);
	}
	json_obj_close(j);
}

static void json_rates(struct json *j, const struct load_dir_stats *ds,
		       __u64 agg)
{
	const struct load_rate *bw = &ds->bw_rate, *io = &ds->iops_rate;

	/* No samples: fio writes zeros. */
	json_u64(j, "bw_min", bw->n ? bw->min : 0);
	json_u64(j, "bw_max", bw->max);
	json_f64(j, "bw_agg", bw->n ? bw_per(bw, agg) : 0, 6);
	json_f64(j, "bw_mean", bw->mean, 6);
	json_f64(j, "bw_dev", load_rate_dev(bw), 6);
	json_u64(j, "bw_samples", bw->n);
	json_u64(j, "iops_min", io->n ? io->min : 0);
	json_u64(j, "iops_max", io->max);
	json_f64(j, "iops_mean", io->mean, 6);
	json_f64(j, "iops_stddev", load_rate_dev(io), 6);
	json_u64(j, "iops_samples", io->n);
}

static void json_dir(struct json *j, const struct load_stats *st, int d,
		     __u64 agg)
{
	const struct load_dir_stats *ds = &st->dir[d];
	__u64 ms = (st->runtime_ns + 500000) / 1000000;
	__u64 bw_bytes = (__u64)per_s(ds->bytes, st->runtime_ns);

	json_obj_open(j, load_dir_name(d));
	json_u64(j, "io_bytes", ds->bytes);
	json_u64(j, "io_kbytes", ds->bytes >> 10);
	json_u64(j, "bw_bytes", bw_bytes);
	json_u64(j, "bw", bw_bytes >> 10);
	json_f64(j, "iops", per_s(ds->ios, st->runtime_ns), 6);
	json_u64(j, "runtime", ds->ios ? ms : 0);
	json_u64(j, "total_ios", ds->ios);
	json_u64(j, "short_ios", ds->short_ios);
	json_u64(j, "drop_ios", 0);
	json_lat(j, "slat_ns", &ds->slat, NULL);
	json_lat(j, "clat_ns", &ds->clat, ds->clat_hist);
	json_lat(j, "lat_ns", &ds->lat, NULL);
	if (by_prio(st, d)) {
		const struct load_prio_stats *p;

		json_arr_open(j, "prios");
		for (unsigned int i = 0; (p = prio_next(st, d, &i));) {
			json_obj_open(j, NULL);
			json_u64(j, "prioclass", p->ioprio >> 13);
			json_u64(j, "prio", p->ioprio & 7);
			json_lat(j, "clat_ns", &p->clat, p->hist);
			json_obj_close(j);
		}
		json_arr_close(j);
	}
	json_rates(j, ds, agg);
	json_obj_close(j);
}

static void json_given(struct json *j, const char *key,
		       const struct load_job_opts *o)
{
	json_obj_open(j, key);
	for (int i = 0; i < o->ngiven; i++)
		json_str(j, o->given[i].name, o->given[i].value);
	json_obj_close(j);
}

/* fio's "steadystate": the criterion, and the ring's samples oldest
 * first (its head, or the one after it where fio's tail has moved on). */
static void json_steady(struct json *j, const struct load_steady *ss)
{
	const char *pct = ss->flags & LOAD_SS_PCT ? "%" : "";
	unsigned int first = ss->head;
	char text[64];

	if (!ss->attained && ss->full)
		first = ss->head ? ss->head - 1 : ss->dur - 1;
	json_obj_open(j, "steadystate");
	snprintf(text, sizeof(text), "%s%s:%f%s", ss->flags & LOAD_SS_IOPS ? "iops" : "bw",
		 ss->flags & LOAD_SS_SLOPE ? "_slope" : "", (float)ss->limit, pct);
	json_str(j, "ss", text);
	json_u64(j, "duration", ss->dur);
	json_u64(j, "attained", ss->attained);
	snprintf(text, sizeof(text), "%f%s", (float)ss->criterion, pct);
	json_str(j, "criterion", text);
	json_f64(j, "max_deviation", ss->deviation, 6);
	json_f64(j, "slope", ss->slope, 6);
	json_obj_open(j, "data");
	json_u64(j, "bw_mean", load_steady_mean(ss, false));
	json_u64(j, "iops_mean", load_steady_mean(ss, true));
	for (int k = 0; k < 2; k++) {
		json_arr_open(j, k ? "bw" : "iops");
		for (unsigned int i = 0; i < ss->dur; i++)
			json_u64(j, NULL, (k ? ss->bw : ss->iops)[(first + i) % ss->dur]);
		json_arr_close(j);
	}
	json_obj_close(j);
	json_obj_close(j);
}

static void json_job(struct json *j, const struct load_result *r,
		     const __u64 *agg)
{
	const struct load_stats *st = &r->st;
	__u64 nd = depth_total(st);

	json_obj_open(j, NULL);
	json_str(j, "jobname", r->o->name);
	json_u64(j, "groupid", r->groupid);
	json_i64(j, "error", st->error);
	if (r->o->description && *r->o->description)	/* where fio puts it */
		json_str(j, "desc", r->o->description);
	json_u64(j, "eta", 0);
	json_u64(j, "elapsed", (st->runtime_ns + 500000000) / 1000000000);
	json_given(j, "job options", r->o);
	for (int d = 0; d < LOAD_DIRS; d++)
		json_dir(j, st, d, agg[d]);
	/* Summed over the group's threads, as fio's. */
	json_u64(j, "job_runtime", (st->thread_ns + 500000) / 1000000);
	json_f64(j, "usr_cpu", pct_of(st->usr_ns, st->thread_ns), 6);
	json_f64(j, "sys_cpu", pct_of(st->sys_ns, st->thread_ns), 6);
	json_u64(j, "ctx", st->ctx);
	json_u64(j, "majf", st->majf);
	json_u64(j, "minf", st->minf);
	json_obj_open(j, "iodepth_level");
	for (int i = 0; i < LOAD_DEPTH_BUCKETS; i++)
		json_f64(j, depth_names[i], pct_of(st->depth[i], nd), 6);
	json_obj_close(j);
	for (size_t u = 0; u < sizeof(lat_units) / sizeof(lat_units[0]); u++) {
		char key[16];
		double pct[12];

		snprintf(key, sizeof(key), "latency_%.2s", lat_units[u].unit);
		load_lat_pcts(st, lat_units[u].first, lat_units[u].n, pct);
		json_obj_open(j, key);
		for (int i = 0; i < lat_units[u].n; i++)
			json_f64(j, load_lat_names[i], pct[i], 6);
		json_obj_close(j);
	}
	json_u64(j, "latency_depth", st->latency_depth);
	json_u64(j, "latency_target", r->o->latency_target_ns);
	json_f64(j, "latency_percentile", r->o->latency_pct, 6);
	json_u64(j, "latency_window", r->o->latency_window_ns / 1000);
	if (r->ss)
		json_steady(j, r->ss);
	json_obj_close(j);
}

void load_report_json(FILE *f, const struct load_result *r, int n,
		      const struct load_job_opts *global,
		      struct load_disks *disks)
{
	__u64 agg[LOAD_DIRS];
	struct timespec ts;
	char when[64];
	struct json j;

	clock_gettime(CLOCK_REALTIME, &ts);
	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", localtime(&ts.tv_sec));
	json_init(&j, f);
	json_obj_open(&j, NULL);
	json_str(&j, "fio version", "iolens-" IOLENS_VERSION);
	json_u64(&j, "timestamp", ts.tv_sec);
	json_u64(&j, "timestamp_ms", ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000);
	json_str(&j, "time", when);
	if (global->ngiven)
		json_given(&j, "global options", global);
	json_arr_open(&j, "jobs");
	for (int i = 0; i < n; i++) {
		for (int d = 0; d < LOAD_DIRS; d++)
			agg[d] = load_group_agg(r, n, r[i].groupid, d);
		json_job(&j, &r[i], agg);
	}
	json_arr_close(&j);
	load_disks_json(disks, &j);
	json_obj_close(&j);
	json_newline(&j);
}

int load_output_open(const struct load_job_opts *global, struct outfile *out)
{
	/* Its job files are not among what it may replace. */
	return outfile_begin(out, "load", global->output, NULL) ? 1 : 0;
}

int load_output_close(struct outfile *out)
{
	/* Kept when a job failed, as fio's: the report says what failed. */
	return outfile_end(out, "load", true) ? 1 : 0;
}
