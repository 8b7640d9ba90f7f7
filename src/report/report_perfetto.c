// SPDX-License-Identifier: GPL-2.0
/*
 * Chrome Trace Event JSON for ui.perfetto.dev: one process per disk, one
 * thread per "queue slot", a complete ("X") slice per request.
 *
 * A disk works on many requests at once, but "X" slices on one thread must
 * nest, so requests are packed into lanes: each goes to the lowest lane that
 * is free when it starts, which keeps the number of lanes equal to the peak
 * concurrency and the low lanes dense.  A lane holds the request's queue
 * part ("queued", start to issue, when the start was seen) followed by its
 * device part (issue to complete).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/json.h"
#include "trace/reqflags.h"
#include "report/report_perfetto.h"

struct item {
	__u64 begin;		/* start of the lane occupancy */
	const struct iolens_rq *rq;
	__u32 dev;
	bool placed;
};

/* Min-heap of (key, lane), ordered by key then lane. */
struct heap_ent {
	__u64 key;
	__u32 lane;
};

struct heap {
	struct heap_ent *e;
	size_t n;
};

struct counter_ev {
	__u64 ts;
	int delta;
};

static bool heap_less(const struct heap_ent *a, const struct heap_ent *b)
{
	return a->key < b->key || (a->key == b->key && a->lane < b->lane);
}

