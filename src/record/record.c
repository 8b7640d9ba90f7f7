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
#include "lib/fileid.h"
#include "lib/ksyms.h"
#include "lib/log.h"
#include "lib/tracefile.h"
#include "record/record.h"
#include "trace/block_trace.h"
#include "trace/kstacks.h"

/* The seen set's first size. */
#define SEEN_SLOTS 4096

struct record {
	struct rqfilter filter;
	struct trace_writer *w;
	struct block_trace *bt;
	unsigned long long written;
	__u64 dropped_written;
	int failed;
	/* dev_t, cgroup, stack and file ids already described in the file:
	 * open addressing, at most 3/4 full, doubled as needed */
	__u64 *seen;
	size_t nseen, seen_cap;
	struct kstacks *stacks;	/* --stacks */
	struct trace_file file;	/* room for a FILE record */
};

/* The slot of `key` in the seen set, or the free one where it goes. */
static __u64 *seen_slot(__u64 *set, size_t cap, __u64 key)
{
	size_t i = (key * 0x9e3779b97f4a7c15ULL) >> 32;

	for (;; i++)
		if (!set[i & (cap - 1)] || set[i & (cap - 1)] == key)
			return &set[i & (cap - 1)];
}

/* Twice the room; false without memory (the set stays). */
static bool seen_grow(struct record *r)
{
	size_t cap = r->seen_cap ? 2 * r->seen_cap : SEEN_SLOTS;
	__u64 *set = calloc(cap, sizeof(*set));

	if (!set)
		return false;
	for (size_t i = 0; i < r->seen_cap; i++)
		if (r->seen[i])
			*seen_slot(set, cap, r->seen[i]) = r->seen[i];
	free(r->seen);
	r->seen = set;
	r->seen_cap = cap;
	return true;
}

/* Returns true the first time `key` is offered (keys are never 0).
 * Without memory for it, every time: names written again, which readers
 * tolerate. */
static bool first_sight(struct record *r, __u64 key)
{
	__u64 *slot;

	if (4 * (r->nseen + 1) > 3 * r->seen_cap && !seen_grow(r))
		return true;
	slot = seen_slot(r->seen, r->seen_cap, key);
	if (*slot)
		return false;
	*slot = key;
	r->nseen++;
	return true;
}

static void describe_cgroup(struct record *r, unsigned int hier, __u64 id)
{
	struct trace_cgroup cg = { .id = id, .hier = hier };
	const char *path;

	/* Ids are small inode numbers; the hierarchy goes in the top bits. */
	if (!id || !first_sight(r, id ^ (__u64)hier << 56))
		return;
	path = cgroup_path(hier, id);
	if (!path)
		return;
	snprintf(cg.path, sizeof(cg.path), "%s", path);
	if (trace_write_cgroup(r->w, &cg))
		r->failed = 1;
}

static void describe_dev(struct record *r, __u32 dev)
{
	struct trace_device td = { .dev = dev };
	const struct dev_info *di;

	/* Tagged so a dev_t can never collide with a cgroup id. */
	if (!first_sight(r, (__u64)dev | 1ULL << 63))
		return;
	di = dev_get(dev);
	td.logical_bs = di->logical_bs;
	td.physical_bs = di->physical_bs;
	snprintf(td.name, sizeof(td.name), "%s", di->name);
	if (trace_write_device(r->w, &td))
		r->failed = 1;
}

/* Named where it was taken, so that the file reads anywhere. */
static void describe_stack(struct record *r, __u32 stack)
{
	struct trace_stack ts = { .stack = stack };
	const struct kstack *k;

	if (kstack_unknown(stack) || !first_sight(r, (__u64)stack | 1ULL << 62))
		return;
	k = kstacks_get(r->stacks, stack);
	if (!k)
		return;
	ts.k = *k;
	if (trace_write_stack(r->w, &ts))
		r->failed = 1;
}

