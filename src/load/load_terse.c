// SPDX-License-Identifier: GPL-2.0
/*
 * fio's terse (--minimal) report, as fio 3.33's show_thread_status_terse_
 * all() writes it: a line of ';'-separated fields a job (or group), for
 * the scripts that read fio's.  Version 3 (the default) has read and
 * write, 2, 4 and 5 trim too, 5 also each direction's bw sample count and
 * IOPS samples; 3 and up end with the disks' counters.
 */
#include <stdbool.h>
#include <stdio.h>
#include "lib/log.h"
#include "lib/hist.h"
#include "load/load.h"
#include "load/report.h"

#define TERSE_PCTS 20	/* fio's FIO_IO_U_LIST_MAX_LEN: the rest "0%=0" */

/* min;max;mean;stddev in us (min and max truncated), or zeros. */
static void lat_us(FILE *f, const struct load_lat *l)
{
	if (!l->n) {
		fprintf(f, ";0;0;%f;%f", 0.0, 0.0);
		return;
	}
	fprintf(f, ";%llu;%llu;%f;%f", (unsigned long long)(l->min / 1000),
		(unsigned long long)(l->max / 1000), load_lat_mean(l) / 1000,
		load_lat_stddev(l) / 1000);
}

static void dir_terse(FILE *f, const struct load_stats *st, int d, __u64 agg,
		      unsigned int version)
{
	const struct load_dir_stats *ds = &st->dir[d];
	__u64 ms = ds->ios ? (st->runtime_ns + 500000) / 1000000 : 0;
	const struct load_rate *bw = &ds->bw_rate, *io = &ds->iops_rate;
	unsigned int i = 0;
	bool over;
	__u64 v;

	fprintf(f, ";%llu;%llu;%llu;%llu", (unsigned long long)(ds->bytes >> 10),
		(unsigned long long)(ms ? 1000 * ds->bytes / ms / 1024 : 0),
		(unsigned long long)(ms ? 1000 * ds->ios / ms : 0), (unsigned long long)ms);
	lat_us(f, &ds->slat);
	lat_us(f, &ds->clat);
	for (; ds->clat.n && i < LOAD_NPCTS; i++) {
		if (!hist_percentile(ds->clat_hist, load_pcts[i], &v, &over))
			break;
		fprintf(f, ";%f%%=%llu", load_pcts[i], (unsigned long long)(v / 1000));
	}
	for (; i < TERSE_PCTS; i++)
		fputs(";0%=0", f);
	lat_us(f, &ds->lat);
	if (bw->n) {
		double of_agg = agg / 1024 ? bw->mean * 100 / (double)(agg / 1024) : 100.0;

		fprintf(f, ";%llu;%llu;%f%%;%f;%f", (unsigned long long)bw->min,
			(unsigned long long)bw->max, of_agg > 100 ? 100.0 : of_agg, bw->mean,
			load_rate_dev(bw));
	} else {
		fprintf(f, ";0;0;%f%%;%f;%f", 0.0, 0.0, 0.0);
	}
	if (version != 5)
		return;
	fprintf(f, ";%llu", (unsigned long long)bw->n);
	if (io->n)
		fprintf(f, ";%llu;%llu;%f;%f;%llu", (unsigned long long)io->min,
			(unsigned long long)io->max, io->mean, load_rate_dev(io),
			(unsigned long long)io->n);
	else
		fprintf(f, ";0;0;%f;%f;0", 0.0, 0.0);
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static void job_terse(FILE *f, const struct load_result *r, const __u64 *agg,
		      unsigned int version, struct load_disks *disks)
{
	const struct load_stats *st = &r->st;
	double lat[12];
	__u64 nd = 0, ns = 0;

	if (version == 2)
		fprintf(f, "2;%s;%d;%d", log_name(r->o->name), r->groupid, st->error);
	else
		fprintf(f, "%u;iolens-%s;%s;%d;%d", version, IOLENS_VERSION, log_name(r->o->name),
			r->groupid, st->error);
	for (int d = 0; d < LOAD_DIRS; d++) {
		if (d != LOAD_TRIM || version != 3)
			dir_terse(f, st, d, agg[d], version);
	}
	fprintf(f, ";%f%%;%f%%;%llu;%llu;%llu", pct(st->usr_ns, st->thread_ns),
		pct(st->sys_ns, st->thread_ns), (unsigned long long)st->ctx,
		(unsigned long long)st->majf, (unsigned long long)st->minf);
	for (int i = 0; i < LOAD_DEPTH_BUCKETS; i++)
		nd += st->depth[i];
	for (int i = 0; i < LOAD_DEPTH_BUCKETS; i++)
		fprintf(f, ";%3.1f%%", pct(st->depth[i], nd));
	/* fio's: the ns buckets added to the first us one. */
	for (int i = 0; i < 10; i++)
		ns += st->lat_dist[LOAD_LAT_NS + i];
	load_lat_pcts(st, LOAD_LAT_US, 10, lat);
	lat[0] += pct(ns, st->dir[0].ios + st->dir[1].ios + st->dir[2].ios);
	for (int i = 0; i < 10; i++)
		fprintf(f, ";%3.2f%%", lat[i]);
	load_lat_pcts(st, LOAD_LAT_MS, 12, lat);
	for (int i = 0; i < 12; i++)
		fprintf(f, ";%3.2f%%", lat[i]);
	if (version >= 3)
		load_disks_terse(disks, f);
	if (r->o->description && *r->o->description)
		fprintf(f, "%s;%s", version == 2 ? "\n" : "", r->o->description);
	fputc('\n', f);
}

void load_report_terse(FILE *f, const struct load_result *r, int n,
		       unsigned int version, struct load_disks *disks)
{
	__u64 agg[LOAD_DIRS];

	for (int i = 0; i < n; i++) {
		for (int d = 0; d < LOAD_DIRS; d++)
			agg[d] = load_group_agg(r, n, r[i].groupid, d);
		job_terse(f, &r[i], agg, version, disks);
	}
}
