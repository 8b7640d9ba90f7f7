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
#include <sys/uio.h>
#include <linux/types.h>

struct tsmerge;

/* NULL without memory. */
struct tsmerge *tsmerge_new(int nsources);
void tsmerge_free(struct tsmerge *m);

/* Source `s` (one thread at a time): room for its next item, at least
 * `need` bytes, written in place (the merging thread gives out the same
 * memory: no copy); NULL without memory. */
char *tsmerge_room(struct tsmerge *m, int s, size_t need);
/* Source `s`: the item of `n` bytes (at most the room asked for) written
 * at tsmerge_room(), at time `ts`. */
void tsmerge_commit(struct tsmerge *m, int s, __u64 ts, size_t n);
/* Hands the items added so far to the merging thread: every later item
 * of `s` has a time after `upto` less the slack (UINT64_MAX: `s` makes no
 * more).  Waits while the items handed over and not given out pass 256
 * MiB: a source that outruns the output slows down (and its own input
 * overflows, which it counts) rather than take all memory.  0 or
 * -ENOMEM. */
int tsmerge_publish(struct tsmerge *m, int s, __u64 upto);

/* Items tsmerge_emit() gives out at a time: the most one writev() takes
 * (Linux's UIO_MAXIOV). */
#define TSMERGE_BATCH 1024

/* Callback of tsmerge_emit(): `n` items (1..TSMERGE_BATCH) in time order,
 * an iovec each, ready for writev() (the callback's to change); their
 * memory is reused once tsmerge_emit() returns.  Non-zero stops. */
typedef int (*tsmerge_emit_fn)(void *ctx, struct iovec *iov, int n);

/* The merging thread: gives out, in time order, every item handed over
 * whose time is at most the least `upto` of all sources less `slack_ns`.
 * Returns 0, or the callback's non-zero return (the items after it are
 * dropped). */
int tsmerge_emit(struct tsmerge *m, __u64 slack_ns, tsmerge_emit_fn emit,
		 void *ctx);

#endif
