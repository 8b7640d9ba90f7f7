// SPDX-License-Identifier: GPL-2.0
/*
 * The frames of `iolens top`: task I/O from one task-iterator pass per
 * frame (task_trace.c), block requests per submitter and per device from
 * the aggregation core (agg_trace.c).
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/hist.h"
#include "lib/log.h"
#include "trace/agg_trace.h"
#include "trace/task_trace.h"
#include "top/top.h"
#include "lib/vec.h"

/* The last minute of a device, kept across frames by its number; apart,
 * so that the frame's pointers stay when the table grows. */
struct dev_graph {
	__u32 dev;
	struct graph *g;
};

struct top_collector {
	struct top_opts *o;
	struct task_trace *tt;
	struct agg_trace *st;
	struct proctable *pt;
	__u64 *sys_prev[IOLENS_SC_NR];	/* syscall histograms at last frame */
	__u64 sys_skipped;		/* task_trace_sys_skipped() then */
	__u64 exits_lost;		/* task_trace_exits()' then */
	__u64 start_ns;			/* the time base of the graphs */
	struct dev_graph *dg;
	int ndg;
	struct top_files *tf;		/* while o->files */
	bool tf_failed;			/* it could not start: not again */
};

/* The tracer of files, for the processes top's options choose. */
static struct top_files *files_start(const char *cmd, const struct top_opts *o)
{
	struct top_files_who who = {
		.npids = o->npids, .threads = o->threads, .by_uid = o->by_uid, .uid = o->uid,
		.comm = o->comm,
		.by_cgroup = o->by_cgroup, .cgroup = o->cgroup,
	};

	memcpy(who.pids, o->pids, sizeof(who.pids));
	return top_files_start(cmd, NULL, 0, &who);
}

/* The frame's files, with the view on: the tracer starts with it (key F
 * may turn it on in the middle) and stops with it, so that it costs
 * nothing the rest of the time. */
static int collect_files(struct top_collector *s, struct top_frame *f)
{
	int err;

	free(f->files);
	f->files = NULL;
	f->nfiles = 0;
	memset(&f->files_others, 0, sizeof(f->files_others));
	f->files_unjudged = 0;
	if (!s->o->files) {
		top_files_stop(s->tf);
		s->tf = NULL;
		return 0;
	}
	if (!s->tf && !s->tf_failed) {
		s->tf = files_start("top", s->o);
		s->tf_failed = !s->tf;
	}
	if (!s->tf) {
		f->nfiles = TOP_FILES_FAILED;
		return 0;
	}
	err = top_files_take(s->tf, &f->files, &f->nfiles, &f->files_others,
			     &f->files_unjudged);
	/* Counted for only part of the frame (it attached in it): no rate
	 * of the frame's, none at all. */
	if (!err && top_files_since(s->tf) > agg_trace_read_ns(s->st) - f->secs * 1e9) {
		free(f->files);
		f->files = NULL;
		f->nfiles = TOP_FILES_PARTIAL;
		f->files_unjudged = 0;
	}
	return err;
}

/* Writes a kernel thread submitted for cgroup (hier, id): writeback, in
 * the table *v of *n. */
static int wb_add(struct top_wb **v, int *n, const struct iolens_lat_key *k,
		  const struct top_wb *add)
{
	struct top_wb *w = NULL;

	for (int i = 0; i < *n && !w; i++)
		if ((*v)[i].hier == k->io_hier && (*v)[i].cgroup == k->io_cgroup)
			w = &(*v)[i];
	if (!w) {
		w = vec_add(v, n, sizeof(*w));
		if (!w)
			return -ENOMEM;
		w->hier = k->io_hier;
		w->cgroup = k->io_cgroup;
	}
	w->ios += add->ios;
	w->bytes += add->bytes;
	w->ns += add->ns;
	w->timed += add->timed;
	return 0;
}

/* To the frame's writeback and to the one since start. */
static int add_wb(struct top_frame *f, const struct iolens_lat_key *k,
		  const struct top_wb *add)
{
	return wb_add(&f->wb, &f->nwb, k, add) ?: wb_add(&f->wb_all, &f->nwb_all, k, add);
}

/* Stacked devices (dm, md) with the devices under them right after, one
 * level deeper, as stat -S shows them (each keeps its own histogram); with
 * -N by their stable names. */
