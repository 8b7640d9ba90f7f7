// SPDX-License-Identifier: GPL-2.0
/*
 * fio's steady state (ss, ss_dur, ss_ramp), as fio 3.33's steadystate.c
 * judges it, on the monitor thread once a second:
 *   - a thread's IOPS and bandwidth over the second are its counters'
 *     change over the time since the last check (the first time, since
 *     its statistics started, at 0); with group_reporting
 *     those of a group's threads add up, and the group's last thread
 *     keeps the ring;
 *   - with ss_ramp, samples start a second after it from the thread's
 *     start; without, at once;
 *   - once ss_dur samples are in, each new one asks whether the largest
 *     deviation from their mean (iops, bw) or the slope of their least-
 *     squares line (iops_slope, bw_slope), per second, or as a percentage
 *     of the mean, is below the limit; then the job (or its group) has
 *     attained it and ends.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/log.h"
#include "lib/parse.h"
#include "load/job.h"
#include "load/steady.h"

#define CHECK_NS 1000000000ULL	/* fio's STEADYSTATE_MSEC */

/* What the check keeps of each thread between seconds. */
struct seen {
	__u64 start;		/* the thread's start_ns seen */
	__u64 at_ns, ios, bytes;
	bool ramp_over;
};

struct load_steady_run {
	struct load_thread *th;
	unsigned int n;
	bool group_reporting;
	struct seen *seen;
	__u64 next_ns;
};

static const struct {
	const char *name;
	unsigned int flags;
} kinds[] = {
	{ "iops", LOAD_SS_IOPS }, { "iops_slope", LOAD_SS_IOPS | LOAD_SS_SLOPE },
	{ "bw", 0 }, { "bw_slope", LOAD_SS_SLOPE },
};

int load_steady_parse(const char *value, struct load_job_opts *o, const char **err)
{
	size_t n = strcspn(value, ":");
	const char *lim = value[n] ? value + n + 1 : NULL;
	unsigned int flags = ~0U;
	char *end;
	double v;
	__u64 sz;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i].name) == n && !strncmp(kinds[i].name, value, n))
			flags = kinds[i].flags;
	}
	*err = "want iops, iops_slope, bw or bw_slope, ':' and a limit, e.g. iops:10%";
	if (flags == ~0U || !lim || !*lim)
		return -1;
	v = strtod(lim, &end);
	if (end != lim && *end == '%' && !end[1] && v >= 0 && isfinite(v)) {
		flags |= LOAD_SS_PCT;
	} else if (flags & LOAD_SS_IOPS) {
		if (end == lim || *end || v < 0 || !isfinite(v))
			return -1;
	} else {
		/* A bandwidth: bytes a second, fio's size suffixes. */
		if (parse_size(lim, &sz))
			return -1;
		v = sz;
	}
	o->ss_flags = flags;
	o->ss_limit = v;
	return 0;
}

const char *load_steady_conflict(const struct load_job_opts *o,
				 const struct load_job_opts *prev)
{
	/* fio truncates to whole seconds, and so turns it off. */
	if (o->ss_dur_ns && o->ss_dur_ns < 1000000000ULL)
		return "ss_dur: at least 1s (a sample a second)";
	if (prev && (prev->ss_dur_ns / 1000000000ULL != o->ss_dur_ns / 1000000000ULL ||
		     prev->ss_flags != o->ss_flags || prev->ss_limit != o->ss_limit ||
		     prev->ss_ramp_ns != o->ss_ramp_ns))
		return "the steady state options of the jobs of a reporting group must be the same";
	return NULL;
}

static struct load_steady *steady_alloc(const struct load_job_opts *o)
{
	struct load_steady *ss = calloc(1, sizeof(*ss));
	unsigned int dur = o->ss_dur_ns / 1000000000ULL;

	if (!ss)
		return NULL;
	ss->iops = calloc(dur, sizeof(*ss->iops));
	ss->bw = calloc(dur, sizeof(*ss->bw));
	if (!ss->iops || !ss->bw) {
		load_steady_free(ss);
		return NULL;
	}
	ss->flags = o->ss_flags;
	ss->limit = o->ss_limit;
	ss->dur = dur;
	/* The x of the samples are 0 .. dur - 1. */
	ss->sum_x = (__u64)dur * (dur - 1) / 2;
	ss->sum_x_sq = (__u64)(dur - 1) * dur * (2 * dur - 1) / 6;
	return ss;
}

void load_steady_free(struct load_steady *ss)
{
	if (!ss)
		return;
	free(ss->iops);
	free(ss->bw);
	free(ss);
}

struct load_steady_run *load_steady_new(struct load_thread *th, unsigned int n,
					bool group_reporting)
{
	struct load_steady_run *r = NULL;
	bool any = false;

	for (unsigned int i = 0; i < n; i++)
		any |= th[i].o->ss_dur_ns != 0;
	if (!any)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (r)
		r->seen = calloc(n, sizeof(*r->seen));
	for (unsigned int i = 0; r && r->seen && i < n; i++) {
		const struct load_job_opts *o = th[i].o;

		if (!o->ss_dur_ns)
			continue;
		/* With group_reporting the group's last thread keeps it. */
		if (group_reporting && i + 1 < n && th[i + 1].o->groupid == o->groupid)
			continue;
		th[i].ss = steady_alloc(o);
		if (!th[i].ss) {
			load_steady_end(r);
			r = NULL;
		}
	}
	if (!r || !r->seen) {
		pr_err("out of memory: no steady state");
		load_steady_end(r);
		for (unsigned int i = 0; i < n; i++) {
			load_steady_free(th[i].ss);
			th[i].ss = NULL;
		}
		return NULL;
	}
	r->th = th;
	r->n = n;
	r->group_reporting = group_reporting;
	return r;
}

