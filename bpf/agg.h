/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IOLENS_BPF_AGG_H
#define IOLENS_BPF_AGG_H

#include "common.h"
#include "hist_layout.h"

/*
 * In-kernel aggregation of `iolens stat`, `lat`, `top` and `serve`
 * (bpf/agg.bpf.c).
 *
 * Everything is kept per device slot (map `devs`: which disk, or partition
 * with IOLENS_STAT_PARTS, holds the slot) and per operation group as
 * /proc/diskstats groups requests.  Counters are kept per CPU, histograms
 * once for all CPUs (atomic adds; sizes and queue depths through a per-CPU
 * entry for the last bucket, struct iolens_hist_pend): userspace sums the
 * CPUs and takes differences between two reads, so nothing is ever reset.
 */
enum iolens_sgrp {
	IOLENS_SG_READ = 0,
	IOLENS_SG_WRITE,	/* every other write-direction op but discard */
	IOLENS_SG_DISCARD,
	IOLENS_SG_FLUSH,	/* cache flushes the block layer issued */
	IOLENS_SG_NR,
};

/* Histograms the aggregation can keep; each costs HIST_BUCKETS * 4 bytes
 * per device slot, op group and CPU, so only the enabled ones are sized. */
enum iolens_hist_kind {
	IOLENS_H_TOTAL = 0,	/* ns from start (rq->start_time_ns) to end */
	IOLENS_H_QUEUE,		/* ns from start to issue */
	IOLENS_H_DEVICE,	/* ns from issue to end */
	IOLENS_H_SIZE,		/* request bytes at issue */
	IOLENS_H_QD,		/* requests in flight on the device at issue,
				 * this one included */
	IOLENS_H_MISALIGNED,	/* bytes of writes misaligned to the physical
				 * block, at issue (stat mode only) */
	IOLENS_H_NR,
};

/*
 * Counters of one device slot and op group on one CPU.  Each hook writes
 * its own fields: a hook interrupting another on the same CPU then never
 * loses an update of a plain increment.
 */
struct iolens_stat {
	/* block_rq_complete */
	__u64 ios;		/* requests completed, as diskstats counts them */
	__u64 bytes;		/* bytes completed (partial completions too) */
	/* block_io_done */
	__u64 total_ns;		/* sum of end - start (rq->start_time_ns) over
				 * `timed`: diskstats' time fields */
	__u64 timed;		/* requests timed; fewer than `ios` where the
				 * kernel keeps no times (queue/iostats 0) */
	__u64 queue_ns;		/* sum of issue - start, over `split` */
	__u64 device_ns;	/* sum of end - issue, over `split` */
	__u64 split;		/* of `timed`: issue time known too */
	__u64 own_clock;	/* of `split`: issue time from iolens's own
				 * stamp, not rq->io_start_time_ns */
	/* block_rq_issue */
	__u64 issues;		/* issues counted in flight (queue depth known) */
	__u64 qd_sum;		/* sum of in flight at those issues */
	__u64 merges;		/* bios merged into requests (issued ones) */
	__u64 misaligned;	/* writes whose start or size is not a multiple
				 * of the device's physical block */
	__u64 misaligned_bytes;
	__u64 checked;		/* writes checked for alignment */
	/* block_io_start, with IOLENS_STAT_RMW (read group only): data reads
	 * started inside a buffered write to a file, the page cache reading
	 * a page the write covers only partly (read-modify-write); bytes as
	 * started. */
	__u64 rmw_reads;
	__u64 rmw_bytes;
	/* block_rq_complete, with IOLENS_STAT_LABEL_*: of `ios` and `bytes`,
	 * those of label sets label_counts had no room for. */
	__u64 label_other_ios;
	__u64 label_other_bytes;
	/* Of `ios`, those that ended with an error status (the kernel counts
	 * them in diskstats as any other) are counted in map `failures`
	 * alone, with their times: a failure's latency is not a success's, so
	 * `timed`, the sums of times and the histograms are of the requests
	 * that succeeded. */
	/* block_rq_requeue: requests sent back to the queue by the driver
	 * (busy device, resources), to be issued again. */
	__u64 requeues;
	/* Requests requeued or completed at or past their deadline
	 * (rq->deadline): blk-mq's timeout handler ran for them, or was due. */
	__u64 timeouts;
};