static int stack_order(const struct top_collector *s, struct top_frame *f)
{
	if (s->o->names)
		for (int i = 0; i < f->ndev; i++)
			dev_stable_name(f->devs[i].info.dev, f->devs[i].info.name,
					sizeof(f->devs[i].info.name));
	return dev_stack_sort(f->devs, f->ndev, sizeof(*f->devs),
			      offsetof(struct top_dev, info.dev),
			      offsetof(struct top_dev, depth));
}

static int fold_block(struct top_collector *s, struct top_frame *f)
{
	f->nwb = 0;
	for (int i = 0; i < agg_trace_nkeyed(s->st); i++) {
		const struct agg_keyed *k = agg_trace_keyed(s->st, i);
		__u64 n = hist_count(k->hist);
		bool wb = k->key.io_cgroup && k->key.sg == IOLENS_SG_WRITE;
		/* Only cgroup2 charges writeback to the pages' owner (v1's
		 * blkio charges the flusher's root): only there does a group
		 * view move it. */
		bool owned = wb && !k->key.io_hier;

		if (!n)
			continue;
		if (k->key.kind == IOLENS_H_TOTAL) {
			if (wb && add_wb(f, &k->key, &(struct top_wb){ .ns = k->sum, .timed = n }))
				return -ENOMEM;
			proctable_add_block(s->pt, k->key.tgid, &(struct proc_io){
				.blk_ios = n, .blk_ns = k->sum, .blk_timed = n,
				.wb_ns = owned ? k->sum : 0, .wb_timed = owned ? n : 0 });
			for (int d = 0; d < f->ndev; d++)
				if (f->devs[d].info.dev == k->dev)
					hist_add(f->devs[d].hist, k->hist);
		} else if (k->key.kind == IOLENS_H_SIZE) {
			bool rd = k->key.sg == IOLENS_SG_READ;
			bool wr = k->key.sg == IOLENS_SG_WRITE;

			if (wb && add_wb(f, &k->key, &(struct top_wb){ .ios = n, .bytes = k->sum }))
				return -ENOMEM;
			proctable_add_block(s->pt, k->key.tgid, &(struct proc_io){
				.blk_bytes = k->sum, .blk_rbytes = rd ? k->sum : 0,
				.blk_wbytes = wr ? k->sum : 0,
				.wb_ios = owned ? n : 0, .wb_bytes = owned ? k->sum : 0 });
		} else if (k->key.kind == IOLENS_H_MISALIGNED) {
			proctable_add_block(s->pt, k->key.tgid, &(struct proc_io){
				.misaligned = n, .misaligned_bytes = k->sum });
		}
	}
	/* Failed requests are in no latency histogram: counted here. */
	for (int i = 0; i < agg_trace_nfailures(s->st); i++) {
		const struct agg_failure *fl = agg_trace_failure(s->st, i);

		if (fl->n.ios)
			proctable_add_block(s->pt, fl->key.tgid, &(struct proc_io){
				.blk_ios = fl->n.ios, .blk_failed = fl->n.ios });
	}
	return 0;
}

/* The frame's failures of device t, in all and by status. */
static void dev_failures(const struct top_collector *s, struct top_dev *t)
{
	for (int i = 0; i < agg_trace_nfailures(s->st); i++) {
		const struct agg_failure *fl = agg_trace_failure(s->st, i);
		int k = 0;

		if (!fl->n.ios || fl->dev != t->info.dev)
			continue;
		t->failed += fl->n.ios;
		while (k < t->nfail && t->fail[k].status != fl->key.status)
			k++;
		if (k == TOP_FAIL_STATUSES)
			continue;
		if (k == t->nfail) {
			t->fail[k].status = fl->key.status;
			t->nfail++;
		}
		t->fail[k].n += fl->n.ios;
	}
}

/* The graph of device `dev`, made at its first frame. */
static struct graph *dev_graph(struct top_collector *s, __u32 dev)
{
	struct dev_graph *g;

	struct graph *graph;

	for (int i = 0; i < s->ndg; i++)
		if (s->dg[i].dev == dev)
			return s->dg[i].g;
	graph = calloc(1, sizeof(*graph));
	g = graph ? vec_add(&s->dg, &s->ndg, sizeof(*g)) : NULL;
	if (!g) {
		free(graph);
		return NULL;
	}
	g->dev = dev;
	g->g = graph;
	return graph;
}

static double div_or_nan(double a, double b)
{
	return b ? a / b : NAN;
}

