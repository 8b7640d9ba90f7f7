// SPDX-License-Identifier: GPL-2.0
/*
 * --sweep: what drvperf measured and fio does not, on one job.
 *
 *   iodepth  the job at queue depth 1, 2, 4, 8... (time-based steps of
 *            --runtime, 1 s if not given) until two depths in a row bring
 *            less than 5% more IOPS than the best so far, or the largest
 *            depth (the job's --iodepth if given, else 256) is done.  The
 *            best depth is drvperf's: the largest T*L/(0.2*T + 0.8*L) with
 *            T the IOPS and L = 1/p90 completion latency, each over its
 *            maximum in the sweep, so that a depth buying a little
 *            throughput with much latency does not win.
 *   zones    N (16) sequential read probes at evenly spaced offsets: zone
 *            i starts at offset + i * (size / N) rounded down to --bs and
 *            reads min(8 MiB, the zone) from there; MB/s of each, min, avg
 *            and max, and where the min and max were.
 *
 * Defaults the job does not set: random reads, io_uring and O_DIRECT for
 * iodepth; sequential reads of 1 MiB with O_DIRECT for zones.  A job that
 * says write writes, after the usual checks of load_target.c.  Each step
 * is one job thread from load_job.c, so its counts are those of a normal
 * run: the I/Os of the steps add up to what the device saw.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "load/engine.h"
#include "lib/hist.h"
#include "load/job.h"
#include "lib/json.h"
#include "load/load.h"
#include "lib/log.h"
#include "load/opts.h"
#include "load/report.h"
#include "lib/stop.h"
#include "load/sweep.h"
#include "load/target.h"

#define CMD LOAD_CMD

#define DEPTH_CAP	256
#define GAIN		1.05	/* less than this over the best: no gain */
#define NO_GAIN_STEPS	2
#define ZONES		16
#define MAX_ZONES	1024
#define PROBE_BYTES	(8ULL << 20)

struct step {
	unsigned int depth;	/* iodepth sweep */
	__u64 offset, len;	/* zones sweep */
	__u64 ios, bytes, runtime_ns;
	__u64 p90, p99;		/* completion latency, ns */
	double clat_mean, iops, rank;
};

struct sweep {
	bool zones;
	unsigned int nzones;
	struct load_job_opts o;	/* the job with the sweep's defaults */
	struct load_target t;
	struct step *steps;
	int n;
	int best;
	const char *stopped;
};

static bool given(const struct load_jobs *js, const char *name)
{
	const struct load_job_opts *os[] = { &js->v[0], &js->global };

	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < os[k]->ngiven; i++) {
			if (!strcmp(os[k]->given[i].name, name))
				return true;
		}
	}
	return false;
}

static int setup(struct load_jobs *js, struct sweep *sw)
{
	struct load_job_opts *o = &sw->o;
	const char *what = js->global.sweep;
	bool rw_given = given(js, "rw") || given(js, "readwrite");
	char *end;

	if (js->n != 1 || js->v[0].numjobs != 1)
		return usage_err(CMD, "--sweep runs one job of one thread, not %d jobs (numjobs=%u)",
				 js->n, js->v[0].numjobs);
	*o = js->v[0];
	if (o->ioengine->diskless)
		return usage_err(CMD, "--sweep measures a device or file: not with --ioengine=%s",
				 o->ioengine->name);
	if (!given(js, "direct"))
		o->direct = true;
	if (!strcmp(what, "iodepth")) {
		if (!rw_given)
			o->rw = LOAD_RW_RANDREAD;
		if (!given(js, "ioengine"))
			o->ioengine = load_engine_find("io_uring");
		if (o->ioengine->sync)
			return usage_err(CMD, "--sweep=iodepth needs a queue: --ioengine=io_uring, libaio or posixaio, not %s",
					 o->ioengine->name);
		if (!given(js, "iodepth"))
			o->iodepth = DEPTH_CAP;
		if (!o->runtime_ns)
			o->runtime_ns = 1000000000ULL;
		o->time_based = true;
		return 0;
	}
	if (strncmp(what, "zones", 5) || (what[5] && what[5] != ':'))
		return usage_err(CMD, "--sweep=%s: say iodepth or zones (zones:N for N zones)", what);
	sw->zones = true;
	sw->nzones = ZONES;
	if (what[5]) {
		errno = 0;
		sw->nzones = strtoul(what + 6, &end, 10);
		if (errno || *end || end == what + 6 || sw->nzones < 2 ||
		    sw->nzones > MAX_ZONES)
			return usage_err(CMD, "--sweep=%s: N must be from 2 to %d", what, MAX_ZONES);
	}
	if (rw_given && o->rw != LOAD_RW_READ && o->rw != LOAD_RW_WRITE)
		return usage_err(CMD, "--sweep=zones reads or writes sequentially: --rw=read or write, not %s",
				 load_rw_name(o->rw));
	if (!given(js, "bs"))
		o->bs = 1 << 20;
	o->time_based = false;
	o->runtime_ns = 0;
	return 0;
}

