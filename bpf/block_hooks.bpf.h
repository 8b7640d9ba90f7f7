/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block tracer's hooks, included by block.bpf.c once per attach flavour:
 * FLAVOUR is the section prefix, FN() names this flavour's copy, RD(p, f)
 * reads field f of kernel pointer p as this flavour allows, RD2(p, a, b)
 * reads p->a->b, KEY(p, slot) is pointer p as a number (using the hook's
 * scratch slot), CURRENT() is the running task and COMM(dst, t) copies
 * task t's comm.  The hooks of one argument are rq_hook.bpf.h's RQ_PROG.
 */

/* BPF_PROG pastes its name argument, so FN() must expand first. */
#ifndef HOOK
#define HOOK(name, args...) BPF_PROG(name, args)
#endif

static __always_inline __u32 FN(rq_dev)(struct request *rq)
{
	struct gendisk *disk = RD2(rq, q, disk);

	/* Kernel-internal dev_t: MINORBITS is 20. */
	return (__u32)RD(disk, major) << 20 | (__u32)RD(disk, first_minor);
}

/* Whether the request of disk `dev` passes -d: its disk, or the partition
 * its first bio was submitted to (see io_in()). */
static __always_inline bool FN(rq_wanted)(struct request *rq, __u32 dev)
{
	struct block_device *bdev;
	struct bio *bio;

	if (!cfg.ndev)
		return true;
	bio = RD(rq, bio);
	bdev = bio ? RD(bio, bi_bdev) : NULL;
	return io_in(cfg.dev, cfg.ndev, dev, bdev ? RD(bdev, bd_dev) : dev);
}

/* The running task, as bpf_get_current_pid_tgid(), _comm() and
 * _cgroup_id() would tell, for the price of one helper call. */
static __always_inline void FN(who)(struct iolens_rq_base *rq, __u8 ctx)
{
	struct task_struct *t = CURRENT();
	struct cgroup *cg = RD2(t, cgroups, dfl_cgrp);

	rq->ctx = ctx;
	rq->pid = RD(t, tgid);
	rq->tid = RD(t, pid);
	rq->cgroup = RD2(cg, kn, id);
	COMM(rq->comm, t);
}

/* What the request is: op and flags, start sector, size.  Read when it is
 * first seen, again at issue (bio merges grow a request, a flush sequence
 * changes its flags), and at completion only if its issue was not seen. */
static __always_inline void FN(describe)(struct request *rq, struct iolens_rq_base *r)
{
	r->kflags = RD(rq, cmd_flags);
	r->sector = RD(rq, __sector);
	r->bytes = RD(rq, __data_len);
}

/*
 * The cgroup the I/O is charged to: the blkcg of the first bio; for
 * writeback on cgroup2 the cgroup that dirtied the pages.  On a v1/v2
 * hybrid it lives in the v1 blkio hierarchy, so its id means nothing
 * without the hierarchy.  Needs CONFIG_BLK_CGROUP.  Read where the request
 * is first seen: at block_io_start, or before Linux 6.5 at insert or issue,
 * where its bios are still all there.
 */
static __always_inline void FN(owner)(struct request *rq, struct iolens_rq_base *r)
{
	struct cgroup *cg = NULL;
	struct bio *bio;

	if (!bpf_core_field_exists(struct bio, bi_blkg))
		return;
	bio = RD(rq, bio);
	if (bio) {
		struct blkcg_gq *blkg = RD(bio, bi_blkg);

		if (blkg)
			cg = RD2(blkg, blkcg, css.cgroup);
	}
	if (cg) {
		r->io_cgroup = RD2(cg, kn, id);
		r->io_cgroup_hier = RD2(cg, root, hierarchy_id);
	}
}

/*
 * The slot of a request first seen now, or NULL if it is not wanted or the
 * table has no room.  `held` is a slot its address still holds (at `idx`):
 * the request there before it ended without its completion reaching us.
 */
static __always_inline struct iolens_rq_slot *FN(track)(void *pctx,
							struct request *rq,
							__u64 key, __u8 ctx,
							__u64 now,
							struct iolens_rq_slot *held,
							__u32 idx)
{
	__u32 dev = FN(rq_dev)(rq);
	struct iolens_rq_slot *s;
	struct iolens_rq_file *f;

	if (!FN(rq_wanted)(rq, dev))
		return NULL;
	s = held ? slot_recycle(held, idx, now) : slot_claim(key, now, &idx);
	if (!s)
		return NULL;
	s->rq.dev = dev;
	FN(describe)(rq, &s->rq);
	FN(who)(&s->rq, ctx);
	FN(owner)(rq, &s->rq);
	/* Where the request is first seen: under the submitter's
	 * submit_bio() at block_io_start, else (before Linux 6.5, and a
	 * flush the block layer made) where it is inserted or issued. */
	if (cfg.stacks) {
		long id = bpf_get_stackid(pctx, &stacks, 0);

		s->rq.stack = id >= 0 ? id + 1 : IOLENS_STACK_LOST;
	}
	if (cfg.files && (f = bpf_map_lookup_elem(&rq_files, &idx))) {
		__builtin_memset(f, 0, sizeof(*f));
		rq_file(RD(rq, bio), &s->rq, f);
	}
	return s;
}

