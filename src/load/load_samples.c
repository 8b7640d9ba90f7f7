// SPDX-License-Identifier: GPL-2.0
/*
 * Per-interval bandwidth and IOPS samples of iolens load, taken as fio
 * takes them: not by the job threads but by one other thread (fio's helper
 * thread; here the main thread, see load_monitor.c), which reads each
 * job's I/O and byte counters every bwavgtime / iopsavgtime ms (500 by
 * default).  A job pays nothing for it beyond the counters it keeps anyway.
 *
 * fio's rules, kept: an interval starts when the job's statistics start
 * (after the ramp); a sample is the change over the interval divided by
 * its length in whole ms (bw in KiB/s, integer division); a direction
 * without I/O in an interval gets no sample; a wake-up more than 1 ms
 * early takes none; the last, partial interval of a job is dropped.
 */
#include <stdlib.h>
#include <string.h>
#include "load/job.h"
#include "load/load.h"
#include "load/monitor.h"
#include "load/stats.h"

/* One kind of sample (bw or IOPS) of one thread. */
struct clock {
	__u64 avg_ms;
	__u64 last_ns;			/* end of the last interval */
	__u64 prev[LOAD_DIRS];		/* the counter then */
	struct load_rate rate[LOAD_DIRS];
};

struct thread_samples {
	__u64 since;			/* start_ns seen; 0 not yet */
	struct clock bw, iops;
};

struct load_sampler {
	struct load_thread *th;
	unsigned int n;
	struct thread_samples *ts;
};

struct load_sampler *load_samples_new(struct load_thread *th, unsigned int n)
{
	struct load_sampler *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ts = calloc(n ? n : 1, sizeof(*s->ts));
	if (!s->ts) {
		free(s);
		return NULL;
	}
	s->th = th;
	s->n = n;
	for (unsigned int i = 0; i < n; i++) {
		s->ts[i].bw.avg_ms = th[i].o->bw_avg_ms;
		s->ts[i].iops.avg_ms = th[i].o->iops_avg_ms;
	}
	return s;
}

/* fio's __add_samples(); returns when the next sample is due. */
static __u64 take(struct clock *c, const __u64 *count, bool bytes, __u64 now)
{
	__u64 spent = (now - c->last_ns) / 1000000, delta, v;

	if (spent < c->avg_ms && c->avg_ms - spent > 1)
		return c->last_ns + c->avg_ms * 1000000;
	for (int d = 0; d < LOAD_DIRS; d++) {
		__u64 cur = count[d];

		/* Zeroed by a restart not yet seen (latency_target): none. */
		if (cur < c->prev[d])
			c->prev[d] = 0;
		delta = cur - c->prev[d];
		if (!delta)
			continue;
		v = 0;
		if (spent)
			v = bytes ? delta * 1000 / spent / 1024 : delta * 1000 / spent;
		load_rate_add(&c->rate[d], v);
		c->prev[d] = cur;
	}
	c->last_ns = now;
	/* Late by more than the slack: the next one comes early, as fio's. */
	if (spent <= c->avg_ms)
		return now + c->avg_ms * 1000000;
	spent -= c->avg_ms;
	return now + (spent + 1 < c->avg_ms ? c->avg_ms - spent - 1 : 0) * 1000000;
}

/*
 * A thread in its ramp or waiting behind a stonewall: when to look again.
 * The first interval starts at the thread's own start_ns, so seeing it
 * late costs nothing as long as it is seen within an interval.
 */
static __u64 not_started_poll(const struct thread_samples *ts)
{
	__u64 ms = 100;

	if (ts->bw.avg_ms < ms)
		ms = ts->bw.avg_ms;
	if (ts->iops.avg_ms < ms)
		ms = ts->iops.avg_ms;
	return ms * 1000000 / 2;
}

__u64 load_samples_take(struct load_sampler *s, unsigned int i, __u64 now)
{
	struct thread_samples *ts = &s->ts[i];
	struct load_thread *t = &s->th[i];
	__u64 since, a, b, bytes[LOAD_DIRS], ios[LOAD_DIRS];

	/* The job publishes start_ns after zeroing its counters; a new one
	 * (latency_target's final window) starts the samples again, as
	 * fio's reset_io_stats(). */
	since = __atomic_load_n(&t->start_ns, __ATOMIC_ACQUIRE);
	if (!since)
		return now + not_started_poll(ts);
	if (since != ts->since) {
		for (int k = 0; k < 2; k++) {
			struct clock *c = k ? &ts->iops : &ts->bw;

			memset(c->prev, 0, sizeof(c->prev));
			memset(c->rate, 0, sizeof(c->rate));
			c->last_ns = since;
		}
		ts->since = since;
	}
	/* Both counters of a direction read together, so that the bw and
	 * the IOPS of an interval count the same I/Os. */
	for (int d = 0; d < LOAD_DIRS; d++) {
		bytes[d] = __atomic_load_n(&t->st.dir[d].bytes, __ATOMIC_RELAXED);
		ios[d] = __atomic_load_n(&t->st.dir[d].ios, __ATOMIC_RELAXED);
	}
	a = take(&ts->bw, bytes, true, now);
	b = take(&ts->iops, ios, false, now);
	return a < b ? a : b;
}

void load_samples_store(struct load_sampler *s)
{
	if (!s)
		return;
	for (unsigned int i = 0; i < s->n; i++) {
		for (int d = 0; d < LOAD_DIRS; d++) {
			s->th[i].st.dir[d].bw_rate = s->ts[i].bw.rate[d];
			s->th[i].st.dir[d].iops_rate = s->ts[i].iops.rate[d];
		}
	}
	free(s->ts);
	free(s);
}
