// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "trace/agg_loop.h"
#include "lib/log.h"
#include "lib/stop.h"

struct loop {
	struct agg_trace *st;
	int (*build)(void *arg, const struct agg_trace *st);
	void (*print)(void *arg, const struct agg_trace *st, double secs);
	void *arg;
};

/* Interrupted by Ctrl-C: reports the interval so far. */
static int loop_tick(void *arg)
{
	struct loop *l = arg;
	int err = agg_trace_read(l->st);

	err = err ?: l->build(l->arg, l->st);
	if (err) {
		pr_err("reading the aggregation maps: %s", strerror(-err));
		return err;
	}
	l->print(l->arg, l->st, agg_trace_interval_s(l->st));
	return 0;
}

int agg_loop(struct agg_trace *st, __u64 interval_ns, unsigned long count,
	     int (*build)(void *arg, const struct agg_trace *st),
	     void (*print)(void *arg, const struct agg_trace *st, double secs),
	     void *arg)
{
	struct loop l = { .st = st, .build = build, .print = print, .arg = arg };

	return stop_every(agg_trace_read_ns(st), interval_ns, count, true,
			  loop_tick, &l);
}
