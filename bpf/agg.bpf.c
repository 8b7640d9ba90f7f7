// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel aggregation for `iolens stat` and `iolens lat`: counters and
 * log-linear histograms per device, op group and CPU.  No per-request event
 * leaves the kernel, and the common path keeps no per-request state:
 *
 *   - completion reads the kernel's own stamps of the request,
 *     rq->start_time_ns (accounting start, what diskstats' times count from)
 *     and rq->io_start_time_ns (issue; set by blk_mq_start_request() only on
 *     queues with QUEUE_FLAG_STATS, which wbt, iolatency and iocost turn on);
 *   - issue counts the request in flight on its device, for the queue depth
 *     at issue and the device's busy time.
 *
 * Where a queue keeps no issue stamp, or when asked (IOLENS_STAT_OWN_CLOCK),
 * issue stamps the request in an LRU hash keyed by its address: the only
 * per-request map, off the common path.
 *
 * Bio-based disks (zram, device-mapper, md, NVMe multipath heads) take bios
 * straight from submit_bio(): no request, no block_rq_* event.  Their bios
 * are timed from block_bio_queue to block_bio_complete (agg_bio.bpf.h);
 * their counts are the kernel's own (userspace reads them from diskstats).
 *
 * Counting follows block/blk-mq.c and block/blk-flush.c so that the totals
 * equal /proc/diskstats: bytes at every completion event of an accounted
 * request (blk_account_io_completion), a request when it ends unless it is
 * inside a flush sequence (blk_account_io_done), and a flush when the flush
 * request the block layer built ends (blk_account_io_flush).  Bio merges are
 * counted at issue as the bios chained in the request beyond the first:
 * every merge the kernel accounts (back, front, discard and request merges)
 * chains bios, and at issue no partial completion has taken any away.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "agg.h"
#include "devfilter.bpf.h"
#include "hist.bpf.h"
#include "rmw.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#include "agg_counters.bpf.h"
#include "agg_hist.bpf.h"

static __always_inline bool lat_mode(void)
{
	return cfg.flags & IOLENS_STAT_LAT;
}

/* Whether the driver started the request (block_rq_issue fired):
 * rq->state (Linux 4.18) is still MQ_RQ_IN_FLIGHT when a requeue is
 * traced, MQ_RQ_IDLE for one that never was. */
static __always_inline bool rq_started(struct request *rq)
{
	if (!bpf_core_field_exists(rq->state))
		return true;
	return BPF_CORE_READ(rq, state) != bpf_core_enum_value(enum mq_rq_state, MQ_RQ_IDLE);
}

/*
 * Whether the request reached its deadline: jiffies at or after
 * rq->deadline, which blk_add_timer() sets at its start, is how
 * blk_mq_req_expired() decides the timeout handler is due.  The SCSI
 * midlayer then aborts the command and requeues it for a retry, or ends
 * it failed.  A handler that re-arms the timer (BLK_EH_RESET_TIMER:
 * NVMe's first abort) moves the deadline: that request counts only if it
 * outlives the new one.
 */
static __always_inline bool past_deadline(struct request *rq)
{
	if (!bpf_core_field_exists(rq->deadline))
		return false;
	return (long)(bpf_jiffies64() - BPF_CORE_READ(rq, deadline)) >= 0;
}

/* Counted in flight: see attach_ns.  `iolens lat` counts only for its
 * queue-depth histogram. */
static __always_inline bool counted(struct request *rq)
{
	__u64 start = rq->start_time_ns;

	if (lat_mode() && cfg.hist_slot[IOLENS_H_QD] < 0)
		return false;
	return start && start >= attach_ns;
}

/*
 * rq->rq_flags bits, set by the loader from the kernel's BTF or its
 * version: macros until Linux 6.10, an enum since 6.11 ("block: Make RQF_x
 * as an enum", anonymous in 6.11 and 6.12), and renumbered on the way
 * (IO_STAT is bit 13 in 6.1, 8 in 6.12).  0: unknown, and then every
 * request counts as accounted and none as part of a flush sequence.
 */
const volatile __u32 rqf_io_stat = 0;
const volatile __u32 rqf_flush_seq = 0;

/* Counted by diskstats (RQF_IO_STAT). */
static __always_inline bool io_stat(__u32 flags)
{
	return !rqf_io_stat || (flags & rqf_io_stat);
}

/* Merges and alignment of the request as issued, in the issue-side fields;
 * `sign` -1 takes them back for a requeued request. */
static __always_inline void issue_shape(struct request *rq,
					const struct where *w, __s64 sign)
{
	struct iolens_dev_slot *s = w->dev;
	struct iolens_stat *st = w->st;
	struct bio *bio = rq->bio;
	__u64 n = 0;

	for (int i = 0; i < MAX_BIOS && bio; i++) {
		n++;
		bio = bio->bi_next;
	}
	if (n > 1)
		st->merges += sign * (n - 1);
	if (w->sg == IOLENS_SG_WRITE && rq->__data_len && s->pbs) {
		__u32 mask = s->pbs - 1;

		st->checked += sign;
		if ((((__u32)rq->__sector << 9) | rq->__data_len) & mask) {
			st->misaligned += sign;
			st->misaligned_bytes += sign * rq->__data_len;
			hist_add_one(w, IOLENS_H_MISALIGNED, rq->__data_len, sign);
		}
	}
}

static __always_inline bool comm_is(const char *a, const volatile char *b)
{
	for (int i = 0; i < IOLENS_COMM_LEN; i++) {
		if (a[i] != b[i])
			return false;
		if (!a[i])
			break;
	}
	return true;
}

/* Whether t passes cfg.proc: its comm, its cgroup2 ancestor, and itself or
 * an ancestor process among the pids. */
static __always_inline bool proc_wanted(struct task_struct *t)
{
	const volatile struct iolens_proc_filter *f = &cfg.proc;

	if (f->comm[0] && !comm_is(t->comm, f->comm))
		return false;
	if (f->cgroup_level &&
	    bpf_get_current_ancestor_cgroup_id(f->cgroup_level) != f->cgroup_id)
		return false;
	if (!f->npid)
		return true;
	for (int depth = 0; depth < 16 && t && t->pid > 1; depth++) {
		for (int i = 0; i < IOLENS_MAX_PID_FILTER && i < f->npid; i++)
			if (t->tgid == f->pid[i])
				return true;
		t = t->real_parent;
	}
	return false;
}

/* A read-modify-write read (bpf/rmw.bpf.h), counted where the request's
 * reads are. */
static __always_inline void rmw_count(struct request *rq, struct task_struct *t)
{
	struct iolens_dev_slot *s, *ds;
	struct iolens_stat *st;
	__u32 idx, didx;

	if (!rq_data_read(rq) || !in_buffered_write(t))
		return;
	s = slots_of(rq, &idx, &ds, &didx);
	st = s ? stat_of(idx, IOLENS_SG_READ, false) : NULL;
	if (!st)
		return;
	st->rmw_reads++;
	st->rmw_bytes += rq->__data_len;
}

/* Who submitted the request: block_io_start runs in blk_account_io_start()
 * as the bio becomes a request, in the submitting task (or the kworker
 * writing back for it), under its submit_bio(): there its kernel stack
 * says what made the I/O.  Attached only with OWNED flags or
 * IOLENS_STAT_RMW; ctx is the tracepoint's. */
static __always_inline void started(void *ctx, struct request *rq)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct owner o = { .tgid = t->tgid };
	__u64 key = (__u64)rq;

	if (!rq_in(cfg.dev, cfg.ndev, rq, disk_dev_of(rq)))
		return;
	if ((cfg.flags & IOLENS_STAT_PROC_FILTER) && !proc_wanted(t))
		return;
	if (cfg.flags & IOLENS_STAT_RMW)
		rmw_count(rq, t);
	if (!(cfg.flags & OWNED))
		return;
	if (owner_slots_mask) {
		owner_put(rq, t->comm);
		return;
	}
	__builtin_memcpy(o.comm, t->comm, IOLENS_COMM_LEN);
	/* A kernel thread submits for others: writeback. */
	if (t->flags & KERNEL_PF_KTHREAD)
		rq_cgroup(rq, &o.io_cgroup, &o.io_hier);
	if (cfg.flags & IOLENS_STAT_KEY_STACK) {
		long id = bpf_get_stackid(ctx, &stacks, 0);

		o.stack = id >= 0 ? id + 1 : IOLENS_STACK_LOST;
	}
	bpf_map_update_elem(&owners, &key, &o, BPF_ANY);
}

