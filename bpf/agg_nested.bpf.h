/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agg.bpf.c's completion programs: each completion hook and the second
 * program that counts what the kernel skipped the first for.  Included
 * once by agg.bpf.c, after complete_one() and done_one().
 */
#ifndef IOLENS_AGG_NESTED_BPF_H
#define IOLENS_AGG_NESTED_BPF_H

#include "irqlevel.bpf.h"

/*
 * Completions in the middle of a completion.  The kernel runs no program
 * inside itself on one CPU: __bpf_trace_run() skips the inner run (and
 * counts it in the program's recursion misses).  A loop worker or a
 * submitter ending a request runs agg_complete and agg_done in a task; a
 * disk's interrupt on that CPU, and the softirq after it, may end a batch
 * of requests meanwhile, which the two would never see.  Each has a second
 * program on its tracepoint, attached after it and so run right after it
 * for every event, which counts the request only where the first was
 * skipped for it.  It counts into counters of its own (counters_of()): the
 * first, interrupted between the load and the store of a plain add, would
 * undo its add.  Two ways to tell, by the first's mark (struct
 * first_mark), each a pair of programs:
 *
 *   - by level (the _lvl pair, where the loader can read the preempt
 *     count: kfacts' preempt_count): the first writes its request into
 *     this CPU's slot of its interrupt level (bpf/irqlevel.bpf.h); the
 *     second counts the request if that slot does not hold it.  A run that
 *     interrupts another writes its own level's slot, never the one the
 *     other will look at: exact.
 *   - by a busy mark (elsewhere): the first is marked busy in its body and
 *     writes its request at the end; the second counts a request that is
 *     not the one written while the first is busy.  A completion that comes
 *     in the few instructions the kernel runs around the first's body is
 *     missed still (completions_missed), never counted twice.
 *
 * Where the kernel does not skip a nested run (no recursion guard) the
 * first runs for every request and the second finds it each time.
 */
struct first_mark {
	__u64 seen[IRQ_LEVELS];	/* by level; [0] by the busy mark */
	__u32 busy;		/* the busy mark: the first is in its body */
};

struct first_marks {
	struct first_mark complete;	/* agg_complete's */
	struct first_mark done;		/* agg_done's */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct first_marks);
} firsts SEC(".maps");

static __always_inline struct first_marks *firsts_here(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&firsts, &zero);
}

/* Volatile, with a compiler barrier, so that no mark moves across the
 * body. */
#define MARK_SET(lv, v) do {						\
		*(volatile typeof(lv) *)&(lv) = (v);			\
		asm volatile("" ::: "memory");				\
	} while (0)

/* The slot of m whose request the second compares: its level's, or
 * seen[0]. */
static __always_inline __u64 *mark_slot(struct first_mark *m, bool by_level)
{
	int l = by_level ? irq_level() : 0;

	return l >= 0 && l < IRQ_LEVELS ? &m->seen[l] : NULL;
}

/* The first program's marks around its body. */
static __always_inline void first_enter(struct first_mark *m, __u64 rq,
					bool by_level)
{
	__u64 *slot;

	if (!by_level) {
		MARK_SET(m->busy, 1);
		return;
	}
	slot = mark_slot(m, true);
	if (slot)
		MARK_SET(*slot, rq);
}

static __always_inline void first_leave(struct first_mark *m, __u64 rq,
					bool by_level)
{
	if (by_level)
		return;
	MARK_SET(m->seen[0], rq);
	MARK_SET(m->busy, 0);
}

/* In the second program: whether the kernel skipped the first for `rq`
 * (counted as rescued); takes the first's mark of it. */
static __always_inline bool first_skipped(struct first_mark *m, __u64 rq,
					  bool by_level)
{
	__u64 *slot = mark_slot(m, by_level);
	struct iolens_stat_counters *c;

	if (!slot)
		return false;
	if (*(volatile __u64 *)slot == rq) {
		*slot = 0;
		return false;
	}
	if (!by_level && !*(volatile __u32 *)&m->busy)
		return false;
	c = losses();
	if (c)
		__sync_fetch_and_add(&c->rescued, 1);
	return true;
}

static __always_inline void first_complete(struct request *rq, blk_status_t error,
					   unsigned int nr_bytes, bool by_level)
{
	struct first_marks *f = firsts_here();

	if (f)
		first_enter(&f->complete, (__u64)rq, by_level);
	complete_one(rq, error, nr_bytes, false);
	if (f)
		first_leave(&f->complete, (__u64)rq, by_level);
}

static __always_inline void rescue_complete(struct request *rq, blk_status_t error,
					    unsigned int nr_bytes, bool by_level)
{
	struct first_marks *f = firsts_here();

	if (f && first_skipped(&f->complete, (__u64)rq, by_level))
		complete_one(rq, error, nr_bytes, true);
}

static __always_inline void first_done(struct request *rq, bool by_level)
{
	struct first_marks *f = firsts_here();

	if (f)
		first_enter(&f->done, (__u64)rq, by_level);
	done_one(rq, false);
	if (f)
		first_leave(&f->done, (__u64)rq, by_level);
}

static __always_inline void rescue_done(struct request *rq, bool by_level)
{
	struct first_marks *f = firsts_here();

	if (f && first_skipped(&f->done, (__u64)rq, by_level))
		done_one(rq, true);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(agg_complete, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	first_complete(rq, error, nr_bytes, false);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(agg_complete_rescue, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	rescue_complete(rq, error, nr_bytes, false);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(agg_complete_lvl, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	first_complete(rq, error, nr_bytes, true);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(agg_complete_rescue_lvl, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	rescue_complete(rq, error, nr_bytes, true);
	return 0;
}

SEC("tp_btf/block_io_done")
int BPF_PROG(agg_done, struct request *rq)
{
	first_done(rq, false);
	return 0;
}

SEC("tp_btf/block_io_done")
int BPF_PROG(agg_done_rescue, struct request *rq)
{
	rescue_done(rq, false);
	return 0;
}

SEC("tp_btf/block_io_done")
int BPF_PROG(agg_done_lvl, struct request *rq)
{
	first_done(rq, true);
	return 0;
}

SEC("tp_btf/block_io_done")
int BPF_PROG(agg_done_rescue_lvl, struct request *rq)
{
	rescue_done(rq, true);
	return 0;
}

#endif
