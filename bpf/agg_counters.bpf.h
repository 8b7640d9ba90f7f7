/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agg.bpf.c's counters: its configuration, the maps of counters per device
 * slot, op group and CPU, and where a request's events are counted
 * (counters_of(): the slot of its disk or partition, its op group, its
 * submitter when that is asked for).  Included once, first, by agg.bpf.c;
 * agg_hist.bpf.h's histograms are filed by the same struct where.
 */
#ifndef IOLENS_AGG_COUNTERS_BPF_H
#define IOLENS_AGG_COUNTERS_BPF_H

const volatile struct iolens_stat_cfg cfg = { .nslots = 1 };
/* Bit of QUEUE_FLAG_STATS in q->queue_flags: an anonymous enum in the
 * kernel, so CO-RE cannot relocate it; userspace reads it from BTF. */
const volatile __u32 queue_flag_stats = 7;

/*
 * CLOCK_MONOTONIC after every hook was attached (userspace writes it); until
 * then nothing is counted in flight.  A request is counted in flight iff the
 * kernel stamped its start at or after this: it was then issued after the
 * issue hook ran, and the same test on the same stamp at completion keeps
 * issue and completion paired, with no per-request state.
 */
volatile __u64 attach_ns = ~0ULL;

#define MAX_BIOS 256		/* merges counted per request, at most */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* cfg.nslots, set by userspace */
	__type(key, __u32);
	__type(value, struct iolens_dev_slot);
} devs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	/* nslots * IOLENS_SG_NR, then as many for the rescue programs
	 * (agg.bpf.c's struct first_mark) */
	__uint(max_entries, 2 * IOLENS_SG_NR);
	__type(key, __u32);
	__type(value, struct iolens_stat);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iolens_stat_counters);
} stat_counters SEC(".maps");

/* Own issue stamps, by request address (see the top of this file). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} issue_ts SEC(".maps");

#define OWNED IOLENS_STAT_OWNED
#define STARTED IOLENS_STAT_STARTED

/* The submitter of each request, with OWNED flags. */
struct owner {
	__u32 tgid;
	__u32 io_hier;		/* see struct iolens_lat_key */
	__u64 io_cgroup;
	char comm[IOLENS_COMM_LEN];
	__u32 stack;		/* see struct iolens_lat_key */
};

/* The kernel stacks that submitted requests, with IOLENS_STAT_KEY_STACK.
 * No BPF_F_REUSE_STACKID: a stack whose bucket another holds is unknown,
 * never taken for that other. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);		/* IOLENS_STACKS_MAX with the flag */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, IOLENS_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);		/* 16384 with OWNED flags */
	__type(key, __u64);
	__type(value, struct owner);
} owners SEC(".maps");

/*
 * serve's comm label alone keeps each request's submitter from its start
 * to its end without a hash update (`owners` cost more per request than
 * the rest of serve): in the slot its identity (owner_ident()) hashes to,
 * written at start with plain stores (the id last) and let go at the last
 * completion.  A request whose slot another in flight holds takes it over
 * (counted: no_owner; the other's I/O goes to comm "(unknown)").  Atomics
 * cost a cross-CPU round trip at each start: the reader's check of the id
 * before and after its copy relies on stores and loads kept in program
 * order, as x86-64 keeps them, so the loader uses these slots there only
 * (`owners` elsewhere).  `id` 0: a free slot.
 */

struct owner_slot {
	__u64 id;
	char comm[IOLENS_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* owner_slots_mask + 1 when used */
	__type(key, __u32);
	__type(value, struct owner_slot);
} owner_slots SEC(".maps");

/* Slots - 1 (a power of two); 0: `owners` is used instead. */
const volatile __u32 owner_slots_mask = 0;

#define LABELS (IOLENS_STAT_LABEL_COMM | IOLENS_STAT_LABEL_CGROUP)

/* Per CPU: a busy label set's counts are added on every CPU that ends
 * its requests, and one shared line of them bounced between those CPUs
 * at each completion. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);		/* the cap on label sets, with LABELS */
	__type(key, struct iolens_label_key);
	__type(value, struct iolens_label_count);
} label_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, IOLENS_KOPS);	/* nslots * IOLENS_KOPS */
	__type(key, __u32);
	__type(value, struct iolens_op_count);
} other_ops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* nslots * IOLENS_HWQ_MAX with BY_HWQ */
	__type(key, __u32);
	__type(value, struct iolens_hwq_stat);
} hwq_stats SEC(".maps");