SEC("tp_btf/block_io_start")
int BPF_PROG(agg_start, struct request *rq)
{
	started(ctx, rq);
	return 0;
}

/*
 * A request counted in flight (d = 1) or no longer (-1), in the word of the
 * epoch of its start (see IOLENS_AGE_SHIFT).  The common case is one add
 * to the word of the current epoch: a word is taken over only once per
 * epoch, and only 17 s later could it be again, so between the read of its
 * epoch and the add it cannot change hands.
 */
static __always_inline void age_count(struct iolens_dev_slot *ds, __u64 start,
				      int d)
{
	__u32 e = start >> IOLENS_AGE_SHIFT, held;
	__u64 *word = &ds->age[e % IOLENS_AGE_EPOCHS], old;

	for (int i = 0; i < 4; i++) {
		old = *(volatile __u64 *)word;
		held = old >> 32;
		if (held == e) {
			__sync_fetch_and_add(word, d);
			return;
		}
		/* Its word went to a later epoch: it is among the old ones
		 * (and so is a request issued long after its start). */
		if (d < 0 || held > e) {
			__sync_fetch_and_add(&ds->age_old, d);
			return;
		}
		if (__sync_val_compare_and_swap(word, old, (__u64)e << 32 | 1) == old) {
			if ((__u32)old)
				__sync_fetch_and_add(&ds->age_old, (__u32)old);
			return;
		}
	}
	/* Four CPUs took the word over in turn: count it as old rather than
	 * lose it. */
	__sync_fetch_and_add(&ds->age_old, d);
}

