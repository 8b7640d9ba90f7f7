// SPDX-License-Identifier: GPL-2.0
/* The triggers of `record --ring` (include/record/trigger.h): a row each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/devices.h"
#include "lib/diskstats.h"
#include "lib/hist.h"
#include "lib/units.h"
#include "record/trigger.h"

/* p99 and errors look at the last second, in steps of a tenth. */
#define STEP_NS		100000000ULL
#define STEPS		10
/* A percentile of fewer requests than this is the slowest of a handful,
 * not a p99: the trigger waits for a second that had this many. */
#define P99_MIN		100
#define DEVS_MAX	64

struct dev_state {
	__u32 dev;
	/* p99: the last STEPS steps' latencies, and their sum */
	__u64 step;			/* index (time / STEP_NS) of the newest */
	__u64 (*hist)[HIST_BUCKETS];	/* STEPS of them */
	__u64 n[STEPS];
	__u64 sum[HIST_BUCKETS], nsum;
	/* util: io_ticks at the last tick */
	__u64 ticks_ms, at_ns;
};

struct triggers {
	const struct trigger_spec *spec;
	int n;
	struct dev_state dev[DEVS_MAX];
	int ndev;
	/* errors: failed requests of the last STEPS steps */
	__u64 err_step, errs[STEPS];
};

static struct dev_state *dev_of(struct triggers *t, __u32 dev)
{
	for (int i = 0; i < t->ndev; i++)
		if (t->dev[i].dev == dev)
			return &t->dev[i];
	if (t->ndev == DEVS_MAX)
		return NULL;
	t->dev[t->ndev].dev = dev;
	return &t->dev[t->ndev++];
}

static void fired(struct trace_trigger *f, __u64 when, __u32 dev, __u32 pid,
		  const char *value)
{
	f->mono_ns = when;
	f->dev = dev;
	f->pid = pid;
	snprintf(f->value, sizeof(f->value), "%s", value);
}

/* A request's total time, from its start as iostat's await counts it to
 * its completion; 0 where either end was not seen. */
static __u64 total_ns(const struct iolens_rq *rq)
{
	return rq->ts_start && rq->ts_complete > rq->ts_start ? rq->ts_complete - rq->ts_start : 0;
}

/* lat>T */
static bool lat_rq(struct triggers *t, const struct trigger_spec *s,
		   const struct iolens_rq *rq, struct trace_trigger *f)
{
	__u64 lat = total_ns(rq);
	char v[32];

	(void)t;
	if (lat <= s->over)
		return false;
	fmt_ns(v, sizeof(v), lat);
	fired(f, rq->ts_complete, rq->dev, rq->pid, v);
	return true;
}

/* qd>N: the requests in flight on the disk when one was issued; known,
 * and so fired, at its completion. */
static bool qd_rq(struct triggers *t, const struct trigger_spec *s,
		  const struct iolens_rq *rq, struct trace_trigger *f)
{
	char v[32];

	(void)t;
	if (rq->qd <= s->over || !rq->ts_complete)
		return false;
	snprintf(v, sizeof(v), "%u", rq->qd);
	fired(f, rq->ts_complete, rq->dev, rq->pid, v);
	return true;
}

/* A window of the last STEPS steps, its newest *at, moved on to step
 * `to`: clear() empties each slot that a new step takes, at most STEPS
 * of them (after a long quiet, each once). */
static void steps_advance(__u64 *at, __u64 to, void (*clear)(void *ctx, int slot), void *ctx)
{
	if (to > *at + STEPS)
		*at = to - STEPS;
	for (; *at < to; (*at)++)
		clear(ctx, (*at + 1) % STEPS);
}

static void errs_clear(void *ctx, int slot)
{
	((struct triggers *)ctx)->errs[slot] = 0;
}