/*
 * A CPU's last value of one histogram kind (map `hist_pend`, entry CPU *
 * IOLENS_H_NR + enabled kind index): `n` values of bucket `b` of histogram
 * `idx` of `hists`, not yet added there.  A value of the same bucket only
 * counts up `n`; another one first adds `n` to `hists` (atomically: shared)
 * and takes the entry over.  Request sizes and queue depths mostly repeat
 * the last bucket, so most of them are a plain add to memory of this CPU;
 * latencies mostly do not, and go to `hists` directly.  `begin` and `end`
 * count the take-overs, `begin` first: userspace reads `end` first and
 * `begin` last, and trusts idx, b and n only where the two are equal.
 */
struct iolens_hist_pend {
	__u32 end;
	__u32 idx;
	__u32 b;
	__u32 n;
	__u32 begin;
	__u32 busy;		/* a program of this CPU is changing it */
};

/*
 * The age of the requests in flight, without per-request state: each is
 * counted by the epoch of its start (rq->start_time_ns >>
 * IOLENS_AGE_SHIFT, the kernel's own stamp, read again at completion),
 * in word epoch % IOLENS_AGE_EPOCHS, which holds that epoch (high 32
 * bits) and its count (low 32 bits).  The first request of a later epoch
 * takes the word over (compare-and-swap) and moves what it still counted,
 * requests older than IOLENS_AGE_EPOCHS epochs, to age_old.
 */
#define IOLENS_AGE_SHIFT	28	/* an epoch: 2^28 ns, 0.27 s */
#define IOLENS_AGE_EPOCHS	64	/* epochs told apart: 17 s */

/*
 * A request in flight that a disk's slot watches, to name one when the
 * ages say a request is stuck: taken at issue (compare-and-swap of `rq`)
 * when none is watched, let go at its completion.  A reader trusts the
 * fields only where `rq` reads the same before and after them.
 */
struct iolens_watch {
	__u64 rq;		/* its address; 0 = none watched */
	__u64 start;		/* rq->start_time_ns */
	__u64 sector;
	__u32 bytes;
	__u32 op;		/* cmd_flags & REQ_OP_MASK, raw */
	__u32 tgid;		/* the submitter, or the task that issued it */
	__u32 submitter;	/* 1: tgid and comm are the submitter's
				 * (block_io_start), 0: the issuing task's */
	char comm[IOLENS_COMM_LEN];
};

/* A device slot (map `devs`, shared by all CPUs). */
struct iolens_dev_slot {
	__u32 dev;		/* kernel dev_t; 0 = free */
	__u32 pbs;		/* physical block size, bytes */
	/* Whole-disk slots only (a partition shares its disk's queue): */
	__s64 inflight;		/* issued minus completed (counted ones) */
	__s64 leaked;		/* of inflight: completions the kernel never
				 * ran us for, found by userspace when the
				 * kernel had nothing in flight; written only
				 * there, through the mmap of `devs` */
	__u64 busy_since;	/* when inflight - leaked last left 0 */
	__u64 busy_ns;		/* closed busy periods: time with a request
				 * issued and not completed */
	__u64 busy_periods;	/* times inflight - leaked left 0 */
	/* Whole-disk slots: the requests counted in flight by the epoch of
	 * their start, and those older than the epochs told apart. */
	__u64 age[IOLENS_AGE_EPOCHS];
	__s64 age_old;
	struct iolens_watch watch;
};

/*
 * Histograms split by what `iolens lat -P` / `-F` asks for (map
 * `lat_hists`, one copy shared by all CPUs, atomic adds): these splits are
 * sparse, so a hash of the ones that occur replaces the array `hists`.
 */
struct iolens_lat_key {
	__u32 tgid;		/* submitting process with -P: the task that
				 * submitted the bio (block_io_start); 0 =
				 * not split, or not seen submitting */
	__u32 flags;		/* with -F: the kernel's cmd_flags, op
				 * included so that zone ops and write-zeroes
				 * are told from writes (raw, kernel-specific),
				 * else 0 */
	__u16 slot;		/* device slot */
	__u8 sg;		/* enum iolens_sgrp */
	__u8 kind;		/* enum iolens_hist_kind */
	/* With IOLENS_STAT_KEY_CGROUP, and with -P for a kernel thread's
	 * requests (the flusher's writeback): the cgroup they are charged to
	 * (the first bio's blkcg, on cgroup2 the cgroup that dirtied the
	 * pages) and its hierarchy (0 = cgroup2, else the v1 hierarchy
	 * holding blkio); else 0. */
	__u32 io_hier;
	__u16 hwq;		/* with IOLENS_STAT_KEY_HWQ: the hardware
				 * queue + 1; 0 = not split or none */
	__u8 status;		/* with IOLENS_STAT_KEY_STATUS: the request's
				 * blk_status_t (failures timed too), else 0 */
	__u8 pad;
	/* With IOLENS_STAT_KEY_STACK: 1 + the id in map `stacks` of the
	 * kernel stack that submitted the request; IOLENS_STACK_LOST: seen,
	 * not kept (its hash bucket held another stack); 0 = not seen
	 * submitting (a flush the block layer made, a request in flight at
	 * attach), or not split. */
	__u32 stack;
	__u64 io_cgroup;
};