/* One step: one job thread as a normal run has, to its end. */
static int run_step(const struct load_job_opts *o, const struct load_target *t,
		    struct load_stats *st)
{
	struct load_file file = { .target = t, .size = o->size };
	struct load_thread th = { .o = o, .target = t, .files = &file, .nfiles = 1 };
	char why[200];
	sigset_t block, old;
	int rc = 0;

	th.eng = o->ioengine;
	file.fd = load_target_open(o, t, why, sizeof(why));
	if (file.fd < 0) {
		pr_err("%s: %s", log_name(o->filename), why);
		return 1;
	}
	/* As in a normal run: only this thread sees SIGINT and the like. */
	stop_signals(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (pthread_create(&th.tid, NULL, load_thread_run, &th)) {
		pr_err("cannot start a thread: %s", strerror(errno));
		rc = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!rc)
		pthread_join(th.tid, NULL);
	*st = th.st;
	/* A step's figures are its totals, none by priority. */
	load_stats_free(st);
	close(file.fd);
	load_thread_free(&th);
	return rc ? rc : st->error ? 1 : 0;
}

static void fill_step(struct step *s, const struct load_stats *st)
{
	__u64 hist[HIST_BUCKETS] = {};
	__u64 lat_sum = 0, lat_n = 0;
	bool over;

	for (int d = 0; d < LOAD_DIRS; d++) {
		s->ios += st->dir[d].ios;
		s->bytes += st->dir[d].bytes;
		lat_sum += st->dir[d].clat.sum;
		lat_n += st->dir[d].clat.n;
		hist_add(hist, st->dir[d].clat_hist);
	}
	s->runtime_ns = st->runtime_ns;
	s->iops = st->runtime_ns ? s->ios * 1e9 / st->runtime_ns : 0;
	s->clat_mean = lat_n ? (double)lat_sum / lat_n : 0;
	if (!hist_percentile(hist, 90, &s->p90, &over))
		s->p90 = 0;
	if (!hist_percentile(hist, 99, &s->p99, &over))
		s->p99 = 0;
}

static int sweep_depths(struct sweep *sw)
{
	unsigned int cap = sw->o.iodepth, no_gain = 0;
	double best_iops = 0;
	int rc = 0;

	sw->stopped = "interrupted";
	for (unsigned int depth = 1; depth <= cap && !stop_requested(); depth *= 2) {
		struct step *s = &sw->steps[sw->n];
		struct load_job_opts o = sw->o;
		struct load_stats st;

		o.iodepth = depth;
		rc = run_step(&o, &sw->t, &st);
		s->depth = depth;
		fill_step(s, &st);
		sw->n++;
		if (rc) {
			sw->stopped = "an error";
			break;
		}
		if (stop_requested())
			break;
		no_gain = s->iops < GAIN * best_iops ? no_gain + 1 : 0;
		if (s->iops > best_iops)
			best_iops = s->iops;
		if (no_gain == NO_GAIN_STEPS) {
			sw->stopped = "two depths in a row under 5% more IOPS than the best";
			break;
		}
		if (depth * 2 > cap) {
			sw->stopped = "the largest depth";
			break;
		}
	}
	return rc;
}

/* drvperf's rank of each depth; the best is the first of the largest. */
static void rank_depths(struct sweep *sw)
{
	double max_iops = 0, max_inv = 0;

	for (int i = 0; i < sw->n; i++) {
		const struct step *s = &sw->steps[i];

		if (s->iops > max_iops)
			max_iops = s->iops;
		if (s->p90 && 1.0 / s->p90 > max_inv)
			max_inv = 1.0 / s->p90;
	}
	sw->best = -1;
	for (int i = 0; i < sw->n; i++) {
		struct step *s = &sw->steps[i];
		double T = max_iops ? s->iops / max_iops : 0;
		double L = s->p90 && max_inv ? (1.0 / s->p90) / max_inv : 0;

		s->rank = T + L > 0 ? T * L / (0.2 * T + 0.8 * L) : 0;
		if (sw->best < 0 || s->rank > sw->steps[sw->best].rank)
			sw->best = i;
	}
}

static int sweep_zones(struct sweep *sw)
{
	__u64 bs = sw->o.bs, zone = sw->o.size / sw->nzones / bs * bs, len;
	int rc = 0;

	if (!zone) {
		fprintf(stderr, "iolens load: %s: %llu bytes are too few for %u zones of --bs=%llu\n",
			log_name(sw->o.filename), (unsigned long long)sw->o.size, sw->nzones,
			(unsigned long long)bs);
		return 2;
	}
	len = PROBE_BYTES / bs * bs;
	if (!len || len > zone)
		len = zone;
	sw->stopped = "interrupted";
	for (unsigned int i = 0; i < sw->nzones && !stop_requested(); i++) {
		struct step *s = &sw->steps[sw->n];
		struct load_job_opts o = sw->o;
		struct load_stats st;

		o.offset = sw->o.offset + i * zone;
		o.size = len;
		rc = run_step(&o, &sw->t, &st);
		s->offset = o.offset;
		s->len = len;
		fill_step(s, &st);
		sw->n++;
		if (rc) {
			sw->stopped = "an error";
			return rc;
		}
	}
	if (sw->n == (int)sw->nzones && !stop_requested())
		sw->stopped = "every zone";
	return 0;
}

static double mb_s(const struct step *s)
{
	return s->runtime_ns ? s->bytes * 1e3 / s->runtime_ns : 0;
}

struct zone_summary {
	int min, max;
	double avg;
};

static struct zone_summary zone_summary(const struct sweep *sw)
{
	struct zone_summary z = { 0, 0, 0 };