/* The slot of a request seen again, or first seen at insert or issue. */
static __always_inline struct iolens_rq_slot *FN(sighting)(void *pctx,
							   struct request *rq,
							   __u64 key, __u8 ctx,
							   __u64 now)
{
	__u32 idx = 0;
	struct iolens_rq_slot *s = slot_find(key, &idx);

	if (!s)
		return FN(track)(pctx, rq, key, ctx, now, NULL, 0);
	/* Tracked since block_io_start, which reads no clock. */
	if (!s->seen)
		s->seen = now;
	return s;
}

/*
 * No clock is read here: a clock read costs some 50 ns on a VM, and the
 * kernel stamps the request itself right after this tracepoint
 * (rq->start_time_ns, read at issue).  That stamp may be the clock cached
 * in the submitter's plug (blk_time_get_ns(), as seen on 6.18), a little
 * earlier than this moment; it is the start iostat's await measures from.
 */
static __always_inline void FN(on_start)(void *pctx, struct request *rq)
{
	__u64 key = KEY(rq, SCRATCH_START);
	__u32 idx = 0;
	struct iolens_rq_slot *held = slot_find(key, &idx);

	FN(track)(pctx, rq, key, IOLENS_CTX_SUBMIT, 0, held, idx);
}

static __always_inline void FN(on_insert)(void *pctx, struct request *rq)
{
	__u64 now = bpf_ktime_get_ns();
	struct iolens_rq_slot *s = FN(sighting)(pctx, rq, KEY(rq, SCRATCH_INSERT),
						IOLENS_CTX_INSERT, now);

	if (s)
		s->rq.ts_insert = now;
}

static __always_inline void FN(on_issue)(void *pctx, struct request *rq)
{
	__u64 now = bpf_ktime_get_ns();
	struct iolens_rq_slot *s = FN(sighting)(pctx, rq, KEY(rq, SCRATCH_ISSUE),
						IOLENS_CTX_ISSUE, now);

	if (!s)
		return;
	if (s->rq.ts_issue)
		inflight_add(s->rq.dev, -1);
	/* The kernel's start stamp (0 if this queue keeps no I/O stats):
	 * set in blk_account_io_start, always before issue. */
	if (!s->rq.ts_start)
		s->rq.ts_start = RD(rq, start_time_ns);
	s->rq.ts_issue = now;
	FN(describe)(rq, &s->rq);
	s->rq.qd = inflight_add(s->rq.dev, 1);
}

/* Back to the queue, to be issued again. */
static __always_inline void FN(on_requeue)(struct request *rq)
{
	__u32 idx;
	struct iolens_rq_slot *s = slot_find(KEY(rq, SCRATCH_REQUEUE), &idx);

	if (!s)
		return;
	/* Counted as the kernel traces them: also a dispatch the driver
	 * refused before issue (SCSI host busy), which has no issue to
	 * take back.  A u8 in the record: it stays at 255. */
	if (s->rq.requeues < 255)
		s->rq.requeues++;
	if (!s->rq.ts_issue)
		return;
	inflight_add(s->rq.dev, -1);
	s->rq.ts_issue = 0;
	s->rq.qd = 0;
}

/* Merged into another request and freed without completing. */
static __always_inline void FN(on_merge)(struct request *rq)
{
	__u32 idx;
	struct iolens_rq_slot *s = slot_find(KEY(rq, SCRATCH_MERGE), &idx);

	if (!s)
		return;
	if (s->rq.ts_issue)
		inflight_add(s->rq.dev, -1);
	slot_release(s);
}

/*
 * The end of a request.  `rescue`: the run of complete_rescue, the second
 * program on block_rq_complete, attached after the first and so run after
 * it for every completion.  The kernel skips a program that fires while it
 * already runs on the CPU (its recursion guard, __bpf_trace_run()): a
 * completion in an interrupt that comes while the first program handles
 * another in a loop worker is not seen by it.  The first program releases
 * the slot of each request it ends, so the second finds a slot only where
 * the first was skipped, and ends that request; it makes no record of a
 * request it does not track (the first does).
 */