struct iolens_lat_hist {
	char comm[IOLENS_COMM_LEN];	/* of tgid, as it submitted */
	__u64 sum;			/* of the values: bytes, ns */
	__u32 b[HIST_BUCKETS];
};

/*
 * Requests and bytes by label set, for `iolens serve --labels` (map
 * `label_counts`, shared by all CPUs, atomic adds, never reset), counted as
 * iolens_stat's ios and bytes are.  Its size is the cap on label sets;
 * beyond it they go to the device's label_other_*.
 */
struct iolens_label_key {
	__u16 slot;		/* device slot */
	__u8 sg;		/* enum iolens_sgrp */
	__u8 rescue;		/* 1: counted by a rescue program (its own
				 * counts: userspace adds them to the set's) */
	/* With IOLENS_STAT_LABEL_CGROUP: the cgroup the block layer charges
	 * the request to (its bios' blkcg; on cgroup2 writeback goes to the
	 * cgroup that dirtied the pages) and its hierarchy (0 = cgroup2,
	 * else the v1 hierarchy holding blkio); id 0 = unknown (no bio: a
	 * flush the block layer made). */
	__u32 cg_hier;
	__u64 cg_id;
	/* With IOLENS_STAT_LABEL_COMM: the submitter's (block_io_start);
	 * "" = not seen submitting. */
	char comm[IOLENS_COMM_LEN];
};

struct iolens_label_count {
	__u64 ios;
	__u64 bytes;
};

/*
 * Failed requests by device slot, op group, status and (with
 * IOLENS_STAT_BY_PROC) submitter (map `failures`, shared by all CPUs,
 * atomic adds, never reset: failures are rare).  The one count of them,
 * so that every view of one read agrees; beyond the map's room a failure
 * is counted in stat_counters' no_fail_key.
 */
struct iolens_fail_key {
	__u32 tgid;		/* submitter with IOLENS_STAT_BY_PROC, 0 =
				 * not split or not seen */
	__u16 slot;
	__u8 sg;		/* enum iolens_sgrp */
	__u8 status;		/* the kernel's blk_status_t, raw: its
				 * numbering changed in Linux 6.10 */
};

struct iolens_fail_count {
	__u64 ios;
	__u64 bytes;		/* of the completion that failed */
	__u64 ns;		/* sum of their times from start (lat: of
				 * the time lat measures), over `timed` */
	__u64 timed;
};

/*
 * Requests of an op other than read, write, flush and discard (zone reset,
 * zone append, write-zeroes, secure erase, driver ops), which diskstats
 * and `stats` count in the read or write group: map `other_ops`, entry
 * slot * IOLENS_KOPS + the kernel's op (cmd_flags & REQ_OP_MASK, raw:
 * the numbers changed between releases, userspace names them from BTF),
 * one copy for all CPUs (atomic adds: such ops are rare).
 */
#define IOLENS_KOPS	64
struct iolens_op_count {
	__u64 ios;		/* as `ios` of struct iolens_stat */
	__u64 bytes;		/* as its `bytes` */
};

/*
 * With IOLENS_STAT_BY_HWQ: a disk's requests by the hardware queue they
 * were issued on (rq->mq_hctx->queue_num: an NVMe submission queue, a poll
 * queue, a null_blk submit queue), map `hwq_stats`, entry disk slot *
 * IOLENS_HWQ_MAX + queue, one copy for all CPUs (atomic adds).
 */
#define IOLENS_HWQ_MAX	64
struct iolens_hwq_stat {
	__s64 inflight;		/* issued minus completed (counted ones) */
	__u64 issues;		/* issues counted */
	__u64 qd_sum;		/* sum of this queue's in flight at them */
	__u64 ios;		/* as `ios` of struct iolens_stat */
	__u64 bytes;		/* as its `bytes` */
	__u64 total_ns;		/* as its `total_ns`, over `timed` */
	__u64 timed;
};

