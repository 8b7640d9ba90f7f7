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
 *
 * Lanes need the requests in start order, the "in flight" counter its
 * events in time order, and the file holds requests in completion order.
 * A first pass finds how far a start may lie before the latest completion
 * read (the longest request, plus how far completions come out of order):
 * in the second, whatever starts before that horizon is final and written,
 * so memory holds one such window of requests, not the trace.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/json.h"
#include "trace/reqflags.h"
#include "report/report.h"
#include "report/report_perfetto.h"
#include "lib/vec.h"

/* A binary min-heap of fixed-size elements. */
struct vheap {
	char *v;
	size_t n, cap, size;
	int (*cmp)(const void *a, const void *b);
};

static void vswap(struct vheap *h, size_t i, size_t k, void *tmp)
{
	memcpy(tmp, h->v + i * h->size, h->size);
	memcpy(h->v + i * h->size, h->v + k * h->size, h->size);
	memcpy(h->v + k * h->size, tmp, h->size);
}

static void *vtop(const struct vheap *h)
{
	return h->n ? h->v : NULL;
}

static int vpush(struct vheap *h, const void *e)
{
	char tmp[256];
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		char *v = realloc(h->v, cap * h->size);

		if (!v)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	i = h->n++;
	memcpy(h->v + i * h->size, e, h->size);
	while (i && h->cmp(h->v + i * h->size, h->v + (i - 1) / 2 * h->size) < 0) {
		vswap(h, i, (i - 1) / 2, tmp);
		i = (i - 1) / 2;
	}
	return 0;
}

/* Takes the least element out into `out`. */
static void vpop(struct vheap *h, void *out)
{
	char tmp[256];
	size_t i = 0;

	memcpy(out, h->v, h->size);
	h->n--;
	memcpy(h->v, h->v + h->n * h->size, h->size);
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && h->cmp(h->v + l * h->size, h->v + m * h->size) < 0)
			m = l;
		if (r < h->n && h->cmp(h->v + r * h->size, h->v + m * h->size) < 0)
			m = r;
		if (m == i)
			break;
		vswap(h, i, m, tmp);
		i = m;
	}
}

/* A lane: busy until `key` (a completion), or free (key = its number). */
struct lane {
	__u64 key;
	__u32 lane;
};

/* A request waiting for its turn, by start; seq keeps file order. */
struct pend {
	__u64 begin;
	__u64 seq;
	struct iolens_rq rq;
};

struct counter_ev {
	__u64 ts;
	int delta;
};

static int cmp_lane(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->lane < y->lane ? -1 : x->lane > y->lane;
}

