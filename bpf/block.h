/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ABI of bpf/block.bpf.c, the per-request tracer of snoop, record, attach
 * and bench.
 *
 * The request record is also the on-disk record of `iolens record`, so its
 * layout is part of the trace file format (include/report/tracefile.h):
 * change it only together with IOLENS_TRACE_VERSION.
 */
#ifndef IOLENS_BPF_BLOCK_H
#define IOLENS_BPF_BLOCK_H

#include "common.h"

/* Where the submitter of a request was seen (struct iolens_rq.ctx). */
enum iolens_ctx {
	IOLENS_CTX_NONE = 0,	/* request was already in flight at attach */
	IOLENS_CTX_SUBMIT,	/* block_io_start: the task that submitted the bio */
	IOLENS_CTX_INSERT,	/* first seen at insert: the inserting task */
	IOLENS_CTX_ISSUE,	/* first seen at issue: the dispatching task */
};

/* Normalised request operation: stable across kernels (the kernel's REQ_OP_*
 * numbering is not), so trace files stay readable. */
enum iolens_op {
	IOLENS_OP_READ = 0,
	IOLENS_OP_WRITE,
	IOLENS_OP_FLUSH,
	IOLENS_OP_DISCARD,
	IOLENS_OP_SECURE_ERASE,
	IOLENS_OP_WRITE_ZEROES,
	IOLENS_OP_ZONE,		/* any zone op: files written before they were named */
	IOLENS_OP_DRV,		/* driver private (passthrough) */
	IOLENS_OP_OTHER,
	/* Zone ops each by name, after the values files already hold. */
	IOLENS_OP_ZONE_APPEND,
	IOLENS_OP_ZONE_RESET,
	IOLENS_OP_ZONE_RESET_ALL,
	IOLENS_OP_ZONE_OPEN,
	IOLENS_OP_ZONE_CLOSE,
	IOLENS_OP_ZONE_FINISH,
	IOLENS_OP_NR,
};

/*
 * What a request's data belongs to (struct iolens_rq.fkind), with files
 * asked for (iolens_block_cfg.files): told by its first bio when the
 * request is first seen.  Part of the trace file format.
 */
enum iolens_fkind {
	IOLENS_FK_NONE = 0,	/* not asked, or nothing tells (direct I/O
				 * not through iomap, a kernel buffer) */
	IOLENS_FK_CACHE,	/* a file's page cache: buffered I/O,
				 * readahead, writeback, mmap */
	IOLENS_FK_DIRECT,	/* a file's direct I/O, through iomap (ext4,
				 * xfs, btrfs...): the file of its kiocb */
	IOLENS_FK_DEVICE,	/* the block device's own: its page cache
				 * (a filesystem's metadata: journal, inode
				 * tables, bitmaps, directories on ext4; or
				 * the raw device read through the cache),
				 * or direct I/O on the raw device */
	IOLENS_FK_NR,
};

/*
 * Normalised request flags (struct iolens_rq.flags), each written once here
 * as X(NAME, bit, kbit, name): IOLENS_F_NAME is 1 << bit (part of the trace
 * file format, so never renumbered); userspace decodes it from the kernel's
 * __REQ_NAME (src/trace/reqflags.c), whose value it reads from BTF (kbit,
 * the value in Linux 6.18, where it cannot), and shows it as `name`.
 * Listed in the kernel's bit order, the order in which names are shown.
 */
#define IOLENS_RQ_FLAGS(X)				\
	X(SYNC,		0,	11,	"sync")		\
	X(META,		1,	12,	"meta")		\
	X(PRIO,		6,	13,	"prio")		\
	X(NOMERGE,	8,	14,	"nomerge")	\
	X(IDLE,		7,	15,	"idle")		\
	X(FUA,		2,	17,	"fua")		\
	X(PREFLUSH,	3,	18,	"preflush")	\
	X(RAHEAD,	4,	19,	"ahead")	\
	X(BACKGROUND,	5,	20,	"bg")		\
	X(NOWAIT,	9,	21,	"nowait")	\
	X(POLLED,	10,	22,	"polled")	\
	X(SWAP,		11,	24,	"swap")

#define IOLENS_RQ_FLAG_ENUM(n, bit, kbit, name)	IOLENS_F_##n = 1 << (bit),
enum iolens_rq_flag {
	IOLENS_RQ_FLAGS(IOLENS_RQ_FLAG_ENUM)
};
#undef IOLENS_RQ_FLAG_ENUM

/*
 * One block request.  The BPF hooks fill it in place in the request table
 * (block.bpf.c) and copy it to the ring buffer at completion: one record per
 * request, no per-request hash map (an update there cost more than all the
 * rest together).  Userspace fills `op` and `flags` from `kflags`; trace
 * files store every field (src/tracefile.c).  Timestamps are CLOCK_MONOTONIC nanoseconds (bpf_ktime_get_ns);
 * a timestamp of 0 means that event was not seen, and then the latency that
 * depends on it is unknown, never guessed.
 *
 * The table holds struct iolens_rq_base, the fields every record has; a
 * record is struct iolens_rq, those and, with files, the file's numbers
 * (struct iolens_rq_file, kept beside the table).  A slot stays 128
 * bytes, two cache lines: with the file's numbers in it (144), snoop and
 * record cost 25-40 ns more a request without files.
 */