/* Per-CPU counters of the aggregation (map `stat_counters`). */
struct iolens_stat_counters {
	__u64 no_slot;		/* events of devices beyond the slot table */
	__u64 no_stamp;		/* own issue stamps lost (map full or evicted) */
	__u64 no_key;		/* lat_hists full: the value was not kept */
	__u64 no_fail_key;	/* failures full: not split by status */
	__u64 no_fail_mark;	/* a failure's time went to the histograms:
				 * no room to mark it for block_io_done */
	__u64 no_hwq;		/* with IOLENS_STAT_BY_HWQ: events of requests
				 * of no hardware queue, or one beyond
				 * IOLENS_HWQ_MAX */
	__u64 no_owner;		/* owner_slots: a request took over the slot
				 * of another in flight, whose submitter
				 * was lost */
	__u64 rescued;		/* completion events the kernel skipped the
				 * first program for (it ran on the CPU)
				 * that a rescue program counted */
};

#define IOLENS_STAT_PARTS	(1U << 0)	/* slots per partition */
#define IOLENS_STAT_OWN_CLOCK	(1U << 1)	/* always stamp issues ourselves */
#define IOLENS_STAT_FALLBACK	(1U << 2)	/* own stamp where the queue keeps none */
/* `iolens lat`: times end at block_rq_complete, the driver's completion, as
 * biolatency and `iolens record` take them; no diskstats counts. */
#define IOLENS_STAT_LAT		(1U << 3)
#define IOLENS_STAT_BY_PROC	(1U << 4)	/* lat_hists keyed by submitter */
#define IOLENS_STAT_BY_FLAGS	(1U << 5)	/* lat_hists keyed by flags */
/* Only requests submitted by the processes of `proc` (see
 * struct iolens_proc_filter): decided at block_io_start. */
#define IOLENS_STAT_PROC_FILTER	(1U << 6)
#define IOLENS_STAT_RMW		(1U << 7)	/* count rmw_reads */
#define IOLENS_STAT_LABEL_COMM	(1U << 8)	/* label_counts by comm */
#define IOLENS_STAT_LABEL_CGROUP (1U << 9)	/* label_counts by cgroup */
#define IOLENS_STAT_BY_HWQ	(1U << 10)	/* hwq_stats */
#define IOLENS_STAT_KEY_HWQ	(1U << 11)	/* lat_hists keyed by hwq */
#define IOLENS_STAT_KEY_STATUS	(1U << 12)	/* lat_hists keyed by status */
#define IOLENS_STAT_KEY_CGROUP	(1U << 13)	/* lat_hists keyed by blkcg */
#define IOLENS_STAT_KEY_STACK	(1U << 14)	/* by submitting stack */
/* What needs each request's submitter remembered (map `owners`), and what
 * agg_start is loaded for. */
#define IOLENS_STAT_OWNED	(IOLENS_STAT_BY_PROC | IOLENS_STAT_PROC_FILTER | \
				 IOLENS_STAT_LABEL_COMM | IOLENS_STAT_KEY_STACK)
#define IOLENS_STAT_STARTED	(IOLENS_STAT_OWNED | IOLENS_STAT_RMW)
/* What splits histograms into lat_hists. */
#define IOLENS_STAT_KEYED	(IOLENS_STAT_BY_PROC | IOLENS_STAT_BY_FLAGS | \
				 IOLENS_STAT_KEY_HWQ | IOLENS_STAT_KEY_STATUS | \
				 IOLENS_STAT_KEY_CGROUP | IOLENS_STAT_KEY_STACK)

/* Read-only configuration of agg.bpf.c, set before load. */
#define IOLENS_MAX_PID_FILTER	8

/*
 * Which submitters a request is kept for: all of these that are set must
 * hold.  A process matches a pid when it is that process or below it (its
 * parent chain, up to 16 levels): a benchmark, its children and threads.
 */
struct iolens_proc_filter {
	__u32 npid;
	__u32 pid[IOLENS_MAX_PID_FILTER];
	char comm[IOLENS_COMM_LEN];	/* "" = any */
	__u32 cgroup_level;		/* 0 = any cgroup */
	__u64 cgroup_id;		/* cgroup2 id of the ancestor at that level */
};

struct iolens_stat_cfg {
	struct iolens_proc_filter proc;	/* with IOLENS_STAT_PROC_FILTER */
	__u32 ndev;		/* whole-disk filter, 0 = all */
	__u32 dev[IOLENS_MAX_DEV_FILTER];
	__u32 flags;		/* IOLENS_STAT_* */
	__u32 nslots;		/* entries of `devs`: a power of two */
	__u32 nkinds;		/* histograms enabled */
	__s32 hist_slot[IOLENS_H_NR];	/* index among enabled, -1 = off */
};

#endif