/* Failed requests by status (struct iolens_fail_key). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);	/* more with IOLENS_STAT_BY_PROC */
	__type(key, struct iolens_fail_key);
	__type(value, struct iolens_fail_count);
} failures SEC(".maps");

/*
 * Since Linux 6.5 a request's times end at block_io_done, which has no
 * status: block_rq_complete marks a failed one here (by address, with its
 * start stamp against a reused address) and block_io_done takes the mark.
 * `fail_marked` counts the marks, so that while none is left, which is
 * nearly always, block_io_done does no lookup.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} fail_marks SEC(".maps");

volatile __s64 fail_marked;

static __always_inline struct iolens_stat_counters *losses(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stat_counters, &zero);
}

/* The slot's device of I/O of `disk` submitted to `part`: the partition
 * with IOLENS_STAT_PARTS or where -d names it, else the whole disk. */
static __always_inline __u32 slot_dev(__u32 disk, __u32 part)
{
	if (part != disk && ((cfg.flags & IOLENS_STAT_PARTS) ||
			     (cfg.ndev && dev_in(cfg.dev, cfg.ndev, part))))
		return part;
	return disk;
}

/* The device a request is accounted to (see slot_dev()); the whole disk
 * is also put in *disk_dev. */
static __always_inline __u32 rq_dev(struct request *rq, __u32 *disk_dev)
{
	*disk_dev = disk_dev_of(rq);
	if (!(cfg.flags & IOLENS_STAT_PARTS) && !cfg.ndev)
		return *disk_dev;
	return slot_dev(*disk_dev, rq_part_dev(rq, *disk_dev));
}

/*
 * The slot of `dev`, claimed on first sight: open addressing from a hash of
 * dev_t, a compare-and-swap to claim.  NULL (counted) if the table is full.
 * cfg.nslots is a power of two: a mask, not a division, on every event.
 */
static __always_inline struct iolens_dev_slot *slot_find(__u32 dev, __u32 *idx)
{
	__u32 i, mask = cfg.nslots - 1, h = dev * 0x9e3779b1U;
	struct iolens_stat_counters *c;
	struct iolens_dev_slot *s;

	for (int n = 0; n < 16; n++) {
		i = (h + n) & mask;
		s = bpf_map_lookup_elem(&devs, &i);
		if (!s)
			break;
		if (s->dev == dev ||
		    (!s->dev && !__sync_val_compare_and_swap(&s->dev, 0, dev))) {
			*idx = i;
			return s;
		}
	}
	c = losses();
	if (c)
		c->no_slot++;
	return NULL;
}

/*
 * Where a request is counted: its slot (of its partition with
 * IOLENS_STAT_PARTS), and the slot of its whole disk, which keeps the queue
 * depth and busy time (partitions share their disk's queue).  NULL if the
 * disk is filtered out or the table is full.
 */
static __always_inline struct iolens_dev_slot *slots_of(struct request *rq,
							__u32 *idx,
							struct iolens_dev_slot **disk_slot,
							__u32 *didx)
{
	struct iolens_dev_slot *s;
	__u32 disk, dev = rq_dev(rq, &disk);

	if (!rq_in(cfg.dev, cfg.ndev, rq, disk))
		return NULL;
	s = slot_find(dev, idx);
	*disk_slot = s;
	*didx = *idx;
	if (s && dev != disk)
		*disk_slot = slot_find(disk, didx);
	return *disk_slot ? s : NULL;
}

static __always_inline __u32 op_group(__u32 cmd_flags)
{
	__u32 op = cmd_flags & KERNEL_REQ_OP_MASK;

	if (op == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH))
		return IOLENS_SG_FLUSH;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD))
		return IOLENS_SG_DISCARD;
	/* op_is_write(): odd ops move data to the device. */
	return op & 1 ? IOLENS_SG_WRITE : IOLENS_SG_READ;
}