static int build_devs(struct top_collector *s, struct top_frame *f, double secs)
{
	struct graph *g;
	int n = 0;

	for (int i = 0; i < agg_trace_nslots(s->st); i++)
		n += agg_trace_dev(s->st, i) != NULL;
	if (n > f->ndev) {
		struct top_dev *v = realloc(f->devs, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + f->ndev, 0, (n - f->ndev) * sizeof(*v));
		f->devs = v;
		for (int i = f->ndev; i < n; i++) {
			f->devs[i].hist = calloc(HIST_BUCKETS, sizeof(__u64));
			if (!f->devs[i].hist)
				return -ENOMEM;
		}
	}
	n = 0;
	for (int i = 0; i < agg_trace_nslots(s->st); i++) {
		const struct agg_dev *d = agg_trace_dev(s->st, i);
		const struct iolens_stat *r, *w;
		struct top_dev *t;
		__u64 *h, size;

		if (!d)
			continue;
		t = &f->devs[n];
		h = t->hist;
		memset(t, 0, sizeof(*t));
		t->hist = h;
		memset(h, 0, HIST_BUCKETS * sizeof(*h));
		/* A device that went away leaves, and so does one with no
		 * capacity left (a detached loop device, an ejected medium). */
		if (dev_lookup(d->dev, &t->info) ||
		    dev_sysfs_u64s(d->dev, "size", &size, 1) || !size)
			continue;
		n++;
		r = &d->op[IOLENS_SG_READ];
		w = &d->op[IOLENS_SG_WRITE];
		t->r_s = r->ios / secs;
		t->w_s = w->ios / secs;
		t->rkb_s = r->bytes / 1024.0 / secs;
		t->wkb_s = w->bytes / 1024.0 / secs;
		t->await_ms = div_or_nan(r->total_ns + w->total_ns, 1e6 * (r->timed + w->timed));
		t->queue_ms = div_or_nan(r->queue_ns + w->queue_ns, 1e6 * (r->split + w->split));
		t->device_ms = div_or_nan(r->device_ns + w->device_ns, 1e6 * (r->split + w->split));
		for (int g = 0; g < IOLENS_SG_NR; g++)
			t->aqu_sz += d->op[g].total_ns / 1e9 / secs;
		/* %util is iostat's (io_ticks); busy% iolens's exact one. */
		t->util = 100.0 * d->io_ticks_ns / 1e9 / secs;
		t->busy = agg_dev_busy_unknown(d) ? NAN : 100.0 * d->busy_ns / 1e9 / secs;
		t->bio_based = d->bio_based;
		dev_failures(s, t);
		t->oldest_s = d->bio_based ? NAN : d->oldest_ns / 1e9;
		if (!agg_dev_stuck(d, t->info.name, s->o->stuck_ns, t->stuck, sizeof(t->stuck)))
			t->stuck[0] = 0;
		g = dev_graph(s, d->dev);
		if (g)
			graph_add(g, f->at - secs, f->at, r->bytes + w->bytes);
		t->graph = g;
	}
	f->ndev = n;
	return stack_order(s, f);
}