/* errors>N: more than N failed requests within a second. */
static bool errors_rq(struct triggers *t, const struct trigger_spec *s,
		      const struct iolens_rq *rq, struct trace_trigger *f)
{
	__u64 step = rq->ts_complete / STEP_NS, n = 0;
	char v[32];

	if (!rq->status)
		return false;
	steps_advance(&t->err_step, step, errs_clear, t);
	if (step + STEPS <= t->err_step)
		return false;	/* late, and older than the second */
	t->errs[step % STEPS]++;
	for (int i = 0; i < STEPS; i++)
		n += t->errs[i];
	if (n <= s->over)
		return false;
	snprintf(v, sizeof(v), "%llu in 1s", (unsigned long long)n);
	fired(f, rq->ts_complete, rq->dev, rq->pid, v);
	return true;
}

static void p99_clear(void *ctx, int slot)
{
	struct dev_state *d = ctx;

	for (unsigned int b = 0; b < HIST_BUCKETS; b++)
		d->sum[b] -= d->hist[slot][b];
	d->nsum -= d->n[slot];
	memset(d->hist[slot], 0, sizeof(d->hist[0]));
	d->n[slot] = 0;
}

/* The second that ended with d's newest step, judged; then the window
 * moves on to `step`. */
static bool p99_judge(struct dev_state *d, const struct trigger_spec *s, __u64 step,
		      struct trace_trigger *f)
{
	__u64 p99;
	bool over = false, fire = false;
	char v[48], ns[24];

	if (d->nsum >= P99_MIN && hist_percentile_n(d->sum, d->nsum, 99, &p99, &over) &&
	    p99 > s->over) {
		fmt_ns(ns, sizeof(ns), p99);
		snprintf(v, sizeof(v), "%s%s of %llu", over ? ">" : "", ns,
			 (unsigned long long)d->nsum);
		fired(f, (d->step + 1) * STEP_NS, d->dev, 0, v);
		fire = true;
	}
	steps_advance(&d->step, step, p99_clear, d);
	return fire;
}

/* p99>T: the 99th percentile of a disk's successes that completed in the
 * last second, judged as each tenth of a second ends: at the disk's next
 * completion, or at the next tick when it went quiet. */
static bool p99_rq(struct triggers *t, const struct trigger_spec *s,
		   const struct iolens_rq *rq, struct trace_trigger *f)
{
	struct dev_state *d = dev_of(t, rq->dev);
	__u64 step = rq->ts_complete / STEP_NS, lat = total_ns(rq);
	bool fire = false;
	__u32 b;

	if (!d || !lat || rq->status)
		return false;
	if (!d->hist) {
		d->hist = calloc(STEPS, sizeof(*d->hist));
		if (!d->hist)
			return false;
		d->step = step;
	}
	if (step > d->step)
		fire = p99_judge(d, s, step, f);
	else if (step + STEPS <= d->step)
		return false;	/* late, and older than the second */
	b = hist_index(lat);
	d->hist[step % STEPS][b]++;
	d->n[step % STEPS]++;
	d->sum[b]++;
	d->nsum++;
	return fire;
}

static bool p99_tick(struct triggers *t, const struct trigger_spec *s,
		     __u64 now, struct trace_trigger *f)
{
	bool fire = false;

	for (int i = 0; i < t->ndev; i++) {
		struct dev_state *d = &t->dev[i];

		if (d->hist && now / STEP_NS > d->step &&
		    p99_judge(d, s, now / STEP_NS, fire ? &(struct trace_trigger){} : f))
			fire = true;
	}
	return fire;
}

/* util>P: the share of the last second the disk was busy, from its own
 * io_ticks as iostat's %util (P in thousandths of a percent). */