static int cmp_pend(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
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

static __u64 begin_of(const struct iolens_rq *rq)
{
	return has_queue(rq) ? rq->ts_start : rq->ts_issue;
}

/* A disk: a process of the trace. */
struct pdev {
	__u32 dev;
	unsigned int pid;
	__u64 placed, unplaced;		/* requests, from the first pass */
	struct vheap busy, free_lanes, pend, cev;
	unsigned int nlanes;
	__u64 inflight, shown;
	bool first;
};

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

struct perfetto {
	struct pf p;
	const struct trace_header *hdr;
	struct pdev *dev;
	int ndev;
	__u64 selected, no_issue, seq;
	/* First pass: the horizon's parts; second: the latest completion. */
	__u64 longest, skew, max_complete;
	bool any;
};

struct perfetto *perfetto_new(FILE *f, const struct trace_header *h)
{
	struct perfetto *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->hdr = h;
	p->p.t0 = h->mono_ns;
	json_init(&p->p.j, f);
	return p;
}

static struct pdev *dev_of(struct perfetto *p, __u32 dev)
{
	bool added;
	struct pdev *d;

	/* The first REPORT_DEVS disks apart, the others as one
	 * (report/report.h). */
	if (p->ndev >= REPORT_DEVS && !vec_find_by(p->dev, p->ndev, dev, &dev))
		dev = REPORT_OTHER_DEVS;
	d = vec_get_by(&p->dev, &p->ndev, dev, &dev, &added);
	if (!d || !added)
		return d;
	d->first = true;
	d->busy = (struct vheap){ .size = sizeof(struct lane), .cmp = cmp_lane };
	d->free_lanes = d->busy;
	d->pend = (struct vheap){ .size = sizeof(struct pend), .cmp = cmp_pend };
	d->cev = (struct vheap){ .size = sizeof(struct counter_ev), .cmp = cmp_counter };
	return d;
}

int perfetto_scan(struct perfetto *p, const struct iolens_rq *rq)
{
	struct pdev *d = dev_of(p, rq->dev);
	__u64 begin;

	if (!d)
		return -1;
	p->selected++;
	if (!rq->ts_issue)
		p->no_issue++;
	if (!placeable(rq)) {
		d->unplaced++;
		return 0;
	}
	d->placed++;
	begin = begin_of(rq);
	/* Time zero is the start of recording, or earlier if requests that
	 * were already queued then are drawn: no negative timestamps. */
	if (begin < p->p.t0)
		p->p.t0 = begin;
	if (rq->ts_complete - begin > p->longest)
		p->longest = rq->ts_complete - begin;
	if (!p->any || rq->ts_complete > p->max_complete)
		p->max_complete = rq->ts_complete;
	else if (p->max_complete - rq->ts_complete > p->skew)
		p->skew = p->max_complete - rq->ts_complete;
	p->any = true;
	return 0;
}

static int by_dev(const void *a, const void *b)
{
	const struct pdev *x = a, *y = b;

	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

void perfetto_begin(struct perfetto *p,
		    const char *(*dev_name)(void *ctx, __u32 dev), void *ctx)
{
	char label[96];

	json_obj_open(&p->p.j, NULL);
	json_arr_open(&p->p.j, "traceEvents");
	fputc('\n', p->p.j.f);
	vec_sort(p->dev, p->ndev, sizeof(*p->dev), by_dev);
	for (int i = 0; i < p->ndev; i++) {
		struct pdev *d = &p->dev[i];

		/* pid 0 is the idle task to Perfetto: disks count from 1.
		 * Process-wide events go on the main thread (tid == pid). */
		d->pid = i + 1;
		meta_str(&p->p, "process_name", d->pid, d->pid, "name", dev_name(ctx, d->dev));
		meta_u64(&p->p, "process_sort_index", d->pid, d->pid, "sort_index", d->pid);
		if (d->unplaced) {
			snprintf(label, sizeof(label),
				 "%llu requests not drawn: issue or completion time unknown",
				 (unsigned long long)d->unplaced);
			meta_str(&p->p, "process_labels", d->pid, d->pid, "labels", label);
		}
	}
	p->max_complete = 0;
	p->any = false;
}

/* Writes the requests of `d` that start before `horizon` (all if `all`),
 * in start order, in the lowest free lane, and the in-flight counter up to
 * there.  -1 if out of memory. */
static int drain(struct perfetto *p, struct pdev *d, __u64 horizon, bool all)
{
	struct counter_ev ev, *next;
	struct lane l, *b;
	struct pend *top;

	while ((top = vtop(&d->pend)) && (all || top->begin < horizon)) {
		struct pend r;

		vpop(&d->pend, &r);
		while ((b = vtop(&d->busy)) && b->key <= r.begin) {
			vpop(&d->busy, &l);
			l.key = l.lane;
			if (vpush(&d->free_lanes, &l))
				return -1;
		}
		if (d->free_lanes.n)
			vpop(&d->free_lanes, &l);
		else
			l.lane = d->nlanes++;
		l.key = r.rq.ts_complete;
		if (vpush(&d->busy, &l))
			return -1;
		/* Lanes count from 1, as slots are named. */
		emit_request(&p->p, &r.rq, d->pid, l.lane + 1);
	}
	while ((next = vtop(&d->cev)) && (all || next->ts < horizon)) {
		vpop(&d->cev, &ev);
		d->inflight += ev.delta;
		while ((next = vtop(&d->cev)) && next->ts == ev.ts) {
			vpop(&d->cev, &ev);
			d->inflight += ev.delta;
		}
		if (!d->first && d->inflight == d->shown)
			continue;
		ev_open(&p->p, "C", "in flight", d->pid, d->pid);
		ts_us(&p->p, "ts", ev.ts);
		json_obj_open(&p->p.j, "args");
		json_u64(&p->p.j, "requests", d->inflight);
		json_obj_close(&p->p.j);
		ev_close(&p->p);
		d->shown = d->inflight;
		d->first = false;
	}
	return 0;
}

int perfetto_add(struct perfetto *p, const struct iolens_rq *rq)
{
	struct pdev *d = dev_of(p, rq->dev);
	struct pend r = { .seq = p->seq++ };
	struct counter_ev in, out;
	__u64 horizon;

	if (!d)
		return -1;
	if (!placeable(rq))
		return 0;
	r.begin = begin_of(rq);
	r.rq = *rq;
	in = (struct counter_ev){ rq->ts_issue, 1 };
	out = (struct counter_ev){ rq->ts_complete, -1 };
	if (vpush(&d->pend, &r) || vpush(&d->cev, &in) || vpush(&d->cev, &out))
		return -1;
	if (rq->ts_complete > p->max_complete)
		p->max_complete = rq->ts_complete;
	/* A request still to come completes at or after max_complete - skew
	 * and started at most `longest` before that. */
	if (p->max_complete > p->skew + p->longest) {
		horizon = p->max_complete - p->skew - p->longest;
		for (int i = 0; i < p->ndev; i++)
			if (drain(p, &p->dev[i], horizon, false))
				return -1;
	}
	return 0;
}

static void emit_metadata(struct perfetto *p, const struct perfetto_facts *fx)
{
	const struct trace_header *h = p->hdr;
	struct json *j = &p->p.j;
	__u64 placed = 0;
	struct tm tm;
	time_t secs = h->real_ns / 1000000000ULL;
	char when[64] = "";

	for (int i = 0; i < p->ndev; i++)
		placed += p->dev[i].placed;
	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
	json_obj_open(j, "metadata");
	json_str(j, "tool", h->tool);
	json_str(j, "host", h->host);
	json_str(j, "kernel", h->kernel);
	json_str(j, "start", when);
	json_u64(j, "start_monotonic_ns", h->mono_ns);
	json_u64(j, "time_zero_monotonic_ns", p->p.t0);
	if (fx->complete && fx->end_ns >= h->mono_ns)
		json_f64(j, "duration_s", (fx->end_ns - h->mono_ns) / 1e9, 6);
	else
		json_null(j, "duration_s");
	json_u64(j, "requests_in_file", fx->total);
	json_u64(j, "requests_selected", p->selected);
	json_u64(j, "requests_drawn", placed);
	json_u64(j, "requests_not_drawn", p->selected - placed);
	json_u64(j, "requests_without_issue_time", p->no_issue);
	json_u64(j, "lost_records", fx->lost);
	if (fx->complete)
		json_u64(j, "untracked_requests", fx->untracked);
	else
		json_null(j, "untracked_requests");
	json_bool(j, "truncated", !fx->complete);
	json_obj_close(j);
}

int perfetto_end(struct perfetto *p, const struct perfetto_facts *facts)
{
	char label[96];

	for (int i = 0; i < p->ndev; i++) {
		struct pdev *d = &p->dev[i];

		if (drain(p, d, 0, true))
			return -1;
		for (unsigned int l = 1; l <= d->nlanes; l++) {
			snprintf(label, sizeof(label), "queue slot %u", l);
			meta_str(&p->p, "thread_name", d->pid, l, "name", label);
			meta_u64(&p->p, "thread_sort_index", d->pid, l, "sort_index", l);
		}
	}
	json_arr_close(&p->p.j);
	json_str(&p->p.j, "displayTimeUnit", "ns");
	emit_metadata(p, facts);
	json_obj_close(&p->p.j);
	json_newline(&p->p.j);
	return 0;
}

void perfetto_free(struct perfetto *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->ndev; i++) {
		free(p->dev[i].busy.v);
		free(p->dev[i].free_lanes.v);
		free(p->dev[i].pend.v);
		free(p->dev[i].cev.v);
	}
	free(p->dev);
	free(p);
}