#define IOLENS_RQ_BASE_FIELDS						\
	__u64 ts_start;		/* the kernel's rq->start_time_ns: when the \
				 * request was accounted as started, as	\
				 * iostat's await counts it */		\
	__u64 ts_insert;	/* last block_rq_insert (scheduler/dispatch list) */ \
	__u64 ts_issue;		/* last block_rq_issue (handed to the driver) */ \
	__u64 ts_complete;	/* block_rq_complete; 0 if it never reached us */ \
	__u64 sector;		/* start sector (512 B units) at issue */ \
	__u64 cgroup;		/* cgroup v2 id of the submitting task */ \
	__u64 io_cgroup;	/* cgroup id owning the I/O (blkcg), 0 unknown */ \
	__u32 dev;		/* kernel dev_t of the whole disk (MKDEV 20-bit minor) */ \
	__u32 bytes;		/* request size at issue */		\
	__u32 pid;		/* submitter tgid, see ctx */		\
	__u32 tid;		/* submitter thread id */		\
	__u32 kflags;		/* raw kernel cmd_flags (kernel-specific bits) */ \
	__u16 flags;		/* enum iolens_rq_flag, filled by userspace */ \
	__u16 qd;		/* requests in flight on dev at issue, this one \
				 * included; 0 = issue not seen */	\
	__u8 op;		/* enum iolens_op, filled by userspace */ \
	__u8 ctx;		/* enum iolens_ctx */			\
	__u8 status;		/* raw blk_status_t, 0 = success */	\
	__u8 requeues;		/* times the request was requeued */	\
	__u32 io_cgroup_hier;	/* cgroup hierarchy of io_cgroup: 0 =	\
				 * cgroup2, else the v1 hierarchy holding \
				 * blkio */				\
	char comm[IOLENS_COMM_LEN];	/* submitter comm */		\
	__u32 stack;		/* with stacks (iolens_block_cfg): the	\
				 * kernel stack that submitted it, as	\
				 * common.h's IOLENS_STACK_*; 0 = none	\
				 * taken */				\
	__u8 fkind;		/* with files: what its data belongs to	\
				 * (enum iolens_fkind) */		\
	__u8 reserved[3];	/* 0 */

struct iolens_rq_base {
	IOLENS_RQ_BASE_FIELDS
};

/* With files, what a request's data belongs to: a file's filesystem,
 * inode and generation (the two a file handle needs), or for
 * IOLENS_FK_DEVICE the partition; 0 otherwise. */
#define IOLENS_RQ_FILE_FIELDS						\
	__u32 fdev;		/* kernel dev_t: i_sb->s_dev, or the partition */ \
	__u32 fgen;		/* i_generation */			\
	__u64 ino;		/* 0 for DEVICE */

struct iolens_rq_file {
	IOLENS_RQ_FILE_FIELDS
};

struct iolens_rq {
	IOLENS_RQ_BASE_FIELDS
	IOLENS_RQ_FILE_FIELDS
};

/* A slot of the block tracer's request table (map `rqs`); userspace reads
 * the table once after detaching to report requests still held there. */
struct iolens_rq_slot {
	__u64 key;		/* request address; 0 = free */
	__u64 seen;		/* first clock reading for it (insert or issue),
				 * 0 = none yet; for IOLENS_STALE_NS */
	struct iolens_rq_base rq;
};

_Static_assert(sizeof(struct iolens_rq_slot) == 128, "a slot is two cache lines");

/* Per-CPU counters of the block tracer (map `counters`, one slot). */
struct iolens_counters {
	__u64 lost;		/* ring buffer full: request record dropped */
	__u64 untracked;	/* no free slot in the request table: the
				 * request completes with its start unknown */
	__u64 unseen;		/* requests whose completion never reached us,
				 * found when their slot was reused or stale;
				 * reported with ts_complete 0 */
	__u64 bios_untracked;	/* bios of a process `proc_bios` had no room
				 * for: not counted there */
	__u64 rescued;		/* completions the kernel skipped the first
				 * completion program for (nested in itself on
				 * the CPU) that complete_rescue took */
};

/*
 * The bios one process submitted to disks that make requests, by
 * direction (map `proc_bios`, keyed by tgid; loaded for attach only).  A
 * process's bio starts a request or merges into one already queued, which
 * may be another process's: the request's record names only the process
 * that started it, so what each process itself asked for is counted here,
 * when it submits, as fio counts its I/Os.
 */
struct iolens_proc_bios {
	__u64 bios[2];		/* [0] reads, [1] writes */
	__u64 bytes[2];
	__u64 cgroup;		/* cgroup v2 id of its first submitting thread */
	__u32 ppid;		/* its parent's tgid then: places a process
				 * that has exited by the time it is read */
	__u32 pad;
	char comm[IOLENS_COMM_LEN];	/* comm of its first submitting thread */
};

/* Processes `proc_bios` holds at most. */
#define IOLENS_PROC_BIOS_MAX 8192

/* A tracked request older than this is taken to have vanished without a
 * completion we saw, and its slot may be reused. */
#define IOLENS_STALE_NS (60ULL * 1000000000ULL)

/* At most this many rings (and consumer threads) for records. */
#define IOLENS_RINGS_MAX 8

/* Read-only configuration of block.bpf.c, set before load. */
struct iolens_block_cfg {
	__u32 ndev;		/* 0 = all devices */
	__u32 dev[IOLENS_MAX_DEV_FILTER];
	__u32 nrings;		/* rings in use: see ring_reserve() */
	__u32 stacks;		/* take each request's submitting stack */
	__u32 files;		/* tell each request's file (fkind...) */
	/* The bi_end_io of direct I/O bios (0: not found in kallsyms), for
	 * files: iomap's, whose bi_private is its struct iomap_dio, and the
	 * raw block device's (block/fops.c; not its simple synchronous
	 * path, whose bios end in submit_bio_wait's, like many others). */
	__u64 iomap_dio_end_io;
	__u64 blkdev_dio_end_io[2];
	/* bio_chain()'s: the front part of a split bio ends there, its
	 * parent (bi_private) is the bio that was submitted. */
	__u64 bio_chain_end_io;
};

#endif