/* The counters of `slot` and `sg`; a rescue program's own with `rescue`. */
static __always_inline struct iolens_stat *stat_of(__u32 slot, __u32 sg, bool rescue)
{
	__u32 idx = (rescue ? cfg.nslots + slot : slot) * IOLENS_SG_NR + sg;

	return bpf_map_lookup_elem(&stats, &idx);
}

/* Where a request's values go. */
struct where {
	__u32 slot;		/* device slot */
	__u32 sg;		/* enum iolens_sgrp */
	__u32 flags;		/* lat_hists key: cmd_flags with -F */
	__u32 op;		/* cmd_flags & REQ_OP_MASK */
	const struct owner *owner;	/* lat_hists key: submitter */
	/* Set by counters_of() only: */
	struct iolens_stat *st;		/* the counters */
	struct iolens_dev_slot *dev;	/* slot `slot` */
	struct iolens_dev_slot *disk;	/* its whole disk's: queue depth,
					 * busy time */
	__u32 disk_slot;		/* the index of `disk` */
	__u16 hwq;			/* lat_hists key: queue + 1 */
	__u8 status;			/* lat_hists key: a failure's status */
	bool rescue;			/* counted by a rescue program */
	__u32 cg_hier;			/* lat_hists key: the request's blkcg */
	__u64 cg_id;
};

/* The submitter recorded for a request, with OWNED flags. */
static __always_inline const struct owner *owner_of(struct request *rq)
{
	__u64 key = (__u64)rq;

	if (!(cfg.flags & OWNED) || owner_slots_mask)
		return NULL;
	return bpf_map_lookup_elem(&owners, &key);
}

#define OWNER_MIX 0x9E3779B97F4A7C15ULL	/* 2^64 / golden ratio */

/*
 * Who a request is while in flight, the same from block_io_start to its
 * last completion, as a number (the verifier lets no arithmetic touch the
 * request's address): its tag (the scheduler's while it has one: the
 * driver's is given only at dispatch), held from its allocation to its
 * end, its hardware queue and its queue.  Not its start: on 6.18 the
 * rq->start_time_ns a completion reads is not the one block_io_start
 * read (the kernel stamps the start again after the tracepoint).
 * Never 0.
 */
static __always_inline __u64 owner_ident(struct request *rq)
{
	int tag = rq->internal_tag >= 0 ? rq->internal_tag : rq->tag;
	__u64 h = (__u32)tag * OWNER_MIX;

	h = (h ^ rq->mq_hctx->queue_num) * OWNER_MIX;
	h = (h ^ (__u32)rq->q->id) * OWNER_MIX;
	return h | 2;
}

/* The slot of `id`. */
static __always_inline __u32 owner_slot_of(__u64 id)
{
	return (__u32)(id >> 32) & owner_slots_mask;
}

/* Keeps `comm` for rq in its slot (see owner_slots). */
static __always_inline void owner_put(struct request *rq, const char *comm)
{
	__u64 id = owner_ident(rq);
	__u32 idx = owner_slot_of(id);
	struct owner_slot *e = bpf_map_lookup_elem(&owner_slots, &idx);
	struct iolens_stat_counters *lost;

	if (!e)
		return;
	if (e->id && e->id != id) {
		lost = losses();
		if (lost)
			lost->no_owner++;
	}
	e->id = 0;
	__builtin_memcpy(e->comm, comm, IOLENS_COMM_LEN);
	e->id = id;
}

/* rq's comm into `comm` (left as it is if none is kept); with `last`, its
 * slot let go. */
static __always_inline void owner_comm(struct request *rq, char *comm, bool last)
{
	__u64 id = owner_ident(rq);
	__u32 idx = owner_slot_of(id);
	struct owner_slot *e = bpf_map_lookup_elem(&owner_slots, &idx);
	char c[IOLENS_COMM_LEN];

	if (!e || e->id != id)
		return;
	__builtin_memcpy(c, e->comm, IOLENS_COMM_LEN);
	if (last ? __sync_val_compare_and_swap(&e->id, id, 0) == id : e->id == id)
		__builtin_memcpy(comm, c, IOLENS_COMM_LEN);
}

/* Counts a completion of an op that is not its group's own (map
 * `other_ops`). */