static void heap_push(struct heap *h, __u64 key, __u32 lane)
{
	size_t i = h->n++;

	h->e[i] = (struct heap_ent){ key, lane };
	while (i && heap_less(&h->e[i], &h->e[(i - 1) / 2])) {
		struct heap_ent t = h->e[i];

		h->e[i] = h->e[(i - 1) / 2];
		h->e[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static struct heap_ent heap_pop(struct heap *h)
{
	struct heap_ent top = h->e[0];
	size_t i = 0;

	h->e[0] = h->e[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && heap_less(&h->e[l], &h->e[m]))
			m = l;
		if (r < h->n && heap_less(&h->e[r], &h->e[m]))
			m = r;
		if (m == i)
			break;
		struct heap_ent t = h->e[i];

		h->e[i] = h->e[m];
		h->e[m] = t;
		i = m;
	}
	return top;
}

/* Without an issue or a completion time a request has no place on the time
 * line, and a completion before the issue is damaged data: none is drawn. */
static bool placeable(const struct iolens_rq *rq)
{
	return rq->ts_issue && rq->ts_complete >= rq->ts_issue;
}

static bool has_queue(const struct iolens_rq *rq)
{
	return rq->ts_start && rq->ts_start <= rq->ts_issue;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->placed != y->placed)
		return x->placed ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	/* Same start: keep it deterministic (completion order). */
	return x->rq < y->rq ? -1 : x->rq > y->rq;
}

static int cmp_counter(const void *a, const void *b)
{
	const struct counter_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* Completions first: a request issued the instant another completes
	 * is not a moment of higher queue depth. */
	return x->delta - y->delta;
}

struct pf {
	struct json j;
	__u64 t0;
};

/* Timestamps in microseconds with nanosecond decimals. */
static void ts_us(struct pf *p, const char *key, __u64 ns)
{
	json_f64(&p->j, key, (double)(ns - p->t0) / 1000.0, 3);
}

static void ev_open(struct pf *p, const char *ph, const char *name,
		    unsigned int pid, unsigned int tid)
{
	json_obj_open(&p->j, NULL);
	json_str(&p->j, "ph", ph);
	json_str(&p->j, "name", name);
	json_u64(&p->j, "pid", pid);
	json_u64(&p->j, "tid", tid);
}

static void ev_close(struct pf *p)
{
	json_obj_close(&p->j);
	/* One event per line: whitespace is free in JSON, and lines make
	 * the file greppable. */
	fputc('\n', p->j.f);
}

static void meta_str(struct pf *p, const char *name, unsigned int pid,
		     unsigned int tid, const char *key, const char *val)
{
	ev_open(p, "M", name, pid, tid);
	json_obj_open(&p->j, "args");
	json_str(&p->j, key, val);
	json_obj_close(&p->j);
	ev_close(p);
}

static void meta_u64(struct pf *p, const char *name, unsigned int pid,
		     unsigned int tid, const char *key, __u64 val)
{
	ev_open(p, "M", name, pid, tid);
	json_obj_open(&p->j, "args");
	json_u64(&p->j, key, val);
	json_obj_close(&p->j);
	ev_close(p);
}

static void emit_request(struct pf *p, const struct iolens_rq *rq,
			 unsigned int pid, unsigned int tid)
{
	char name[48], flags[96];
	struct json *j = &p->j;

	if (has_queue(rq)) {
		ev_open(p, "X", "queued", pid, tid);
		json_str(j, "cat", "queue");
		ts_us(p, "ts", rq->ts_start);
		json_f64(j, "dur", (rq->ts_issue - rq->ts_start) / 1000.0, 3);
		json_obj_open(j, "args");
		json_f64(j, "queue_us", (rq->ts_issue - rq->ts_start) / 1000.0, 3);
		json_obj_close(j);
		ev_close(p);
	}

	if (rq->bytes)
		snprintf(name, sizeof(name), "%s %u", op_name(rq->op), rq->bytes);
	else
		snprintf(name, sizeof(name), "%s", op_name(rq->op));
	ev_open(p, "X", name, pid, tid);
	json_str(j, "cat", "device");
	ts_us(p, "ts", rq->ts_issue);
	json_f64(j, "dur", (rq->ts_complete - rq->ts_issue) / 1000.0, 3);
	json_obj_open(j, "args");
	json_u64(j, "sector", rq->sector);
	json_u64(j, "bytes", rq->bytes);
	if (rq->ctx == IOLENS_CTX_NONE) {
		/* Already in flight when tracing began: submitter unknown. */
		json_null(j, "pid");
		json_null(j, "tid");
		json_null(j, "comm");
	} else {
		json_u64(j, "pid", rq->pid);
		json_u64(j, "tid", rq->tid);
		json_str(j, "comm", rq->comm);
	}
	if (has_queue(rq))
		json_f64(j, "queue_us", (rq->ts_issue - rq->ts_start) / 1000.0, 3);
	else
		json_null(j, "queue_us");
	json_f64(j, "device_us", (rq->ts_complete - rq->ts_issue) / 1000.0, 3);
	if (rq->qd)
		json_u64(j, "qd", rq->qd);
	else
		json_null(j, "qd");
	json_str(j, "status", blk_status_name(rq->status));
	flags_str(rq->flags, flags, sizeof(flags));
	json_str(j, "flags", flags);
	json_obj_close(j);
	ev_close(p);
}

/* Requests of one disk, placed ones first in start order. */
static void emit_device(struct pf *p, const struct perfetto_src *src,
			const struct item *it, size_t n, unsigned int pid,
			struct heap *busy, struct heap *free_lanes,
			struct counter_ev *cev)
{
	size_t placed = 0, unplaced, i, nc = 0;
	unsigned int nlanes = 0;
	__u64 inflight = 0, shown = 0;
	bool first = true;
	char label[96];

	while (placed < n && it[placed].placed)
		placed++;
	unplaced = n - placed;

	/* Process-wide events go on the main thread (tid == pid): tid 0 is
	 * the idle task to Perfetto. */
	meta_str(p, "process_name", pid, pid, "name",
		 src->dev_name(src->ctx, it[0].dev));
	meta_u64(p, "process_sort_index", pid, pid, "sort_index", pid);
	if (unplaced) {
		snprintf(label, sizeof(label),
			 "%zu requests not drawn: issue or completion time unknown", unplaced);
		meta_str(p, "process_labels", pid, pid, "labels", label);
	}

	busy->n = 0;
	free_lanes->n = 0;
	for (i = 0; i < placed; i++) {
		const struct iolens_rq *rq = it[i].rq;
		__u32 lane;

		while (busy->n && busy->e[0].key <= it[i].begin) {
			lane = heap_pop(busy).lane;
			heap_push(free_lanes, lane, lane);
		}
		lane = free_lanes->n ? heap_pop(free_lanes).lane : nlanes++;
		heap_push(busy, rq->ts_complete, lane);
		/* Lanes count from 1, as slots are named. */
		emit_request(p, rq, pid, lane + 1);

		cev[nc++] = (struct counter_ev){ rq->ts_issue, 1 };
		cev[nc++] = (struct counter_ev){ rq->ts_complete, -1 };
	}

	for (unsigned int l = 1; l <= nlanes; l++) {
		snprintf(label, sizeof(label), "queue slot %u", l);
		meta_str(p, "thread_name", pid, l, "name", label);
		meta_u64(p, "thread_sort_index", pid, l, "sort_index", l);
	}

	qsort(cev, nc, sizeof(*cev), cmp_counter);
	for (i = 0; i < nc; i++) {
		inflight += cev[i].delta;
		if (i + 1 < nc && cev[i + 1].ts == cev[i].ts)
			continue;
		if (!first && inflight == shown)
			continue;
		ev_open(p, "C", "in flight", pid, pid);
		ts_us(p, "ts", cev[i].ts);
		json_obj_open(&p->j, "args");
		json_u64(&p->j, "requests", inflight);
		json_obj_close(&p->j);
		ev_close(p);
		shown = inflight;
		first = false;
	}
}

static void emit_metadata(struct pf *p, const struct perfetto_src *src,
			  size_t placed, size_t no_issue)
{
	const struct trace_header *h = src->hdr;
	struct json *j = &p->j;
	struct tm tm;
	time_t secs = h->real_ns / 1000000000ULL;
	char when[64] = "";

	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
	json_obj_open(j, "metadata");
	json_str(j, "tool", h->tool);
	json_str(j, "host", h->host);
	json_str(j, "kernel", h->kernel);
	json_str(j, "start", when);
	json_u64(j, "start_monotonic_ns", h->mono_ns);
	json_u64(j, "time_zero_monotonic_ns", p->t0);
	if (src->complete && src->end_ns >= h->mono_ns)
		json_f64(j, "duration_s", (src->end_ns - h->mono_ns) / 1e9, 6);
	else
		json_null(j, "duration_s");
	json_u64(j, "requests_in_file", src->total);
	json_u64(j, "requests_selected", src->nrq);
	json_u64(j, "requests_drawn", placed);
	json_u64(j, "requests_not_drawn", src->nrq - placed);
	json_u64(j, "requests_without_issue_time", no_issue);
	json_u64(j, "lost_records", src->lost);
	if (src->complete)
		json_u64(j, "untracked_requests", src->untracked);
	else
		json_null(j, "untracked_requests");
	json_bool(j, "truncated", !src->complete);
	json_obj_close(j);
}

int report_perfetto(FILE *f, const struct perfetto_src *src)
{
	size_t n = src->nrq, placed = 0, no_issue = 0, i, start;
	struct item *items = calloc(n ? n : 1, sizeof(*items));
	struct heap busy = { calloc(n ? n : 1, sizeof(struct heap_ent)), 0 };
	struct heap free_lanes = { calloc(n ? n : 1, sizeof(struct heap_ent)), 0 };
	struct counter_ev *cev = calloc(n ? 2 * n : 1, sizeof(*cev));
	unsigned int pid = 0;
	struct pf p;
	int ret = -1;

	if (!items || !busy.e || !free_lanes.e || !cev)
		goto out;

	/* Time zero is the start of recording, or earlier if requests that
	 * were already queued then are drawn: no negative timestamps. */
	p.t0 = src->hdr->mono_ns;
	for (i = 0; i < n; i++) {
		const struct iolens_rq *rq = &src->rq[i];

		items[i].rq = rq;
		items[i].dev = rq->dev;
		items[i].placed = placeable(rq);
		if (!rq->ts_issue)
			no_issue++;
		if (!items[i].placed)
			continue;
		placed++;
		items[i].begin = has_queue(rq) ? rq->ts_start : rq->ts_issue;
		if (items[i].begin < p.t0)
			p.t0 = items[i].begin;
	}
	qsort(items, n, sizeof(*items), cmp_item);

	json_init(&p.j, f);
	json_obj_open(&p.j, NULL);
	json_arr_open(&p.j, "traceEvents");
	fputc('\n', f);
	for (start = 0; start < n; start = i) {
		for (i = start; i < n && items[i].dev == items[start].dev; i++)
			;
		/* pid 0 is the idle task to Perfetto: disks count from 1. */
		emit_device(&p, src, items + start, i - start, ++pid,
			    &busy, &free_lanes, cev);
	}
	json_arr_close(&p.j);
	json_str(&p.j, "displayTimeUnit", "ns");
	emit_metadata(&p, src, placed, no_issue);
	json_obj_close(&p.j);
	json_newline(&p.j);
	ret = 0;
out:
	free(items);
	free(busy.e);
	free(free_lanes.e);
	free(cev);
	return ret;
}
