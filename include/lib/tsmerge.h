/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Items of bytes, each with a time, made by several threads (sources) and
 * given out in time order by one: snoop's consumers format requests in
 * parallel, one thread writes the lines in order.
 *
 * Each source only ever makes items later than the time it last
 * published, less some slack for items made but not yet seen: an item is
 * given out once every source has published past its time by the slack.
 */
#ifndef IOLENS_TSMERGE_H
#define IOLENS_TSMERGE_H

#include <stddef.h>
#include <linux/types.h>

struct tsmerge;

/* NULL without memory. */
struct tsmerge *tsmerge_new(int nsources);
void tsmerge_free(struct tsmerge *m);

/* Source `s` (one thread at a time): an item of `n` bytes at time `ts`,
 * copied.  0 or -ENOMEM. */
int tsmerge_add(struct tsmerge *m, int s, __u64 ts, const char *p, size_t n);
/* Hands the items added so far to the merging thread: every later item
 * of `s` has a time after `upto` less the slack (UINT64_MAX: `s` makes no
 * more).  Waits while the items handed over and not given out pass 256
 * MiB: a source that outruns the output slows down (and its own input
 * overflows, which it counts) rather than take all memory.  0 or
 * -ENOMEM. */
int tsmerge_publish(struct tsmerge *m, int s, __u64 upto);

/* Callback of tsmerge_emit(): one item's bytes; non-zero stops. */
typedef int (*tsmerge_emit_fn)(void *ctx, const char *p, size_t n);

/* The merging thread: gives out, in time order, every item handed over
 * whose time is at most the least `upto` of all sources less `slack_ns`.
 * Returns 0, or the callback's non-zero return (the items after it are
 * dropped). */
int tsmerge_emit(struct tsmerge *m, __u64 slack_ns, tsmerge_emit_fn emit,
		 void *ctx);

#endif
