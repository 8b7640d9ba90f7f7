// SPDX-License-Identifier: GPL-2.0
/*
 * fio's latency_target, as fio 3.33's io_u.c searches: the job starts at
 * depth 1; at the end of each latency_window, if latency_percentile of its
 * I/Os in the window took no longer than the target (from their start to
 * their completion), the depth doubles (or, once a depth has failed,
 * bisects up towards it), else it bisects down.  With a percentile of 100
 * one slow I/O is enough to go down at once, and one at depth 1 ends the
 * job in error.  When a window's success leaves the depth where it was,
 * the statistics start again for a final window at that depth, and after
 * one more such success the job ends (latency_run: it keeps searching).
 */
#include <math.h>
#include <stdio.h>
#include "load/job.h"
#include "load/load.h"

static __u64 rw_ios(const struct load_thread *t)
{
	return t->st.dir[LOAD_READ].ios + t->st.dir[LOAD_WRITE].ios;
}

static void new_window(struct load_thread *t, __u64 now)
{
	t->lat.window_ns = now;
	t->lat.ios0 = rw_ios(t);
	t->lat.failed = 0;
}

void load_latgoal_start(struct load_thread *t, __u64 now)
{
	struct load_latgoal *l = &t->lat;

	if (!t->o->latency_target_ns) {
		l->qd = t->depth;
		return;
	}
	if (!l->end_run) {
		l->qd = 1;
		l->low = 1;
		l->high = t->o->iodepth;
	}
	new_window(t, now);
}

/* fio's __lat_target_failed(): false where there is no lower depth. */
static bool down(struct load_thread *t)
{
	struct load_latgoal *l = &t->lat;

	if (l->qd == 1)
		return false;
	l->high = l->qd;
	if (l->qd == l->low)
		l->low--;
	l->qd = (l->qd + l->low) / 2;
	l->stable = 0;
	/* What the deeper queue left in flight would fail the next too. */
	l->quiesce = true;
	l->window_ns = 0;	/* a new window once drained */
	return true;
}

static void up(struct load_thread *t, __u64 now)
{
	struct load_latgoal *l = &t->lat;
	unsigned int was = l->qd, iodepth = t->o->iodepth;

	l->low = l->qd;
	/* One below the failing depth again and again: let that creep up. */
	if (l->qd + 1 == l->high && ++l->stable >= 3) {
		l->high++;
		l->stable = 0;
	}
	l->qd = l->high != iodepth ? (l->qd + l->high) / 2 : l->qd * 2;
	if (l->qd > iodepth)
		l->qd = iodepth;
	if (!t->o->latency_run && l->qd == was) {
		if (l->end_run) {
			l->done = true;
		} else {
			l->end_run = true;
			l->quiesce = true;
			l->restart = true;
		}
	}
	new_window(t, now);
}

void load_latgoal_io(struct load_thread *t, __u64 ns)
{
	struct load_latgoal *l = &t->lat;

	if (ns <= t->o->latency_target_ns)
		return;
	if (t->o->latency_pct < 100.0) {
		l->failed++;
		return;
	}
	if (!down(t) && !l->fatal) {
		l->fatal = true;
		l->fatal_ns = ns;
	}
}

void load_latgoal_check(struct load_thread *t, __u64 now)
{
	struct load_latgoal *l = &t->lat;
	__u64 ios;
	double ok;

	if (!l->window_ns) {
		new_window(t, now);
		return;
	}
	if (now - l->window_ns < t->o->latency_window_ns)
		return;
	ios = rw_ios(t) - l->ios0;
	/* No I/O in the window is no success, as fio's 0/0. */
	ok = ios ? 100.0 * (ios - l->failed) / ios : NAN;
	if (ok >= t->o->latency_pct)
		up(t, now);
	else
		/* At depth 1 the window goes on, as fio's: it is judged
		 * again, longer, at the next check. */
		down(t);
}
