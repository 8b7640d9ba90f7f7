// SPDX-License-Identifier: GPL-2.0
/*
 * iolens bench: run a load (iolens load's options or fio job files) and
 * trace it in the same command, then show the application's view (what the
 * load did and timed) beside the device's (the block requests it caused):
 * IOPS, bytes, sizes, latency, requests per I/O, queue depth, the reads its
 * writes caused (RMW), misaligned writes, write amplification, page-cache
 * hits.
 *
 * The load runs as threads of this process, so its requests are those
 * whose submitter is this process; writeback of its buffered writes is
 * done by the kernel's flusher threads, counted from the target disks
 * while the load runs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "bench/bench.h"
#include "lib/clock.h"
#include "trace/block_trace.h"
#include "trace/check_trace.h"
#include "lib/devices.h"
#include "lib/diskstats.h"
#include "lib/hist.h"
#include "lib/json.h"
#include "load/load.h"
#include "lib/log.h"
#include "trace/reqflags.h"
#include "trace/rqsum.h"
#include "lib/units.h"

#define CMD "bench"
#define MAX_DISKS 16

static const double pcts[] = { 50, 90, 99, 99.9 };
static const char *const pct_keys[] = { "p50", "p90", "p99", "p99.9" };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

struct bench {
	__u32 self;
	__u32 disks[MAX_DISKS];	/* the targets' whole disks */
	int ndisks;
	struct rqsum dev[LOAD_DIRS];	/* the device side, per direction */
	/* Requests of the load whose end the tracer did not see: in no
	 * figure of dev[], as a request merged into another (whose merge was
	 * missed) is none of the device's. */
	__u64 unended[LOAD_DIRS];
	__u64 wb_requests, wb_bytes;	/* flusher writes on the disks */
	__u64 rmw_reads, rmw_bytes;
	__u64 checked_writes, misaligned, misaligned_bytes;
	/* Merges on the target disks over the run, from /proc/diskstats:
	 * the records carry none, and these disks may serve others too. */
	__u64 merges[LOAD_DIRS];
	bool merges_known;
	/* The load's results. */
	struct load_stats app;
	__u64 runtime_ns;
	bool direct_read, buffered_read;
	bool json;
};

static int dir_of(unsigned int op)
{
	switch (op) {
	case IOLENS_OP_READ: return LOAD_READ;
	case IOLENS_OP_WRITE: return LOAD_WRITE;
	case IOLENS_OP_DISCARD: return LOAD_TRIM;
	}
	return -1;
}

static bool on_disks(const struct bench *b, __u32 dev)
{
	for (int i = 0; i < b->ndisks; i++)
		if (b->disks[i] == dev)
			return true;
	return false;
}

/* Runs on the tracer thread only: plain counters. */
static int on_rq(void *ctx, const struct iolens_rq *rq)
{
	struct bench *b = ctx;
	int d = dir_of(rq->op);

	if (d < 0)
		return 0;
	if (rq->pid != b->self) {
		if (d == LOAD_WRITE && rq->ctx == IOLENS_CTX_SUBMIT &&
		    !strncmp(rq->comm, "kworker", 7) && on_disks(b, rq->dev)) {
			b->wb_requests++;
			b->wb_bytes += rq->bytes;
		}
		return 0;
	}
	if (!rq->ts_complete)
		b->unended[d]++;
	else
		rqsum_add(&b->dev[d], rq);
	return 0;
}

/* Runs on the check thread only. */
static void on_check(void *ctx, const struct iolens_check_event *e)
{
	struct bench *b = ctx;

	/* A refused write made no request: the load reports its error. */
	if (e->tgid != b->self || e->kind == IOLENS_CHECK_REFUSED)
		return;
	if (e->kind == IOLENS_CHECK_RMW_READ) {
		b->rmw_reads++;
		b->rmw_bytes += e->bytes;
		return;
	}
	b->checked_writes++;
	if (e->pbs && ((e->sector << 9) % e->pbs || e->bytes % e->pbs)) {
		b->misaligned++;
		b->misaligned_bytes += e->bytes;
	}
}

static void on_done(void *ctx, const struct load_result *r, int n)
{
	struct bench *b = ctx;

	for (int i = 0; i < n; i++) {
		load_stats_merge(&b->app, &r[i].st);
		if (r[i].st.runtime_ns > b->runtime_ns)
			b->runtime_ns = r[i].st.runtime_ns;
	}
}