static __always_inline int FN(on_complete)(struct request *rq, u8 status,
					   unsigned int nr_bytes, bool rescue)
{
	struct iolens_counters *c;
	struct iolens_rq *e;
	struct iolens_rq_slot *s;
	__u32 dev, idx = 0;
	__u64 key;

	/* A partial completion (blk_update_request with fewer bytes than
	 * remain) is not the end of the request. */
	if (nr_bytes < RD(rq, __data_len))
		return 0;
	key = rescue ? KEY(rq, SCRATCH_RESCUE) : KEY(rq, SCRATCH_COMPLETE);
	s = slot_find(key, &idx);
	if (rescue) {
		if (!s)
			return 0;
		c = counters_get();
		if (c)
			__sync_fetch_and_add(&c->rescued, 1);
	}
	if (s) {
		dev = s->rq.dev;
		if (s->rq.ts_issue)
			inflight_add(dev, -1);
	} else {
		dev = FN(rq_dev)(rq);
		if (!FN(rq_wanted)(rq, dev))
			return 0;
	}
	e = ring_reserve(key);
	if (!e) {
		c = counters_get();
		if (c)
			c->lost++;
		goto out;
	}
	if (s) {
		__builtin_memcpy(e, &s->rq, sizeof(s->rq));
		file_copy(e, idx);
	} else {
		/* In flight before we attached, or untracked: only what the
		 * request itself still says; ctx NONE marks it. */
		__builtin_memset(e, 0, sizeof(struct iolens_rq_base));
		if (cfg.files) {
			e->fdev = 0;
			e->fgen = 0;
			e->ino = 0;
		}
		e->dev = dev;
	}
	/* The tracepoint fires before blk_update_request advances the
	 * request, so it still describes all of it. */
	if (!e->ts_issue)
		FN(describe)(rq, (struct iolens_rq_base *)e);
	e->ts_complete = bpf_ktime_get_ns();
	e->status = status;
	/* Never wake the reader: it drains on a timer.  A wakeup is an
	 * irq_work, and even asking how full the ring is reads a cache line
	 * the reader keeps writing. */
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
out:
	if (s)
		slot_release(s);
	return 0;
}

/*
 * A bio submitted, in the submitter's context, once per bio
 * (BIO_TRACE_COMPLETION keeps a bio resubmitted after a split or a
 * partition remap from being traced again): reads and writes to disks that
 * make requests, counted for the submitting process (struct
 * iolens_proc_bios).  A bio-based disk's bios (dm, md) go on to the disks
 * under it, where they are counted.
 */
static __always_inline void FN(on_bio)(struct bio *bio)
{
	struct block_device *bdev = RD(bio, bi_bdev);
	struct iolens_proc_bios *p, init = {};
	struct task_struct *t;
	struct gendisk *disk;
	__u32 op, tgid, dev;

	if (!bdev)
		return;
	/* REQ_OP_READ is 0 and REQ_OP_WRITE 1 on every kernel. */
	op = RD(bio, bi_opf) & KERNEL_REQ_OP_MASK;
	disk = RD(bdev, bd_disk);
	if (op > 1 || !disk || RD2(disk, fops, submit_bio))
		return;
	dev = (__u32)RD(disk, major) << 20 | (__u32)RD(disk, first_minor);
	if (cfg.ndev && !io_in(cfg.dev, cfg.ndev, dev, RD(bdev, bd_dev)))
		return;
	t = CURRENT();
	tgid = RD(t, tgid);
	p = bpf_map_lookup_elem(&proc_bios, &tgid);
	if (!p) {
		struct cgroup *cg = RD2(t, cgroups, dfl_cgrp);

		init.cgroup = RD2(cg, kn, id);
		init.ppid = RD2(t, real_parent, tgid);
		COMM(init.comm, t);
		p = proc_bios_make(tgid, &init);
		if (!p)
			return;
	}
	__sync_fetch_and_add(&p->bios[op], 1);
	__sync_fetch_and_add(&p->bytes[op], RD(bio, bi_iter.bi_size));
}

/* A hook that hands the request to its handler: tracepoint, name. */
#ifndef RQ_HOOK
#define RQ_HOOK(tp, name, handler) RQ_PROG(FLAVOUR #tp, FN(name), FN(handler))
#endif

/* The same for a handler that may take the stack: it gets the program's
 * context too. */
#ifndef RQ_CTX_HOOK
#define RQ_CTX_HOOK(tp, name, handler)					\
	SEC(FLAVOUR #tp)						\
	int HOOK(FN(name), struct request *rq)				\
	{								\
		FN(handler)(ctx, rq);					\
		return 0;						\
	}
#endif

RQ_CTX_HOOK(block_io_start, io_start, on_start)
RQ_CTX_HOOK(block_rq_insert, insert, on_insert)
RQ_CTX_HOOK(block_rq_issue, issue, on_issue)
RQ_HOOK(block_rq_requeue, requeue, on_requeue)
RQ_HOOK(block_rq_merge, merge, on_merge)

SEC(FLAVOUR "block_bio_queue")
int HOOK(FN(bio_queue), struct bio *bio)
{
	FN(on_bio)(bio);
	return 0;
}

SEC(FLAVOUR "block_rq_complete")
int HOOK(FN(complete), struct request *rq, blk_status_t status,
	 unsigned int nr_bytes)
{
	return FN(on_complete)(rq, status, nr_bytes, false);
}

SEC(FLAVOUR "block_rq_complete")
int HOOK(FN(complete_rescue), struct request *rq, blk_status_t status,
	 unsigned int nr_bytes)
{
	return FN(on_complete)(rq, status, nr_bytes, true);
}