static __always_inline void other_op_add(const struct where *w, __u64 bytes,
					 __u64 ios)
{
	struct iolens_op_count *c;
	__u32 idx;

	/* REQ_OP_READ and REQ_OP_WRITE are 0 and 1 in every kernel. */
	if (!(bytes | ios) || w->op <= 1 || w->sg == IOLENS_SG_FLUSH || w->sg == IOLENS_SG_DISCARD ||
	    w->op >= IOLENS_KOPS)
		return;
	idx = w->slot * IOLENS_KOPS + w->op;
	c = bpf_map_lookup_elem(&other_ops, &idx);
	if (!c)
		return;
	if (ios)
		__sync_fetch_and_add(&c->ios, ios);
	if (bytes)
		__sync_fetch_and_add(&c->bytes, bytes);
}

/* The hardware queue `rq` was issued on; IOLENS_HWQ_MAX if none. */
static __always_inline __u32 hwq_num(struct request *rq)
{
	struct blk_mq_hw_ctx *hctx;

	/* rq->mq_hctx since Linux 5.0; set from allocation to the end. */
	if (bpf_core_field_exists(rq->mq_hctx)) {
		hctx = rq->mq_hctx;
		if (hctx && hctx->queue_num < IOLENS_HWQ_MAX)
			return hctx->queue_num;
	}
	return IOLENS_HWQ_MAX;
}

/* The figures of the hardware queue `rq` was issued on, with BY_HWQ;
 * NULL (counted) if it has none or one beyond the table. */
static __always_inline struct iolens_hwq_stat *hwq_of(struct request *rq,
						      const struct where *w)
{
	struct iolens_stat_counters *lost;
	__u32 q, idx;

	if (!(cfg.flags & IOLENS_STAT_BY_HWQ))
		return NULL;
	q = hwq_num(rq);
	if (q < IOLENS_HWQ_MAX) {
		idx = w->disk_slot * IOLENS_HWQ_MAX + q;
		return bpf_map_lookup_elem(&hwq_stats, &idx);
	}
	lost = losses();
	if (lost)
		lost->no_hwq++;
	return NULL;
}

/* The cgroup a request is charged to: its first bio's blkcg
 * (CONFIG_BLK_CGROUP), and that cgroup's hierarchy; left alone if none. */
static __always_inline void rq_cgroup(struct request *rq, __u64 *id, __u32 *hier)
{
	struct cgroup *cg;

	if (!bpf_core_field_exists(struct bio, bi_blkg) || !rq->bio || !rq->bio->bi_blkg)
		return;
	cg = rq->bio->bi_blkg->blkcg->css.cgroup;
	*id = cg->kn->id;
	*hier = cg->root->hierarchy_id;
}

/* Where a request's event goes, into *w (the owner only when filtering by
 * submitter), for a rescue program with `rescue`; false if it is not
 * wanted. */
static __always_inline bool counters_of(struct request *rq, struct where *w,
					bool rescue)
{
	__u32 cmd;

	w->dev = slots_of(rq, &w->slot, &w->disk, &w->disk_slot);
	if (!w->dev)
		return false;
	cmd = rq->cmd_flags;
	w->op = cmd & KERNEL_REQ_OP_MASK;
	w->sg = op_group(cmd);
	w->flags = cfg.flags & IOLENS_STAT_BY_FLAGS ? cmd : 0;
	w->hwq = 0;
	if (cfg.flags & IOLENS_STAT_KEY_HWQ) {
		__u32 q = hwq_num(rq);

		w->hwq = q < IOLENS_HWQ_MAX ? q + 1 : 0;
	}
	w->status = 0;
	w->cg_id = 0;
	w->cg_hier = 0;
	if (cfg.flags & IOLENS_STAT_KEY_CGROUP)
		rq_cgroup(rq, &w->cg_id, &w->cg_hier);
	w->owner = NULL;
	/* Filtered by submitter: a request has an owner only if kept. */
	if (cfg.flags & IOLENS_STAT_PROC_FILTER) {
		w->owner = owner_of(rq);
		if (!w->owner)
			return false;
	}
	w->rescue = rescue;
	w->st = stat_of(w->slot, w->sg, rescue);
	return w->st;
}

#endif