struct tracer_thread {
	pthread_t tid;
	struct block_trace *bt;
	struct check_trace *ct;
	struct bench *b;
	int rc;
};

static void *run_block(void *arg)
{
	struct tracer_thread *t = arg;

	t->rc = block_trace_run(t->bt, 0, on_rq, NULL, t->b);
	return NULL;
}

static void *run_check(void *arg)
{
	struct tracer_thread *t = arg;
	__u64 ns;

	t->rc = check_trace_run(t->ct, 0, on_check, t->b, &ns);
	return NULL;
}

/* The whole disks under the jobs' targets, for the flusher's writes. */
static void target_disks(struct bench *b, const struct load_jobs *js)
{
	for (int i = 0; i < js->n; i++) {
		const struct load_job_opts *o = &js->v[i];
		struct dev_info di;
		struct stat st;
		__u32 dev;

		if (o->direct)
			b->direct_read |= o->rw != LOAD_RW_WRITE && o->rw != LOAD_RW_RANDWRITE;
		else
			b->buffered_read |= o->rw != LOAD_RW_WRITE && o->rw != LOAD_RW_RANDWRITE;
		if (!o->filename || stat(o->filename, &st))
			continue;
		dev = S_ISBLK(st.st_mode) ? kdev_make(major(st.st_rdev), minor(st.st_rdev)) :
					    kdev_make(major(st.st_dev), minor(st.st_dev));
		if (dev_lookup(dev, &di))
			continue;
		if (!on_disks(b, di.disk) && b->ndisks < MAX_DISKS)
			b->disks[b->ndisks++] = di.disk;
	}
}

/* Merges of the target disks now, per direction. */
static bool disk_merges(const struct bench *b, __u64 m[LOAD_DIRS])
{
	struct diskstat *ds;
	int n = diskstats_read(&ds);

	if (n < 0)
		return false;
	memset(m, 0, LOAD_DIRS * sizeof(*m));
	for (int i = 0; i < n; i++) {
		if (!on_disks(b, ds[i].dev))
			continue;
		m[LOAD_READ] += ds[i].merges[IOLENS_SG_READ];
		m[LOAD_WRITE] += ds[i].merges[IOLENS_SG_WRITE];
		m[LOAD_TRIM] += ds[i].merges[IOLENS_SG_DISCARD];
	}
	free(ds);
	return true;
}

static double ratio(double a, double b)
{
	return b ? a / b : 0;
}

/* ---- the report ---- */

static void text_dir(const struct bench *b, int d, double secs)
{
	const struct load_dir_stats *a = &b->app.dir[d];
	const struct rqsum *s = &b->dev[d];
	char x[32], y[32];

	printf("%s\n", load_dir_name(d));
	printf("  %-26s %14.0f %14.0f\n", "IOPS", ratio(a->ios, secs), ratio(s->requests, secs));
	fmt_bytes(x, sizeof(x), ratio(a->bytes, secs));
	fmt_bytes(y, sizeof(y), ratio(s->bytes, secs));
	printf("  %-26s %12s/s %12s/s\n", "bandwidth", x, y);
	fmt_bytes(x, sizeof(x), ratio(a->bytes, a->ios));
	fmt_bytes(y, sizeof(y), ratio(s->bytes, s->requests));
	printf("  %-26s %14s %14s\n", "average size", x, y);
	for (size_t i = 0; i < NPCT; i++) {
		char name[32], lat[RQSUM_LAT_NR][32];
		__u64 v;
		bool over;

		snprintf(name, sizeof(name), "latency %s", pct_keys[i]);
		if (hist_percentile(a->clat_hist, pcts[i], &v, &over))
			fmt_ns(x, sizeof(x), v);
		else
			snprintf(x, sizeof(x), "-");
		for (int k = 0; k < RQSUM_LAT_NR; k++) {
			if (hist_percentile(s->lat[k], pcts[i], &v, &over))
				fmt_ns(lat[k], sizeof(lat[k]), v);
			else
				snprintf(lat[k], sizeof(lat[k]), "-");
		}
		printf("  %-26s %14s %14s  (queue %s, device %s)\n", name, x,
		       lat[RQSUM_TOTAL], lat[RQSUM_QUEUE], lat[RQSUM_DEVICE]);
	}
	printf("  %-26s %14s %14.2f\n", "requests per app I/O", "",
	       ratio(s->requests, a->ios));
	if (b->merges_known)
		printf("  %-26s %14s %14llu\n", "merges (target disks)", "",
		       (unsigned long long)b->merges[d]);
	if (s->qd_n)
		printf("  %-26s %14s %9.2f / %llu\n", "queue depth avg / max", "",
		       ratio(s->qd_sum, s->qd_n), (unsigned long long)s->qd_max);
}

