// SPDX-License-Identifier: GPL-2.0
/* iolens record: every completed block request into a trace file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include "lib/cgroups.h"
#include "lib/clock.h"
#include "lib/devices.h"
#include "lib/ksyms.h"
#include "lib/log.h"
#include "lib/tracefile.h"
#include "record/flight.h"
#include "record/record.h"
#include "record/writer.h"
#include "trace/block_trace.h"
#include "trace/kstacks.h"

struct record {
	struct rqfilter filter;
	struct rec_writer *w;
	struct flight *fl;	/* --ring */
	struct block_trace *bt;
	__u64 dropped_seen;
	int failed;
	struct kstacks *stacks;	/* --stacks */
};

static int on_rq(void *ctx, const struct iolens_rq *rq)
{
	struct record *r = ctx;
	const char *cg = NULL, *io_cg = NULL;

	if (r->filter.cgroup) {
		cg = cgroup_path(0, rq->cgroup);
		io_cg = cgroup_path(rq->io_cgroup_hier, rq->io_cgroup);
	}
	if (!rqfilter_match(&r->filter, rq, dev_name(rq->dev), cg, io_cg))
		return 0;
	if (r->fl)
		return flight_rq(r->fl, rq);
	if (rec_writer_rq(r->w, rq))
		r->failed = 1;
	return r->failed;
}

static void write_lost(struct record *r)
{
	__u64 n = rec_writer_dropped(r->w, r->bt, &r->dropped_seen);

	if (n)
		fprintf(stderr, "iolens record: lost %llu request records: ring buffer full (disk too slow for the trace?) or hook skipped by the kernel\n",
			(unsigned long long)n);
}

/* Once a second: what was recorded is on disk whatever ends record. */
static void on_tick(void *ctx)
{
	struct record *r = ctx;

	if (r->fl) {
		flight_tick(r->fl);
		return;
	}
	write_lost(r);
	if (rec_writer_sync(r->w))
		r->failed = 1;
}

static void fill_header(struct trace_header *h)
{
	struct utsname u;
	struct timespec rt;

	memset(h, 0, sizeof(*h));
	if (!uname(&u)) {
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
		snprintf(h->host, sizeof(h->host), "%s", u.nodename);
	}
	snprintf(h->tool, sizeof(h->tool), "iolens %s", IOLENS_VERSION);
	h->mono_ns = mono_ns();
	clock_gettime(CLOCK_REALTIME, &rt);
	h->real_ns = (__u64)rt.tv_sec * 1000000000ULL + rt.tv_nsec;
}

int record_run(const struct record_opts *o)
{
	struct record *r = calloc(1, sizeof(*r));
	const char *path = o->path;
	struct trace_header h;
	struct trace_end end = {};
	struct block_trace_stats c;
	__u32 devs[RQFILTER_MAX];
	char err[256] = "write failed";
	__u64 written;
	int ret = 2, failed;

	if (!r)
		return 1;
	r->filter = o->filter;
	if (block_trace_devs("record", &r->filter, devs))
		goto out;

	ret = 1;
	if (o->ring)
		flight_signals();
	/* Time 0 of the trace precedes the attach, so no request has a
	 * timestamp before it. */
	fill_header(&h);
	if (o->stacks) {
		h.flags |= TRACE_HDR_STACKS;
		ksyms_load_for("record", KSYMS_NO_STACKS);
	}
	if (o->files) {
		h.flags |= TRACE_HDR_FILES;
		ksyms_load_for("record", KSYMS_NO_DIO_FILES);
	}
	r->bt = block_trace_start("record", devs, r->filter.ndev, 0,
				  (o->stacks ? BLOCK_TRACE_STACKS : 0) |
				  (o->files ? BLOCK_TRACE_FILES : 0));
	if (!r->bt)
		goto out;
	if (o->stacks && !(r->stacks = kstacks_new(block_trace_stacks_fd(r->bt)))) {
		fprintf(stderr, "iolens record: out of memory\n");
		goto out;
	}
	if (o->ring) {
		r->fl = flight_new(o, &h, r->bt, r->stacks, block_trace_nconsumers());
		if (!r->fl) {
			fprintf(stderr, "iolens record: out of memory\n");
			goto out;
		}
		fprintf(stderr, "Recording block requests (%s) to a ring in memory; files %s-TIME.iol when a trigger fires... Ctrl-C to end.\n",
			block_trace_flavour(r->bt), path);
		block_trace_run(r->bt, o->duration_ns, on_rq, on_tick, r);
		ret = flight_end(r->fl);
		goto out;
	}
	r->w = rec_writer_open(path, &h, NULL, r->stacks, block_trace_nconsumers(),
			       err, sizeof(err));
	if (!r->w) {
		fprintf(stderr, "iolens record: %s\n", err);
		/* A path refused (lib/outfile.h) is bad input. */
		if (errno == EPERM)
			ret = 2;
		goto out;
	}
	/* Also the signal for scripts that the tracer is attached. */
	fprintf(stderr, "Recording block requests (%s) to %s... Ctrl-C to end.\n",
		block_trace_flavour(r->bt), path);
	block_trace_run(r->bt, o->duration_ns, on_rq, on_tick, r);
	write_lost(r);
	block_trace_stats(r->bt, &c);
	end.mono_ns = mono_ns();
	end.lost = block_trace_dropped(&c);
	end.untracked = c.untracked;
	written = rec_writer_requests(r->w);
	failed = rec_writer_finish(r->w, &end, err, sizeof(err)) || r->failed;
	r->w = NULL;
	if (failed) {
		fprintf(stderr, "iolens record: writing %s failed: %s\n", path, err);
		goto out;
	}
	fprintf(stderr, "iolens record: %llu requests in %.1f s to %s; ",
		(unsigned long long)written, (end.mono_ns - h.mono_ns) / 1e9, path);
	block_trace_print_stats(stderr, &c);
	ret = 0;
out:
	if (r->w)
		rec_writer_finish(r->w, &end, err, sizeof(err));
	block_trace_stop(r->bt);
	kstacks_free(r->stacks);
	free(r);
	return ret;
}
