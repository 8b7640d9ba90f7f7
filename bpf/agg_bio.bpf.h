/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agg.bpf.c's hooks for bio-based disks (zram, device-mapper, md, NVMe
 * multipath heads), which take bios straight to their driver: no request,
 * no block_rq_* event.  Their bios are timed from block_bio_queue to
 * block_bio_complete; their counts are the kernel's (userspace reads them
 * from diskstats).  Included once, at the end of agg.bpf.c.
 */
#ifndef IOLENS_AGG_BIO_BPF_H
#define IOLENS_AGG_BIO_BPF_H

/* A bio of a bio-based disk in flight (see agg_bio_queue). */
struct bio_start {
	__u64 ns;
	__u32 bytes;		/* at queue: its size, before the driver
				 * advances bi_iter */
	__u32 slot;
	__u32 sg;
	struct owner owner;	/* with OWNED flags */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct bio_start);
} bio_starts SEC(".maps");

/* Whether a disk takes bios straight to its driver (no blk-mq ops). */
static __always_inline bool bio_based(struct block_device *bdev)
{
	return !bdev->bd_disk->queue->mq_ops;
}

/* A bio's op group as diskstats' (op_stat_group()), but an empty
 * PREFLUSH write is the cache flush it stands for. */
static __always_inline __u32 bio_group(__u32 opf, __u32 bytes)
{
	if (!bytes && (opf & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH))))
		return IOLENS_SG_FLUSH;
	return op_group(opf);
}

/*
 * A bio of a bio-based disk enters the block layer.  block_bio_queue fires
 * once per bio in submit_bio_noacct_nocheck(), which flags it
 * BIO_TRACE_COMPLETION so that bio_endio() fires block_bio_complete for it
 * (both since Linux 4.x); a stacked driver's clones to the disks under it
 * are bios of their own, of those disks.  Bios of request-based disks are
 * left to the request hooks.
 */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(agg_bio_queue, struct bio *bio)
{
	struct block_device *bdev = bio->bi_bdev;
	struct task_struct *t;
	struct bio_start b = {};
	struct gendisk *g;
	__u32 disk, dev, disk_slot;
	__u64 key = (__u64)bio;

	/* Every bio of every disk comes here: request-based ones leave first. */
	if (!bdev || !bio_based(bdev))
		return 0;
	t = bpf_get_current_task_btf();
	g = bdev->bd_disk;
	disk = (__u32)g->major << 20 | (__u32)g->first_minor;
	dev = slot_dev(disk, bdev->bd_dev);
	if (!io_in(cfg.dev, cfg.ndev, disk, bdev->bd_dev))
		return 0;
	if ((cfg.flags & IOLENS_STAT_PROC_FILTER) && !proc_wanted(t))
		return 0;
	/* A partition's disk holds a slot too, as for requests. */
	if (!slot_find(dev, &b.slot) ||
	    (dev != disk && !slot_find(disk, &disk_slot)))
		return 0;
	b.bytes = bio->bi_iter.bi_size;
	b.sg = bio_group(bio->bi_opf, b.bytes);
	if (cfg.flags & OWNED) {
		b.owner.tgid = t->tgid;
		__builtin_memcpy(b.owner.comm, t->comm, IOLENS_COMM_LEN);
	}
	b.ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&bio_starts, &key, &b, BPF_ANY);
	return 0;
}

/* Its end: its time and size, and with a process filter its count (the
 * kernel's own counts are every process's). */
SEC("tp_btf/block_bio_complete")
int BPF_PROG(agg_bio_complete, struct request_queue *q, struct bio *bio)
{
	__u64 key = (__u64)bio, now = bpf_ktime_get_ns();
	struct iolens_stat *st;
	struct bio_start *b;
	struct where w = {};

	b = bpf_map_lookup_elem(&bio_starts, &key);
	if (!b)
		return 0;
	w.slot = b->slot;
	w.sg = b->sg;
	w.owner = cfg.flags & OWNED ? &b->owner : NULL;
	st = stat_of(w.slot, w.sg, false);
	w.st = st;
	if (st && now > b->ns) {
		if (!lat_mode()) {
			st->ios++;
			st->bytes += b->bytes;
		}
		hist_put(&w, IOLENS_H_SIZE, b->bytes);
		if (bio->bi_status) {
			fail_add(&w, bio->bi_status, b->bytes, now - b->ns);
		} else {
			st->timed++;
			st->total_ns += now - b->ns;
			/* No request queue: the bio is at its driver from
			 * the start. */
			hist_put(&w, IOLENS_H_TOTAL, now - b->ns);
			hist_put(&w, IOLENS_H_DEVICE, now - b->ns);
		}
	}
	bpf_map_delete_elem(&bio_starts, &key);
	return 0;
}

#endif
