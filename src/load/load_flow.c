// SPDX-License-Identifier: GPL-2.0
/*
 * fio's flow: jobs of one flow_id share their I/O by weight.  A thread
 * may issue while its share of the flow's I/Os so far is not above its
 * share of the weights of the threads running in it; one that is ahead
 * waits (flow_sleep, the queue drained first, as fio's) and tries again.
 * A thread that ends takes its I/Os and its weight out, so that the others
 * are not held back by it.
 */
#include <errno.h>
#include <stdlib.h>
#include "load/job.h"

int load_flows_init(struct load_flows *f, struct load_thread *th, unsigned int n)
{
	f->v = calloc(n ? n : 1, sizeof(*f->v));
	f->n = 0;
	if (!f->v)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		struct load_flow *fl = NULL;

		if (!th[i].o->flow)
			continue;
		for (unsigned int k = 0; k < f->n && !fl; k++) {
			if (f->v[k].id == th[i].o->flow_id)
				fl = &f->v[k];
		}
		if (!fl) {
			fl = &f->v[f->n++];
			fl->id = th[i].o->flow_id;
			/* fio's starts at 1: no ratio divides by 0. */
			fl->count = 1;
		}
		th[i].flow = fl;
	}
	return 0;
}

void load_flows_free(struct load_flows *f)
{
	free(f->v);
	f->v = NULL;
}

void load_flow_join(struct load_thread *t)
{
	if (t->flow)
		__atomic_add_fetch(&t->flow->weight, t->o->flow, __ATOMIC_RELAXED);
}

void load_flow_leave(struct load_thread *t)
{
	if (!t->flow)
		return;
	__atomic_sub_fetch(&t->flow->count, t->flow_count, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&t->flow->weight, t->o->flow, __ATOMIC_RELAXED);
}

bool load_flow_allows(struct load_thread *t)
{
	struct load_flow *f = t->flow;
	__u64 count, weight;

	if (!f)
		return true;
	count = __atomic_load_n(&f->count, __ATOMIC_RELAXED);
	weight = __atomic_load_n(&f->weight, __ATOMIC_RELAXED);
	/* Ahead of its share: t->flow_count / count > flow / weight. */
	if (weight && (double)t->flow_count * weight > (double)t->o->flow * count)
		return false;
	__atomic_add_fetch(&f->count, 1, __ATOMIC_RELAXED);
	t->flow_count++;
	return true;
}