static bool util_tick(struct triggers *t, const struct trigger_spec *s,
		      __u64 now, struct trace_trigger *f)
{
	bool fire = false;

	for (int i = 0; i < t->ndev; i++) {
		struct dev_state *d = &t->dev[i];
		struct diskstat ds;
		double util;
		char v[32];

		if (diskstat_of_dev(d->dev, &ds))
			continue;
		/* Not after a counter that went back (a disk made anew). */
		if (d->at_ns && now > d->at_ns && ds.io_ticks_ms >= d->ticks_ms && !fire) {
			util = 100.0 * (ds.io_ticks_ms - d->ticks_ms) * 1e6 / (now - d->at_ns);
			if (util * 1000 > s->over) {
				snprintf(v, sizeof(v), "%.1f%%", util > 100 ? 100 : util);
				fired(f, now, d->dev, 0, v);
				fire = true;
			}
		}
		d->ticks_ms = ds.io_ticks_ms;
		d->at_ns = now;
	}
	return fire;
}

/* util learns its disks from the requests. */
static bool util_rq(struct triggers *t, const struct trigger_spec *s,
		    const struct iolens_rq *rq, struct trace_trigger *f)
{
	(void)s;
	(void)f;
	dev_of(t, rq->dev);
	return false;
}

const struct trigger_kind trigger_kinds[] = {
	{ "lat", TRIGGER_TIME, "a request took longer, start to completion", lat_rq, NULL },
	{ "p99", TRIGGER_TIME, "a disk's p99 of the last second (100+ requests)", p99_rq, p99_tick },
	{ "errors", TRIGGER_COUNT, "more failed requests within a second", errors_rq, NULL },
	{ "qd", TRIGGER_COUNT, "more requests in flight on a disk at an issue", qd_rq, NULL },
	{ "util", TRIGGER_PERCENT, "a disk busy more of the last second (%util)", util_rq, util_tick },
};
const unsigned int trigger_nkinds = sizeof(trigger_kinds) / sizeof(trigger_kinds[0]);

void trigger_name(const struct trigger_spec *t, char *buf, size_t len)
{
	static const struct { __u64 ns; const char *unit; } units[] = {
		{ 1000000000ULL, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" },
	};
	const struct trigger_kind *k = &trigger_kinds[t->kind];
	size_t u = 0;

	/* As it was given, in the largest unit it is whole in. */
	if (k->unit == TRIGGER_PERCENT) {
		snprintf(buf, len, "%s>%g%%", k->name, t->over / 1000.0);
		return;
	}
	if (k->unit == TRIGGER_COUNT) {
		snprintf(buf, len, "%s>%llu", k->name, (unsigned long long)t->over);
		return;
	}
	while (t->over && t->over % units[u].ns)
		u++;
	snprintf(buf, len, "%s>%llu%s", k->name,
		 (unsigned long long)(t->over / units[u].ns), units[u].unit);
}

struct triggers *triggers_new(const struct trigger_spec *specs, int n)
{
	struct triggers *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->spec = specs;
	t->n = n;
	return t;
}

void triggers_free(struct triggers *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->ndev; i++)
		free(t->dev[i].hist);
	free(t);
}

bool triggers_rq(struct triggers *t, const struct iolens_rq *rq,
		 struct trace_trigger *f)
{
	bool fire = false;

	/* Every row sees every request, so each keeps its window whole. */
	for (int i = 0; i < t->n; i++) {
		const struct trigger_kind *k = &trigger_kinds[t->spec[i].kind];

		if (k->rq(t, &t->spec[i], rq, fire ? &(struct trace_trigger){} : f) && !fire) {
			trigger_name(&t->spec[i], f->what, sizeof(f->what));
			fire = true;
		}
	}
	return fire;
}

bool triggers_tick(struct triggers *t, __u64 now, struct trace_trigger *f)
{
	for (int i = 0; i < t->n; i++) {
		const struct trigger_kind *k = &trigger_kinds[t->spec[i].kind];

		if (k->tick && k->tick(t, &t->spec[i], now, f)) {
			trigger_name(&t->spec[i], f->what, sizeof(f->what));
			return true;
		}
	}
	return false;
}