void load_steady_end(struct load_steady_run *r)
{
	if (!r)
		return;
	free(r->seen);
	free(r);
}

/* Adds the newest sample y; once the ring is full, the sums fio keeps. */
static void ring_add(struct load_steady *ss, __u64 iops, __u64 bw)
{
	__u64 y = ss->flags & LOAD_SS_IOPS ? iops : bw;
	__u64 *data = ss->flags & LOAD_SS_IOPS ? ss->iops : ss->bw;

	ss->iops[ss->tail] = iops;
	ss->bw[ss->tail] = bw;
	if (!ss->full) {
		ss->sum_y = ss->sum_xy = 0;
		for (unsigned int i = 0; i < ss->dur; i++) {
			ss->sum_y += data[i];
			ss->sum_xy += i * data[(ss->head + i) % ss->dur];
		}
		ss->full = true;
	} else {
		ss->sum_y = ss->sum_y - ss->oldest_y + y;
		ss->sum_xy = ss->sum_xy - ss->sum_y + ss->dur * y;
	}
	ss->oldest_y = data[ss->head];
}

/* fio's steadystate_slope() and steadystate_deviation(): whether the
 * ring, with the new sample, is steady. */
static bool judge(struct load_steady *ss, __u64 iops, __u64 bw)
{
	bool filled = ss->full || ss->tail - ss->head == ss->dur - 1;
	const __u64 *data = ss->flags & LOAD_SS_IOPS ? ss->iops : ss->bw;
	double mean;

	if (!filled) {
		ss->iops[ss->tail] = iops;
		ss->bw[ss->tail] = bw;
	} else {
		ring_add(ss, iops, bw);
		mean = (double)ss->sum_y / ss->dur;
		if (ss->flags & LOAD_SS_SLOPE) {
			ss->slope = (ss->sum_xy - (double)ss->sum_x * ss->sum_y / ss->dur) /
				    (ss->sum_x_sq - (double)ss->sum_x * ss->sum_x / ss->dur);
			ss->criterion = ss->flags & LOAD_SS_PCT ? 100.0 * ss->slope / mean : ss->slope;
			if (fabs(ss->criterion) < ss->limit)
				return true;
		} else {
			ss->deviation = 0;
			for (unsigned int i = 0; i < ss->dur; i++)
				ss->deviation = fmax(ss->deviation, fabs(data[i] - mean));
			ss->criterion = ss->flags & LOAD_SS_PCT ? 100.0 * ss->deviation / mean
								: ss->deviation;
			if (ss->criterion < ss->limit)
				return true;
		}
	}
	ss->tail = (ss->tail + 1) % ss->dur;
	if (ss->tail <= ss->head)
		ss->head = (ss->head + 1) % ss->dur;
	return false;
}

/* Every thread of the group of th[i] (or th[i] alone) ends. */
static void attained(struct load_steady_run *r, unsigned int i)
{
	for (unsigned int k = 0; k < r->n; k++) {
		if (k == i || (r->group_reporting && r->th[k].o->groupid == r->th[i].o->groupid))
			__atomic_store_n(&r->th[k].terminate, true, __ATOMIC_RELAXED);
	}
}

__u64 load_steady_check(struct load_steady_run *r, const bool *ended, __u64 now)
{
	__u64 group_iops = 0, group_bw = 0;
	unsigned int over = 0;
	int group = -1;

	if (now < r->next_ns)
		return r->next_ns;
	for (unsigned int i = 0; i < r->n; i++) {
		struct load_thread *t = &r->th[i];
		const struct load_job_opts *o = t->o;
		struct seen *s = &r->seen[i];
		__u64 start = __atomic_load_n(&t->start_ns, __ATOMIC_ACQUIRE);
		__u64 ios = 0, bytes = 0;

		/* Not started, ended, or done: as fio's, not counted. */
		if (!o->ss_dur_ns || !start || ended[i] || (t->ss && t->ss->attained))
			continue;
		if (!r->group_reporting || o->groupid != group)
			group_iops = group_bw = over = 0;
		group = o->groupid;
		/* From the thread's start, its ramp_time included. */
		if (!s->ramp_over && (!o->ss_ramp_ns ||
				      now - (start - o->ramp_ns) >= o->ss_ramp_ns + CHECK_NS))
			s->ramp_over = true;
		for (int d = 0; d < LOAD_DIRS; d++) {
			ios += __atomic_load_n(&t->st.dir[d].ios, __ATOMIC_RELAXED);
			bytes += __atomic_load_n(&t->st.dir[d].bytes, __ATOMIC_RELAXED);
		}
		/* First seen, or its statistics started again: from then. */
		if (s->start != start) {
			s->start = s->at_ns = start;
			s->ios = s->bytes = 0;
		}
		if (s->ramp_over && now - s->at_ns >= 1000000) {
			__u64 ms = (now - s->at_ns) / 1000000;

			group_iops += 1000 * (ios - s->ios) / ms;
			group_bw += 1000 * (bytes - s->bytes) / ms;
			over++;
		}
		s->at_ns = now;
		s->ios = ios;
		s->bytes = bytes;
		if (!t->ss || !over)
			continue;
		if (judge(t->ss, group_iops, group_bw)) {
			t->ss->attained = true;
			attained(r, i);
		}
	}
	r->next_ns = now + CHECK_NS;
	return r->next_ns;
}

__u64 load_steady_mean(const struct load_steady *ss, bool iops)
{
	__u64 sum = 0;

	for (unsigned int i = 0; i < ss->dur; i++)
		sum += iops ? ss->iops[i] : ss->bw[i];
	return ss->dur ? sum / ss->dur : 0;
}