static void text_report(const struct bench *b, double secs, __u64 lost)
{
	__u64 app_w = b->app.dir[LOAD_WRITE].bytes;
	__u64 app_r = b->app.dir[LOAD_READ].bytes;
	char x[32], y[32];

	printf("iolens bench: %.2f s of load\n\n%-28s %14s %14s\n", secs, "",
	       "app (load)", "device");
	for (int d = 0; d < LOAD_DIRS; d++)
		if (b->app.dir[d].ios || b->dev[d].requests)
			text_dir(b, d, secs);
	printf("\n");
	fmt_bytes(x, sizeof(x), b->rmw_bytes);
	printf("reads caused by writes (page-cache RMW): %llu, %s (%.2f per write I/O)\n",
	       (unsigned long long)b->rmw_reads, x,
	       ratio(b->rmw_reads, b->app.dir[LOAD_WRITE].ios));
	printf("misaligned write requests (physical block): %llu of %llu\n",
	       (unsigned long long)b->misaligned, (unsigned long long)b->checked_writes);
	fmt_bytes(x, sizeof(x), b->dev[LOAD_WRITE].bytes + b->wb_bytes);
	fmt_bytes(y, sizeof(y), b->wb_bytes);
	if (app_w)
		printf("write amplification: %.2f (device %s, of which writeback %s, per app byte)\n",
		       ratio(b->dev[LOAD_WRITE].bytes + b->wb_bytes, app_w), x, y);
	else
		printf("write amplification: - (no writes)\n");
	if (!app_r)
		printf("page-cache read hit ratio: - (no reads)\n");
	else if (!b->buffered_read)
		printf("page-cache read hit ratio: - (direct I/O bypasses the page cache)\n");
	else if (b->dev[LOAD_READ].bytes >= app_r)
		printf("page-cache read hit ratio: 0%% (the device read %.2f bytes per byte asked, readahead included)\n",
		       ratio(b->dev[LOAD_READ].bytes, app_r));
	else
		printf("page-cache read hit ratio: %.1f%% (1 - device read bytes / app read bytes)\n",
		       100 * (1 - ratio(b->dev[LOAD_READ].bytes, app_r)));
	if (lost)
		printf("LOST: %llu trace records (ring buffer full or hook skipped): device counts are short\n",
		       (unsigned long long)lost);
	if (b->unended[LOAD_READ] || b->unended[LOAD_WRITE])
		printf("%llu requests seen starting whose end was not seen: in no device figure\n",
		       (unsigned long long)(b->unended[LOAD_READ] + b->unended[LOAD_WRITE]));
}

