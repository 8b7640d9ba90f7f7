/* SPDX-License-Identifier: GPL-2.0 */
/* The device filter every block program applies first. */
#ifndef IOLENS_DEVFILTER_BPF_H
#define IOLENS_DEVFILTER_BPF_H

/* Whether `dev` is one of the `n` devices of `list` (its rodata config);
 * n == 0 wants every device. */
static __always_inline bool dev_in(const volatile __u32 *list, __u32 n,
				   __u32 dev)
{
	if (!n)
		return true;
	for (int i = 0; i < IOLENS_MAX_DEV_FILTER; i++) {
		if (i >= n)
			break;
		if (list[i] == dev)
			return true;
	}
	return false;
}

/*
 * Whether I/O of disk `disk` submitted to `part` (a partition's dev_t, or
 * `disk` itself) passes the filter: either may be listed.  A partition's
 * I/O is told by its bios' bdev, which submit_bio() leaves on the
 * partition while remapping its sectors to the disk (Linux 5.12+).
 */
static __always_inline bool io_in(const volatile __u32 *list, __u32 n,
				  __u32 disk, __u32 part)
{
	return !n || dev_in(list, n, disk) || (part != disk && dev_in(list, n, part));
}

/* The block device a request was submitted to, a partition or the disk:
 * rq->part once the block layer accounts it (blk_account_io_start() sets
 * it after block_io_start fires), else its first bio's; the disk for one
 * with neither (a flush), and after its bios ended (block_io_done) rq->part
 * is the only trace left. */
static __always_inline __u32 rq_part_dev(struct request *rq, __u32 disk)
{
	struct block_device *part = rq->part;
	struct bio *bio = rq->bio;

	if (part)
		return part->bd_dev;
	return bio && bio->bi_bdev ? bio->bi_bdev->bd_dev : disk;
}

/* Whether a request passes the filter. */
static __always_inline bool rq_in(const volatile __u32 *list, __u32 n,
				  struct request *rq, __u32 disk)
{
	return !n || io_in(list, n, disk, rq_part_dev(rq, disk));
}

/* The whole disk of a request, for tp_btf programs (direct BTF loads).
 * Kernel-internal dev_t: MINORBITS is 20. */
static __always_inline __u32 disk_dev_of(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;

	return (__u32)disk->major << 20 | (__u32)disk->first_minor;
}

#endif