/* Its path (or, for a device, whether it was mounted), as named here and
 * now, so that the file reads anywhere. */
static void describe_file(struct record *r, const struct iolens_rq *rq)
{
	__u64 key = (rq->ino * 0x9e3779b97f4a7c15ULL) ^ ((__u64)rq->fgen << 20) ^ rq->fdev;
	struct trace_file *tf = &r->file;
	const char *path;

	/* Tagged apart from dev_t, stack and cgroup keys; a file whose
	 * hash another took is not described again: it shows by inode. */
	if (rq->fkind == IOLENS_FK_NONE ||
	    !first_sight(r, (key & ~(3ULL << 62)) | 3ULL << 62))
		return;
	memset(tf, 0, sizeof(*tf));
	tf->dev = rq->fdev;
	if (rq->fkind == IOLENS_FK_DEVICE) {
		tf->flags = fileid_dev_mounted(rq->fdev) ? TRACE_FILE_MOUNTED : 0;
	} else {
		tf->ino = rq->ino;
		tf->gen = rq->fgen;
		path = fileid_path(rq->fdev, rq->ino, rq->fgen);
		snprintf(tf->path, sizeof(tf->path), "%s", path ? path : "");
	}
	if (trace_write_file(r->w, tf))
		r->failed = 1;
}

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
	describe_dev(r, rq->dev);
	describe_cgroup(r, 0, rq->cgroup);
	describe_cgroup(r, rq->io_cgroup_hier, rq->io_cgroup);
	if (r->stacks)
		describe_stack(r, rq->stack);
	describe_file(r, rq);
	if (trace_write_rq(r->w, rq))
		r->failed = 1;
	r->written++;
	return r->failed;
}

static void write_lost(struct record *r)
{
	struct block_trace_stats c;

	block_trace_stats(r->bt, &c);
	if (block_trace_dropped(&c) > r->dropped_written) {
		__u64 n = block_trace_dropped(&c) - r->dropped_written;

		if (trace_write_lost(r->w, n))
			r->failed = 1;
		fprintf(stderr, "iolens record: lost %llu request records: ring buffer full (disk too slow for the trace?) or hook skipped by the kernel\n",
			(unsigned long long)n);
		r->dropped_written = block_trace_dropped(&c);
	}
}

/* Once a second: what was recorded is on disk whatever ends record. */
static void on_tick(void *ctx)
{
	struct record *r = ctx;

	write_lost(r);
	if (trace_sync(r->w))
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
	int ret = 2;

	if (!r)
		return 1;
	r->filter = o->filter;
	if (block_trace_devs("record", &r->filter, devs))
		goto out;

	ret = 1;
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
	r->w = trace_create(path, &h, block_trace_nconsumers(), err, sizeof(err));
	if (!r->w) {
		fprintf(stderr, "iolens record: %s\n", err);
		goto out;
	}
	/* Also the signal for scripts that the tracer is attached. */
	fprintf(stderr, "Recording block requests (%s) to %s... Ctrl-C to end.\n",
		block_trace_flavour(r->bt), path);
	block_trace_run(r->bt, o->duration_ns, on_rq, on_tick, r);
	write_lost(r);
	block_trace_stats(r->bt, &c);
	end.mono_ns = mono_ns();
	end.requests = r->written;
	end.lost = block_trace_dropped(&c);
	end.untracked = c.untracked;
	if (trace_finish(r->w, &end, err, sizeof(err)) || r->failed) {
		fprintf(stderr, "iolens record: writing %s failed: %s\n", path, err);
		goto out;
	}
	fprintf(stderr, "iolens record: %llu requests in %.1f s to %s; ",
		r->written, (end.mono_ns - h.mono_ns) / 1e9, path);
	block_trace_print_stats(stderr, &c);
	ret = 0;
out:
	block_trace_stop(r->bt);
	kstacks_free(r->stacks);
	free(r->seen);
	free(r);
	return ret;
}