static void json_report(const struct bench *b, double secs, __u64 lost)
{
	__u64 app_w = b->app.dir[LOAD_WRITE].bytes;
	__u64 app_r = b->app.dir[LOAD_READ].bytes;
	struct json j;

	json_init(&j, stdout);
	json_obj_open(&j, NULL);
	json_f64(&j, "seconds", secs, 3);
	json_u64(&j, "lost", lost);
	for (int d = 0; d < LOAD_DIRS; d++) {
		const struct load_dir_stats *a = &b->app.dir[d];
		const struct rqsum *s = &b->dev[d];

		if (!a->ios && !s->requests)
			continue;
		json_obj_open(&j, load_dir_name(d));
		json_obj_open(&j, "app");
		json_u64(&j, "ios", a->ios);
		json_u64(&j, "bytes", a->bytes);
		json_f64(&j, "iops", ratio(a->ios, secs), 1);
		json_obj_open(&j, "clat_ns");
		for (size_t i = 0; i < NPCT; i++) {
			__u64 v;
			bool over;

			if (hist_percentile(a->clat_hist, pcts[i], &v, &over))
				json_u64(&j, pct_keys[i], v);
			else
				json_null(&j, pct_keys[i]);
		}
		json_obj_close(&j);
		json_obj_close(&j);
		json_obj_open(&j, "device");
		json_u64(&j, "requests", s->requests);
		json_u64(&j, "unended_requests", b->unended[d]);
		json_u64(&j, "bytes", s->bytes);
		json_f64(&j, "iops", ratio(s->requests, secs), 1);
		json_f64(&j, "requests_per_io", ratio(s->requests, a->ios), 3);
		if (b->merges_known)
			json_u64(&j, "disk_merges", b->merges[d]);
		else
			json_null(&j, "disk_merges");
		if (s->qd_n)
			json_f64(&j, "qd_avg", ratio(s->qd_sum, s->qd_n), 2);
		else
			json_null(&j, "qd_avg");
		json_u64(&j, "qd_max", s->qd_max);
		rqsum_json_lat(&j, s, pcts, pct_keys, NPCT);
		json_obj_close(&j);
		json_obj_close(&j);
	}
	json_obj_open(&j, "rmw");
	json_u64(&j, "reads", b->rmw_reads);
	json_u64(&j, "bytes", b->rmw_bytes);
	json_obj_close(&j);
	json_obj_open(&j, "misaligned");
	json_u64(&j, "writes", b->misaligned);
	json_u64(&j, "bytes", b->misaligned_bytes);
	json_u64(&j, "checked", b->checked_writes);
	json_obj_close(&j);
	json_obj_open(&j, "writeback");
	json_u64(&j, "requests", b->wb_requests);
	json_u64(&j, "bytes", b->wb_bytes);
	json_obj_close(&j);
	if (app_w)
		json_f64(&j, "write_amplification",
			 ratio(b->dev[LOAD_WRITE].bytes + b->wb_bytes, app_w), 3);
	else
		json_null(&j, "write_amplification");
	if (app_r && b->buffered_read)
		json_f64(&j, "page_cache_hit_ratio", b->dev[LOAD_READ].bytes >= app_r ? 0 :
			 1 - ratio(b->dev[LOAD_READ].bytes, app_r), 4);
	else
		json_null(&j, "page_cache_hit_ratio");
	json_obj_close(&j);
	json_newline(&j);
}

int bench_run(const struct bench_opts *o)
{
	struct bench b = { .self = (__u32)getpid(), .json = o->json };
	struct tracer_thread tb = { .b = &b }, tc = { .b = &b };
	struct block_trace_stats bs;
	struct load_jobs js = {};
	int rc;
	__u64 start, lost, m0[LOAD_DIRS];
	double secs;

	rc = load_parse_args(o->load_argc, o->load_argv, &js);
	if (rc) {
		load_jobs_free(&js);
		return rc < 0 ? 0 : rc;
	}
	if (js.global.sweep) {
		load_jobs_free(&js);
		return usage_err(CMD, "--sweep is load's: bench runs one load and traces it");
	}
	if (js.global.output || js.global.format != LOAD_FMT_NORMAL) {
		load_jobs_free(&js);
		return usage_err(CMD, "--output and --output-format are load's: bench prints its own report (-j for JSON)");
	}
	/* The load's progress line never goes where JSON goes. */
	if (b.json)
		js.global.format = LOAD_FMT_JSON;
	target_disks(&b, &js);
	tb.bt = block_trace_start(CMD, NULL, 0, 0, 0);
	tc.ct = tb.bt ? check_trace_start(CMD, NULL, 0) : NULL;
	if (!tc.ct) {
		block_trace_stop(tb.bt);
		load_jobs_free(&js);
		return 1;
	}
	if (pthread_create(&tb.tid, NULL, run_block, &tb) ||
	    pthread_create(&tc.tid, NULL, run_check, &tc)) {
		pr_err("cannot start a thread: %s", strerror(errno));
		exit(1);
	}
	b.merges_known = disk_merges(&b, m0);
	start = mono_ns();
	rc = load_run(&js, on_done, &b);
	if (b.merges_known && disk_merges(&b, b.merges))
		for (int d = 0; d < LOAD_DIRS; d++)
			b.merges[d] -= m0[d];
	else
		b.merges_known = false;
	secs = (mono_ns() - start) / 1e9;
	block_trace_end(tb.bt);
	check_trace_end(tc.ct);
	pthread_join(tb.tid, NULL);
	pthread_join(tc.tid, NULL);
	if (b.runtime_ns)
		secs = b.runtime_ns / 1e9;
	block_trace_stats(tb.bt, &bs);
	lost = block_trace_dropped(&bs) + check_trace_lost(tc.ct);
	if (!rc && !tb.rc && !tc.rc) {
		if (b.json)
			json_report(&b, secs, lost);
		else
			text_report(&b, secs, lost);
	}
	check_trace_stop(tc.ct);
	block_trace_stop(tb.bt);
	load_jobs_free(&js);
	return rc ?: tb.rc ?: tc.rc;
}