int top_collect(struct top_frame *f, void *arg)
{
	struct top_collector *s = arg;
	int err, n;
	time_t t = time(NULL);
	struct tm tm;
	__u64 skipped, lost;

	/* -p's answers for processes that have exited: a pid given again
	 * is another process. */
	if (s->o->tree)
		proctree_forget_gone(s->o->tree);
	/* Processes <-> threads: a new table, whose first frame is empty. */
	if (s->o->threads != proctable_threads(s->pt)) {
		proctable_free(s->pt);
		s->pt = proctable_new(s->o->threads);
		if (!s->pt)
			return -ENOMEM;
	}
	proctable_begin(s->pt);
	err = task_trace_scan(s->tt, proctable_add, s->pt);
	if (err)
		return err;
	proctable_end(s->pt);
	err = agg_trace_read(s->st);
	if (err)
		return err;
	f->secs = agg_trace_interval_s(s->st);
	f->at = (agg_trace_read_ns(s->st) - s->start_ns) / 1e9;
	proctable_graph(s->pt, f->at - f->secs, f->at);
	err = build_devs(s, f, f->secs > 0 ? f->secs : 1);
	if (err)
		return err;
	err = fold_block(s, f);
	if (err)
		return err;
	for (int d = 0; d < f->ndev; d++) {
		bool over;

		if (!hist_percentile(f->devs[d].hist, 99, &f->devs[d].p99_ns, &over))
			f->devs[d].p99_ns = 0;
	}
	n = proctable_count(s->pt);
	if (n > f->nall) {
		struct top_row *all = realloc(f->all, n * sizeof(*all));

		if (!all)
			return -ENOMEM;
		f->all = all;
	}
	if (top_rows_room(f, n))
		return -ENOMEM;
	f->nall = n;
	/* Delays the kernel does not add up are unknown, not zero. */
	f->delayacct = delayacct_state();
	f->overcount = 0;
	for (int i = 0; i < n; i++) {
		struct top_row *r = &f->all[i];

		r->e = proctable_get(s->pt, i);
		r->g = NULL;
		r->user = top_user_name(r->e->uid);
		if (f->delayacct == DELAYACCT_OFF || r->e->overcount)
			r->e->flags &= ~(IOLENS_TASK_BLKIO | IOLENS_TASK_SWAPIN);
		f->overcount += r->e->overcount;
	}
	for (int c = 0; c < IOLENS_SC_NR; c++) {
		task_trace_sys_hist(s->tt, c, f->sys_hist[c]);
		for (__u32 b = 0; b < HIST_BUCKETS; b++) {
			__u64 v = f->sys_hist[c][b];

			f->sys_hist[c][b] = v - s->sys_prev[c][b];
			s->sys_prev[c][b] = v;
		}
	}
	f->syscalls = task_trace_syscalls(s->tt);
	f->sys_skipped_known = task_trace_sys_skipped(s->tt, &skipped);
	f->sys_skipped = s->o->accumulated ? skipped : skipped - s->sys_skipped;
	s->sys_skipped = skipped;
	f->exits_known = task_trace_exits(s->tt, &lost);
	f->exits_lost = s->o->accumulated ? lost : lost - s->exits_lost;
	s->exits_lost = lost;
	f->source = task_trace_source(s->tt);
	err = collect_files(s, f);
	if (err)
		return err;
	gmtime_r(&t, &tm);
	strftime(f->when, sizeof(f->when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	top_arrange(f, s->o);
	return 0;
}

struct top_collector *top_collect_start(const char *cmd, struct top_opts *o)
{
	struct task_trace_opts to = { .syscalls = true };
	struct agg_trace_opts so = {
		.kinds = AGG_KINDS_TOP,
		.by_proc = true,
	};
	struct top_collector *s = calloc(1, sizeof(*s));
	int err;

	if (!s) {
		pr_err("out of memory");
		return NULL;
	}
	s->o = o;
	for (int c = 0; c < IOLENS_SC_NR; c++) {
		s->sys_prev[c] = calloc(HIST_BUCKETS, sizeof(__u64));
		if (!s->sys_prev[c]) {
			pr_err("out of memory");
			goto fail;
		}
	}
	s->tt = task_trace_start(cmd, &to);
	if (!s->tt)
		goto fail;
	s->st = agg_trace_start(cmd, &so);
	s->pt = proctable_new(o->threads);
	s->start_ns = s->st ? agg_trace_read_ns(s->st) : 0;
	if (!s->st || !s->pt)
		goto fail;
	for (int c = 0; c < IOLENS_SC_NR; c++)
		task_trace_sys_hist(s->tt, c, s->sys_prev[c]);
	/* The first frame's differences start here. */
	proctable_begin(s->pt);
	err = task_trace_scan(s->tt, proctable_add, s->pt);
	proctable_end(s->pt);
	if (err) {
		pr_err("scanning tasks: %s", strerror(-err));
		goto fail;
	}
	/* Asked for at the start: its failure is said before the terminal
	 * is touched, and the first frame's files start here. */
	if (o->files && !(s->tf = files_start(cmd, o)))
		goto fail;
	return s;
fail:
	top_collect_stop(s);
	return NULL;
}

__u64 top_collect_read_ns(const struct top_collector *c)
{
	return agg_trace_read_ns(c->st);
}

void top_collect_stop(struct top_collector *s)
{
	if (!s)
		return;
	for (int c = 0; c < IOLENS_SC_NR; c++)
		free(s->sys_prev[c]);
	proctable_free(s->pt);
	top_files_stop(s->tf);
	agg_trace_stop(s->st);
	task_trace_stop(s->tt);
	for (int i = 0; i < s->ndg; i++)
		free(s->dg[i].g);
	free(s->dg);
	free(s);
}