/* Watches rq if its disk watches none (struct iolens_watch). */
static __always_inline void watch_take(struct iolens_dev_slot *ds,
				       struct request *rq, const struct where *w)
{
	struct iolens_watch *wa = &ds->watch;
	struct task_struct *t;

	if (wa->rq || __sync_val_compare_and_swap(&wa->rq, 0, (__u64)rq))
		return;
	wa->start = rq->start_time_ns;
	wa->sector = rq->__sector;
	wa->bytes = rq->__data_len;
	wa->op = rq->cmd_flags & KERNEL_REQ_OP_MASK;
	if (w->owner) {
		wa->tgid = w->owner->tgid;
		__builtin_memcpy(wa->comm, w->owner->comm, IOLENS_COMM_LEN);
		wa->submitter = 1;
		return;
	}
	t = bpf_get_current_task_btf();
	wa->tgid = t->tgid;
	__builtin_memcpy(wa->comm, t->comm, IOLENS_COMM_LEN);
	wa->submitter = 0;
}

static __always_inline void watch_drop(struct iolens_dev_slot *ds,
				       struct request *rq)
{
	if (ds->watch.rq == (__u64)rq)
		ds->watch.rq = 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(agg_issue, struct request *rq)
{
	struct iolens_hwq_stat *hwq;
	struct iolens_dev_slot *ds;
	struct where w;
	__s64 qd;

	/* Before Linux 6.5: the start seen at the first issue (kernel.bpf.h),
	 * and the stack there: the submitter's where it issues the request
	 * itself, kblockd's where the queue ran later. */
	if (!have_io_start && (cfg.flags & STARTED) && !owner_of(rq))
		started(ctx, rq);
	if (!counters_of(rq, &w, false))
		return 0;
	if (!w.owner)
		w.owner = owner_of(rq);
	if (!lat_mode()) {
		if (!w.dev->pbs)
			w.dev->pbs = rq->q->limits.physical_block_size;
		issue_shape(rq, &w, 1);
	}
	hist_put(&w, IOLENS_H_SIZE, rq->__data_len);
	if ((cfg.flags & IOLENS_STAT_OWN_CLOCK) ||
	    ((cfg.flags & IOLENS_STAT_FALLBACK) &&
	     !(rq->q->queue_flags & (1UL << queue_flag_stats)))) {
		__u64 key = (__u64)rq, now = bpf_ktime_get_ns();

		bpf_map_update_elem(&issue_ts, &key, &now, BPF_ANY);
	}
	if (!counted(rq))
		return 0;
	ds = w.disk;
	qd = __sync_fetch_and_add(&ds->inflight, 1) + 1 - ds->leaked;
	/* Idle to busy: the only clock read on this path, rare under load. */
	if (qd == 1) {
		ds->busy_since = bpf_ktime_get_ns();
		__sync_fetch_and_add(&ds->busy_periods, 1);
	}
	w.st->issues++;
	w.st->qd_sum += qd;
	hist_put(&w, IOLENS_H_QD, qd);
	hwq = hwq_of(rq, &w);
	if (hwq) {
		__sync_fetch_and_add(&hwq->issues, 1);
		__sync_fetch_and_add(&hwq->qd_sum, __sync_fetch_and_add(&hwq->inflight, 1) + 1);
	}
	if (!lat_mode()) {
		age_count(ds, rq->start_time_ns, 1);
		watch_take(ds, rq, &w);
	}
	return 0;
}

/* Back to the queue: it will be issued (and counted) again. */
SEC("tp_btf/block_rq_requeue")
int BPF_PROG(agg_requeue, struct request *rq)
{
	struct where w;

	if (!counters_of(rq, &w, false))
		return 0;
	w.st->requeues++;
	/* The block layer traces a requeue too for a request the driver
	 * refused before starting it (BLK_STS_RESOURCE ahead of
	 * blk_mq_start_request(): a SCSI host or device busy): never issued,
	 * it has no issue to take back. */
	if (!rq_started(rq))
		return 0;
	if (past_deadline(rq))
		w.st->timeouts++;
	if (!w.owner)
		w.owner = owner_of(rq);
	/* Its size is counted again at its next issue: one request, one
	 * size (a request the driver ended in part is taken back at the
	 * size left, in that size's bucket). */
	hist_add_one(&w, IOLENS_H_SIZE, rq->__data_len, -1);
	if (!lat_mode())
		issue_shape(rq, &w, -1);
	if (counted(rq)) {
		struct iolens_hwq_stat *hwq = hwq_of(rq, &w);

		if (hwq)
			__sync_fetch_and_add(&hwq->inflight, -1);
		__sync_fetch_and_add(&w.disk->inflight, -1);
		if (!lat_mode()) {
			age_count(w.disk, rq->start_time_ns, -1);
			watch_drop(w.disk, rq);
		}
	}
	return 0;
}

/*
 * Whether this completion event ends an issue: not the second completion
 * of a flush sequence's data request, nor the end of the empty PREFLUSH
 * write it stood for (blk_flush_complete_seq() ends both with no bytes
 * left, never issued as such); the flush itself is REQ_OP_FLUSH.  Ops
 * without data that are not writes (zone resets, opens, finishes) are
 * issued and end like any request.
 */
static __always_inline bool ends_issue(__u32 op, unsigned int len)
{
	/* REQ_OP_WRITE is 1 in every kernel. */
	return len || op != 1;
}

/* Counted as a request by diskstats (blk_account_io_done()), or the block
 * layer's own flush, counted as a flush (blk_account_io_flush()); `flags`
 * is rq->rq_flags. */
static __always_inline bool accounted(__u32 flags, __u32 sg)
{
	if (sg == IOLENS_SG_FLUSH)
		return flags & rqf_flush_seq;
	return io_stat(flags) && !(flags & rqf_flush_seq);
}

/* When the request was issued: the kernel's stamp, or our own where there
 * is none or when asked (then it wins); 0 if unknown.  Takes our stamp
 * out of issue_ts. */
static __always_inline __u64 issue_time(struct request *rq,
					struct iolens_stat *st)
{
	__u64 key, *own, issue = rq->io_start_time_ns;
	struct iolens_stat_counters *c;

