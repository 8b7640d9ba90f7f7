/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a block request's data belongs to (struct iolens_rq.fkind and its
 * file), told by its first bio where the request is first seen: for the
 * block tracer, with iolens_block_cfg.files.  A request that merged bios
 * of several files is the first one's.
 *
 * Probe reads only, the same in both attach flavours: the page and the
 * kiocb are reached through values the verifier does not type (a tail
 * page's head, a bio's bi_private).  Paid only when files are asked for.
 */
#ifndef IOLENS_RQFILE_BPF_H
#define IOLENS_RQFILE_BPF_H

/* Macros, so not in vmlinux.h: include/uapi/linux/stat.h */
#ifndef S_IFMT
#define S_IFMT		00170000
#endif
#ifndef S_IFBLK
#define S_IFBLK		0060000
#endif
/* include/linux/fs.h, the same on every kernel */
#define RQFILE_FS_REQUIRES_DEV	1

/*
 * The file of inode `ino` as `kind`.  The block device's own inode (of the
 * bdev pseudo filesystem: its page cache holds a filesystem's metadata
 * buffers) is the device, not a file.
 */
static __always_inline void rq_file_inode(struct inode *ino, struct iolens_rq_base *r,
					  struct iolens_rq_file *f, __u8 kind)
{
	if ((BPF_CORE_READ(ino, i_mode) & S_IFMT) == S_IFBLK) {
		f->fdev = BPF_CORE_READ(ino, i_rdev);
		r->fkind = IOLENS_FK_DEVICE;
		return;
	}
	f->fdev = BPF_CORE_READ(ino, i_sb, s_dev);
	f->ino = BPF_CORE_READ(ino, i_ino);
	f->fgen = BPF_CORE_READ(ino, i_generation);
	r->fkind = kind;
}

/* Splits followed back to the bio submitted: a bio split at most this many
 * times over (a stacked device splits again) is told by its pages. */
#define RQFILE_CHAIN_MAX 4

/* Into r->fkind and *f (zeroed). */
static __always_inline void rq_file(struct bio *bio, struct iolens_rq_base *r,
				    struct iolens_rq_file *f)
{
	struct address_space *m;
	struct inode *ino;
	struct page *page;
	unsigned long head;
	__u64 end_io;

	if (!bio)
		return;
	/*
	 * Direct I/O first: its pages are the user's buffer, anonymous or,
	 * where the buffer is a mapped file, another file's.  iomap's bios
	 * (ext4 since Linux 5.5, xfs, btrfs) carry their struct iomap_dio,
	 * whose kiocb names the file.  Direct I/O of other paths (the raw
	 * device's synchronous one, filesystems without iomap) is told by
	 * nothing here, and a user buffer mapped from a file would be taken
	 * for that file's cache: rare, and said in the man page.
	 */
	end_io = (__u64)BPF_CORE_READ(bio, bi_end_io);
	/* A bio split to fit the queue's limits (bio_split()): the part
	 * split off the front ends in bio_chain_endio() and names the bio it
	 * was split from, the one submitted, as its bi_private. */
	for (int i = 0; i < RQFILE_CHAIN_MAX; i++) {
		if (!end_io || end_io != cfg.bio_chain_end_io)
			break;
		bio = BPF_CORE_READ(bio, bi_private);
		end_io = bio ? (__u64)BPF_CORE_READ(bio, bi_end_io) : 0;
	}
	if (!bio)
		return;
	if (end_io && end_io == cfg.iomap_dio_end_io) {
		struct iomap_dio *dio = BPF_CORE_READ(bio, bi_private);

		ino = BPF_CORE_READ(dio, iocb, ki_filp, f_inode);
		if (ino)
			rq_file_inode(ino, r, f, IOLENS_FK_DIRECT);
		return;
	}
	if (end_io && (end_io == cfg.blkdev_dio_end_io[0] ||
		       end_io == cfg.blkdev_dio_end_io[1])) {
		f->fdev = BPF_CORE_READ(bio, bi_bdev, bd_dev);
		r->fkind = IOLENS_FK_DEVICE;
		return;
	}
	/* Only reads and writes of data carry pages (REQ_OP_READ is 0 and
	 * REQ_OP_WRITE 1 on every kernel); a flush has no data.  Not
	 * bi_vcnt: a split or cloned bio shares its parent's bi_io_vec with
	 * a count of 0 (__bio_clone()). */
	if ((BPF_CORE_READ(bio, bi_opf) & KERNEL_REQ_OP_MASK) > 1 ||
	    !BPF_CORE_READ(bio, bi_iter.bi_size))
		return;
	page = BPF_CORE_READ(bio, bi_io_vec, bv_page);
	if (!page)
		return;
	/* A large folio's tail page (ext4 has them since Linux 6.16): the
	 * head page holds the mapping; bit 0 of compound_head marks a tail. */
	head = BPF_CORE_READ(page, compound_head);
	if (head & 1)
		page = (struct page *)(head - 1);
	m = BPF_CORE_READ(page, mapping);
	/* The low bits tag anonymous and movable pages (PAGE_MAPPING_ANON,
	 * PAGE_MAPPING_MOVABLE): no file's cache. */
	if (!m || ((unsigned long)m & 3))
		return;
	/* A page-cache page's mapping is its inode's own; anything else
	 * there (a slab page, say: jbd2 keeps frozen copies of buffers
	 * smaller than a page in one) reuses the field, and is no file. */
	ino = BPF_CORE_READ(m, host);
	if (!ino || BPF_CORE_READ(ino, i_mapping) != m)
		return;
	/* A file whose data lives on a device: not tmpfs, shared anonymous
	 * memory or hugetlbfs, which a direct I/O buffer told by nothing
	 * above (the raw device's synchronous path, dm's clones) often is. */
	if (!(BPF_CORE_READ(ino, i_sb, s_type, fs_flags) & RQFILE_FS_REQUIRES_DEV) &&
	    (BPF_CORE_READ(ino, i_mode) & S_IFMT) != S_IFBLK)
		return;
	rq_file_inode(ino, r, f, IOLENS_FK_CACHE);
}

#endif