	for (int i = 0; i < sw->n; i++) {
		if (mb_s(&sw->steps[i]) < mb_s(&sw->steps[z.min]))
			z.min = i;
		if (mb_s(&sw->steps[i]) > mb_s(&sw->steps[z.max]))
			z.max = i;
		z.avg += mb_s(&sw->steps[i]);
	}
	if (sw->n)
		z.avg /= sw->n;
	return z;
}

static void lat_text(char *buf, size_t len, __u64 ns)
{
	if (ns < 1000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else
		snprintf(buf, len, "%.2f ms", ns / 1e6);
}

static void report_text(FILE *f, const struct sweep *sw)
{
	const struct load_job_opts *o = &sw->o;

	if (!sw->zones) {
		fprintf(f, "iodepth sweep of %s: %s, bs=%llu, %s, direct=%d, %.0f ms per depth\n",
			o->filename, load_rw_name(o->rw), (unsigned long long)o->bs,
			o->ioengine->name, o->direct, o->runtime_ns / 1e6);
		fprintf(f, "%7s %12s %10s %12s %12s %7s\n", "depth", "IOPS", "MB/s",
			"clat p90", "clat p99", "rank");
		for (int i = 0; i < sw->n; i++) {
			const struct step *s = &sw->steps[i];
			char p90[32], p99[32];

			lat_text(p90, sizeof(p90), s->p90);
			lat_text(p99, sizeof(p99), s->p99);
			fprintf(f, "%7u %12.0f %10.1f %12s %12s %7.3f%s\n", s->depth,
				s->iops, mb_s(s), p90, p99, s->rank,
				i == sw->best ? "  <- best" : "");
		}
		if (sw->best >= 0)
			fprintf(f, "best depth: %u (largest T*L/(0.2*T + 0.8*L); T = IOPS / max IOPS, L = min p90 / p90)\n",
				sw->steps[sw->best].depth);
		fprintf(f, "stopped at: %s\n", sw->stopped);
		return;
	}
	fprintf(f, "zone sweep of %s: %u zones, %s of %llu bytes at each start, bs=%llu, %s, direct=%d\n",
		o->filename, sw->nzones, load_rw_name(o->rw),
		sw->n ? (unsigned long long)sw->steps[0].len : 0ULL,
		(unsigned long long)o->bs, o->ioengine->name, o->direct);
	fprintf(f, "%5s %16s %10s\n", "zone", "offset", "MB/s");
	for (int i = 0; i < sw->n; i++)
		fprintf(f, "%5d %16llu %10.1f\n", i,
			(unsigned long long)sw->steps[i].offset, mb_s(&sw->steps[i]));
	if (sw->n) {
		struct zone_summary z = zone_summary(sw);

		fprintf(f, "min %.1f MB/s at offset %llu, avg %.1f MB/s, max %.1f MB/s at offset %llu\n",
			mb_s(&sw->steps[z.min]), (unsigned long long)sw->steps[z.min].offset,
			z.avg, mb_s(&sw->steps[z.max]),
			(unsigned long long)sw->steps[z.max].offset);
	}
	fprintf(f, "stopped at: %s\n", sw->stopped);
}

static void report_json(FILE *f, const struct sweep *sw)
{
	const struct load_job_opts *o = &sw->o;
	struct json j;

	json_init(&j, f);
	json_obj_open(&j, NULL);
	json_str(&j, "iolens version", IOLENS_VERSION);
	json_str(&j, "sweep", sw->zones ? "zones" : "iodepth");
	json_str(&j, "jobname", o->name);
	json_str(&j, "filename", o->filename);
	json_str(&j, "rw", load_rw_name(o->rw));
	json_u64(&j, "bs", o->bs);
	json_str(&j, "ioengine", o->ioengine->name);
	json_u64(&j, "direct", o->direct);
	if (!sw->zones)
		json_u64(&j, "step_runtime_ns", o->runtime_ns);
	else
		json_u64(&j, "zone_count", sw->nzones);
	json_arr_open(&j, sw->zones ? "zones" : "steps");
	for (int i = 0; i < sw->n; i++) {
		const struct step *s = &sw->steps[i];

		json_obj_open(&j, NULL);
		if (sw->zones) {
			json_u64(&j, "zone", i);
			json_u64(&j, "offset", s->offset);
			json_u64(&j, "length", s->len);
		} else {
			json_u64(&j, "iodepth", s->depth);
		}
		json_u64(&j, "ios", s->ios);
		json_u64(&j, "io_bytes", s->bytes);
		json_u64(&j, "runtime_ns", s->runtime_ns);
		json_f64(&j, "iops", s->iops, 3);
		json_f64(&j, "mb_per_s", mb_s(s), 3);
		json_f64(&j, "clat_mean_ns", s->clat_mean, 1);
		json_u64(&j, "clat_p90_ns", s->p90);
		json_u64(&j, "clat_p99_ns", s->p99);
		if (!sw->zones)
			json_f64(&j, "rank", s->rank, 6);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	if (!sw->zones && sw->best >= 0)
		json_u64(&j, "best_iodepth", sw->steps[sw->best].depth);
	if (sw->zones && sw->n) {
		struct zone_summary z = zone_summary(sw);

		json_f64(&j, "min_mb_per_s", mb_s(&sw->steps[z.min]), 3);
		json_u64(&j, "min_offset", sw->steps[z.min].offset);
		json_f64(&j, "avg_mb_per_s", z.avg, 3);
		json_f64(&j, "max_mb_per_s", mb_s(&sw->steps[z.max]), 3);
		json_u64(&j, "max_offset", sw->steps[z.max].offset);
	}
	json_str(&j, "stopped_at", sw->stopped);
	json_obj_close(&j);
	json_newline(&j);
}

int load_sweep_run(struct load_jobs *js)
{
	struct sweep sw = {};
	struct outfile of = { .dirfd = -1 };
	FILE *out = stdout;
	int rc, claim = -1;

	rc = setup(js, &sw);
	if (rc)
		return rc;
	rc = load_target_prepare(&sw.o, &sw.t);
	if (rc)
		return rc;
	rc = load_target_claim(&sw.o, &sw.t, &claim);
	if (rc)
		return rc;
	sw.steps = calloc(sw.zones ? sw.nzones : 32, sizeof(*sw.steps));
	if (!sw.steps) {
		pr_err("out of memory");
		rc = 1;
		goto out;
	}
	rc = load_output_open(&js->global, &of);
	if (rc)
		goto out;
	out = of.f;
	stop_catch();
	if (sw.zones) {
		rc = sweep_zones(&sw);
	} else {
		rc = sweep_depths(&sw);
		rank_depths(&sw);
	}
	if (rc != 2) {
		/* Its own report, but in fio's order of formats (terse
		 * has no sweep form: the text stands for it). */
		if (js->global.format & LOAD_FMT_JSON)
			report_json(out, &sw);
		if (js->global.format & ~LOAD_FMT_JSON)
			report_text(out, &sw);
	}
out:
	rc |= load_output_close(&of);
	if (claim >= 0)
		close(claim);
	free(sw.steps);
	return rc;
}