	/* A hash lookup costs more than the rest of a hook: only where an
	 * own stamp was taken. */
	if (!(cfg.flags & IOLENS_STAT_OWN_CLOCK) &&
	    (issue || !(cfg.flags & IOLENS_STAT_FALLBACK)))
		return issue;
	key = (__u64)rq;
	own = bpf_map_lookup_elem(&issue_ts, &key);
	if (!own) {
		c = losses();
		if (c)
			c->no_stamp++;
		return issue;
	}
	issue = *own;
	st->own_clock++;
	bpf_map_delete_elem(&issue_ts, &key);
	return issue;
}

/*
 * A request's times, ending `now`: total from the kernel's accounting start
 * (rq->start_time_ns, 0 where it keeps none), queue and device time where
 * the issue time is known too.  Device time needs only the issue.  A
 * failed request's time is not a success's: it is kept apart (fail_add()),
 * here only its own issue stamp is dropped.
 */
static __always_inline void time_request(struct request *rq,
					 const struct where *w, __u64 now,
					 bool failed)
{
	struct iolens_stat *st = w->st;
	__u64 start = rq->start_time_ns, issue, key = (__u64)rq;

	if (failed) {
		bpf_map_delete_elem(&issue_ts, &key);
		return;
	}
	issue = issue_time(rq, st);
	if (start > now)
		start = 0;
	if (start) {
		struct iolens_hwq_stat *hwq = hwq_of(rq, w);

		st->timed++;
		st->total_ns += now - start;
		hist_put(w, IOLENS_H_TOTAL, now - start);
		if (hwq) {
			__sync_fetch_and_add(&hwq->total_ns, now - start);
			__sync_fetch_and_add(&hwq->timed, 1);
		}
	}
	if (!issue || issue > now)
		return;
	hist_put(w, IOLENS_H_DEVICE, now - issue);
	if (!start || issue < start)
		return;
	st->split++;
	st->queue_ns += issue - start;
	st->device_ns += now - issue;
	hist_put(w, IOLENS_H_QUEUE, issue - start);
}

/*
 * Requests and bytes by label set, counted as the device's are: the
 * submitter's comm, the cgroup the request is charged to (its bios are
 * all of one blkcg: blk_cgroup_mergeable(), Linux 5.18).  Beyond the map's
 * room they go to the device's label_other_*, so that the label sets
 * always add up to the device.
 */
static __always_inline void label_add(struct request *rq, const struct where *w,
				      __u64 bytes, __u64 ios, bool last)
{
	struct iolens_label_key key = { .slot = w->slot, .sg = w->sg, .rescue = w->rescue };
	struct iolens_label_count zero = {}, *c;
	const struct owner *o;

	if (!(cfg.flags & LABELS))
		return;
	if (!(bytes | ios)) {
		/* Nothing to count: an owner slot is let go all the same. */
		if (last && owner_slots_mask)
			owner_comm(rq, key.comm, true);
		return;
	}
	if (owner_slots_mask) {
		owner_comm(rq, key.comm, last);
	} else if (cfg.flags & IOLENS_STAT_LABEL_COMM) {
		o = w->owner ?: owner_of(rq);
		if (o)
			__builtin_memcpy(key.comm, o->comm, IOLENS_COMM_LEN);
	}
	if (cfg.flags & IOLENS_STAT_LABEL_CGROUP)
		rq_cgroup(rq, &key.cg_id, &key.cg_hier);
	c = bpf_map_lookup_elem(&label_counts, &key);
	if (!c) {
		bpf_map_update_elem(&label_counts, &key, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&label_counts, &key);
		if (!c) {
			w->st->label_other_ios += ios;
			w->st->label_other_bytes += bytes;
			return;
		}
	}
	c->ios += ios;
	c->bytes += bytes;
}

/* The end of a request that is timed: its times, and its owner let go
 * (requests that are not leave theirs to the LRU). */
static __always_inline void stat_done_at(struct request *rq, struct where *w,
					 bool failed)
{
	__u64 key = (__u64)rq;

	if (!w->owner)
		w->owner = owner_of(rq);
	time_request(rq, w, bpf_ktime_get_ns(), failed);
	if (w->owner)
		bpf_map_delete_elem(&owners, &key);
}

/*
 * A request or bio that ended with an error `status`: counted by status
 * (and submitter, for top), with its time `ns` (0: unknown).  Failures are
 * rare: the hash update costs nothing on the common path.  w->owner is
 * the submitter where known.
 */
static __always_inline void fail_add(const struct where *w, __u8 status,
				     __u64 bytes, __u64 ns)
{
	struct iolens_fail_key key = { .slot = w->slot, .sg = w->sg, .status = status };
	struct iolens_fail_count zero = {}, *c;
	struct iolens_stat_counters *lost;

	if ((cfg.flags & IOLENS_STAT_BY_PROC) && w->owner)
		key.tgid = w->owner->tgid;
	c = bpf_map_lookup_elem(&failures, &key);
	if (!c) {
		bpf_map_update_elem(&failures, &key, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&failures, &key);
		if (!c) {
			lost = losses();
			if (lost)
				lost->no_fail_key++;
			return;
		}
	}
	__sync_fetch_and_add(&c->ios, 1);
	__sync_fetch_and_add(&c->bytes, bytes);
	if (ns) {
		__sync_fetch_and_add(&c->ns, ns);
		__sync_fetch_and_add(&c->timed, 1);
	}
}

/* A failed request's time, ending now: from its start, or for `iolens
 * lat` keeping only device time (its default), from its issue. */
static __always_inline __u64 fail_ns(struct request *rq)
{
	__u64 now = bpf_ktime_get_ns(), from = rq->start_time_ns;

	if (lat_mode() && cfg.hist_slot[IOLENS_H_TOTAL] < 0)
		from = rq->io_start_time_ns;
	return from && from < now ? now - from : 0;
}

/* A request that failed, at its last completion event. */
static __always_inline void rq_failed(struct request *rq, struct where *w,
				      __u8 status, __u64 bytes)
{
	if ((cfg.flags & IOLENS_STAT_BY_PROC) && !w->owner)
		w->owner = owner_of(rq);
	fail_add(w, status, bytes, fail_ns(rq));
}

/* Marks a failed request for block_io_done (see fail_marks). */
static __always_inline void fail_mark(struct request *rq)
{
	__u64 key = (__u64)rq, start = rq->start_time_ns;
	struct iolens_stat_counters *lost;

	if (!bpf_map_update_elem(&fail_marks, &key, &start, BPF_NOEXIST)) {
		__sync_fetch_and_add(&fail_marked, 1);
		return;
	}
	/* A mark left by a request of the same address whose end we never
	 * saw is taken over; no room is a loss. */
	if (bpf_map_update_elem(&fail_marks, &key, &start, BPF_EXIST)) {
		lost = losses();
		if (lost)
			lost->no_fail_mark++;
	}
}

/* Whether block_rq_complete marked the request failed; takes the mark. */
static __always_inline bool fail_marked_take(struct request *rq)
{
	__u64 key = (__u64)rq, *start;
	bool mine;

	if (!fail_marked)
		return false;
	start = bpf_map_lookup_elem(&fail_marks, &key);
	if (!start)
		return false;
	mine = *start == rq->start_time_ns;
	if (!bpf_map_delete_elem(&fail_marks, &key))
		__sync_fetch_and_add(&fail_marked, -1);
	return mine;
}

/*
 * Counts: bytes at every completion event, the request at its last one,
 * and its end in flight.  No clock read but at the end of a busy period.
 * `iolens lat` times the request here instead, at the driver's completion.
 * `rescue`: run by a second program (see struct first_mark).
 */
static __always_inline void complete_one(struct request *rq, blk_status_t error,
					 unsigned int nr_bytes, bool rescue)
{
	struct iolens_hwq_stat *hwq;
	struct where w;
	unsigned int len;
	__u64 bytes = 0;
	__u32 flags;
	bool ends;

	if (!counters_of(rq, &w, rescue))
		return;
	flags = rq->rq_flags;
	/* Bytes are counted here, and for labels in `lat` mode too (serve,
	 * which takes the device's own from diskstats). */
	if ((!lat_mode() || (cfg.flags & LABELS)) && io_stat(flags))
		bytes = nr_bytes;
	if (!lat_mode())
		w.st->bytes += bytes;
	/* The tracepoint fires before blk_update_request() takes nr_bytes
	 * off: fewer than are left is a partial completion. */
	len = rq->__data_len;
	hwq = hwq_of(rq, &w);
	if (nr_bytes < len) {
		label_add(rq, &w, bytes, 0, false);
		other_op_add(&w, bytes, 0);
		if (hwq && bytes)
			__sync_fetch_and_add(&hwq->bytes, bytes);
		return;
	}
	ends = ends_issue(w.op, len);
	if (ends && counted(rq)) {
		struct iolens_dev_slot *ds = w.disk;
		__u64 since = ds->busy_since;

		if (hwq)
			__sync_fetch_and_add(&hwq->inflight, -1);
		/* Read the start of the busy period before leaving it: once
		 * inflight is 0 an issue elsewhere may start the next. */
		if (__sync_fetch_and_add(&ds->inflight, -1) - ds->leaked == 1 &&
		    since)
			__sync_fetch_and_add(&ds->busy_ns, bpf_ktime_get_ns() - since);
		if (!lat_mode()) {
			age_count(ds, rq->start_time_ns, -1);
			watch_drop(ds, rq);
		}
	}
	label_add(rq, &w, bytes, accounted(flags, w.sg), true);
	if (!lat_mode()) {
		__u64 ios = accounted(flags, w.sg);

		w.st->ios += ios;
		if (ends && past_deadline(rq))
			w.st->timeouts++;
		other_op_add(&w, bytes, ios);
		if (hwq && ios) {
			__sync_fetch_and_add(&hwq->ios, ios);
			__sync_fetch_and_add(&hwq->bytes, bytes);
		}
		if (ios && error) {
			rq_failed(rq, &w, error, nr_bytes);
			if (have_io_start)
				fail_mark(rq);
		}
		/* Before Linux 6.5 times end here, not at block_io_done. */
		if (!have_io_start && ends && ios)
			stat_done_at(rq, &w, error);
	} else if (ends) {
		/* Split by status, a failure is timed into its status's
		 * histograms; else it is counted apart, in none. */
		if (error && (cfg.flags & IOLENS_STAT_KEY_STATUS)) {
			w.status = error;
			error = 0;
		} else if (error) {
			rq_failed(rq, &w, error, nr_bytes);
		}
		stat_done_at(rq, &w, error);
	}
}

/*
 * Times: block_io_done fires in blk_account_io_done(), right after the
 * kernel read the clock that ends diskstats' time of the request.
 * block_rq_complete comes before the bios are ended, and ending them (waking
 * the submitter, posting an io_uring completion) takes a few hundred ns to
 * microseconds that iostat's await and aqu-sz include.  It fires only for
 * requests the kernel times (RQF_IO_STAT, RQF_STATS or a scheduler's).
 * Not attached for `iolens lat`.
 */
static __always_inline void done_one(struct request *rq, bool rescue)
{
	struct where w;

	if (counters_of(rq, &w, rescue) && accounted(rq->rq_flags, w.sg))
		stat_done_at(rq, &w, fail_marked_take(rq));
}

#include "agg_nested.bpf.h"
#include "agg_bio.bpf.h"
