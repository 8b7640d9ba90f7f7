/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole kernel/userspace ABI of iolens: what the BPF programs write into
 * maps and ring buffers, and what userspace reads.  Included by the BPF programs
 * (after vmlinux.h) and by src/ (after <linux/types.h>).  Nothing here may be
 * defined anywhere else.
 *
 * The request record is also the on-disk record of `iolens record`, so its
 * layout is part of the trace file format: change it only together with
 * IOLENS_TRACE_VERSION.
 */
#ifndef IOLENS_H
#define IOLENS_H

#define IOLENS_COMM_LEN		16
#define IOLENS_MAX_DEV_FILTER	8

/* Kernel macros both sides read kernel data with; BTF does not carry
 * macros.  The op is the low REQ_OP_BITS (8) bits of cmd_flags since Linux
 * 4.10; PF_KTHREAD is include/linux/sched.h's, unchanged since 2.6. */
#define KERNEL_REQ_OP_MASK	0xffU
#define KERNEL_PF_KTHREAD	0x00200000U

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
	IOLENS_OP_ZONE,		/* zone append/open/close/finish/reset */
	IOLENS_OP_DRV,		/* driver private (passthrough) */
	IOLENS_OP_OTHER,
	IOLENS_OP_NR,
};

/* Normalised request flags (struct iolens_rq.flags). */
enum iolens_rq_flag {
	IOLENS_F_SYNC		= 1 << 0,
	IOLENS_F_META		= 1 << 1,
	IOLENS_F_FUA		= 1 << 2,
	IOLENS_F_PREFLUSH	= 1 << 3,
	IOLENS_F_RAHEAD		= 1 << 4,
	IOLENS_F_BACKGROUND	= 1 << 5,
	IOLENS_F_PRIO		= 1 << 6,
	IOLENS_F_IDLE		= 1 << 7,
	IOLENS_F_NOMERGE	= 1 << 8,
	IOLENS_F_NOWAIT		= 1 << 9,
	IOLENS_F_POLLED		= 1 << 10,
	IOLENS_F_SWAP		= 1 << 11,
};

/*
 * One block request.  The BPF hooks fill it in place in the request table
 * (block.bpf.c) and copy it to the ring buffer at completion: one record per
 * request, no per-request hash map (an update there cost more than all the
 * rest together).  Userspace fills `op` and `flags` from `kflags`; trace
 * files store every field (src/tracefile.c).  Timestamps are CLOCK_MONOTONIC nanoseconds (bpf_ktime_get_ns);
 * a timestamp of 0 means that event was not seen, and then the latency that
 * depends on it is unknown, never guessed.
 */
struct iolens_rq {
	__u64 ts_start;		/* the kernel's rq->start_time_ns: when the
				 * request was accounted as started, as
				 * iostat's await counts it */
	__u64 ts_insert;	/* last block_rq_insert (scheduler/dispatch list) */
	__u64 ts_issue;		/* last block_rq_issue (handed to the driver) */
	__u64 ts_complete;	/* block_rq_complete; 0 if it never reached us */
	__u64 sector;		/* start sector (512 B units) at issue */
	__u64 cgroup;		/* cgroup v2 id of the submitting task */
	__u64 io_cgroup;	/* cgroup id owning the I/O (blkcg), 0 unknown */
	__u32 dev;		/* kernel dev_t of the whole disk (MKDEV 20-bit minor) */
	__u32 bytes;		/* request size at issue */
	__u32 pid;		/* submitter tgid, see ctx */
	__u32 tid;		/* submitter thread id */
	__u32 kflags;		/* raw kernel cmd_flags (kernel-specific bits) */
	__u16 flags;		/* enum iolens_rq_flag, filled by userspace */
	__u16 qd;		/* requests in flight on dev at issue, this one included;
				 * 0 = issue not seen */
	__u8 op;		/* enum iolens_op, filled by userspace */
	__u8 ctx;		/* enum iolens_ctx */
	__u8 status;		/* raw blk_status_t, 0 = success */
	__u8 requeues;		/* times the request was requeued */
	__u32 io_cgroup_hier;	/* cgroup hierarchy of io_cgroup: 0 = cgroup2,
				 * else the v1 hierarchy holding blkio */
	char comm[IOLENS_COMM_LEN];	/* submitter comm */
};

/* A slot of the block tracer's request table (map `rqs`); userspace reads
 * the table once after detaching to report requests still held there. */
struct iolens_rq_slot {
	__u64 key;		/* request address; 0 = free */
	__u64 seen;		/* first clock reading for it (insert or issue),
				 * 0 = none yet; for IOLENS_STALE_NS */
	struct iolens_rq rq;
};

/* Per-CPU counters of the block tracer (map `counters`, one slot). */
struct iolens_counters {
	__u64 lost;		/* ring buffer full: request record dropped */
	__u64 untracked;	/* no free slot in the request table: the
				 * request completes with its start unknown */
	__u64 unseen;		/* requests whose completion never reached us,
				 * found when their slot was reused or stale;
				 * reported with ts_complete 0 */
};

/* A tracked request older than this is taken to have vanished without a
 * completion we saw, and its slot may be reused. */
#define IOLENS_STALE_NS (60ULL * 1000000000ULL)

/* Read-only configuration of block.bpf.c, set before load. */
struct iolens_block_cfg {
	__u32 ndev;		/* 0 = all devices */
	__u32 dev[IOLENS_MAX_DEV_FILTER];
};

/*
 * Histogram layout, shared by every BPF aggregation and by userspace: log-
 * linear like fio's and HdrHistogram's.  Values below 2 * HIST_SUB get a
 * bucket each; above that every power-of-two range [2^e, 2^(e+1)) is split
 * into HIST_SUB equal buckets.  A bucket is then at most 1/HIST_SUB of its
 * lower bound wide, so its midpoint is off by at most 1/(2 * HIST_SUB) =
 * 0.78% of any value in it: percentiles carry a relative error below 1%.
 * Index math is branchy rather than built on __builtin_clzll, which the BPF
 * backend cannot always lower.
 */
#ifndef HIST_INLINE
#define HIST_INLINE static inline __attribute__((always_inline))
#endif

#define HIST_SUB_BITS	6
#define HIST_SUB	(1U << HIST_SUB_BITS)		/* buckets per power of two */
#define HIST_LINEAR	(2U * HIST_SUB)			/* values kept exactly */
/* Values of 2^HIST_MAX_BITS and more (18 minutes in ns, 1 TiB in bytes)
 * go to the last bucket, HIST_OVERFLOW, which has no upper bound. */
#define HIST_MAX_BITS	40
#define HIST_OVERFLOW	(HIST_LINEAR + (HIST_MAX_BITS - HIST_SUB_BITS - 1) * HIST_SUB)
#define HIST_BUCKETS	(HIST_OVERFLOW + 1)

/* Index of the highest set bit of v > 0. */
HIST_INLINE unsigned int hist_msb(__u64 v)
{
	unsigned int e = 0;

	if (v >> 32) { v >>= 32; e += 32; }
	if (v >> 16) { v >>= 16; e += 16; }
	if (v >> 8) { v >>= 8; e += 8; }
	if (v >> 4) { v >>= 4; e += 4; }
	if (v >> 2) { v >>= 2; e += 2; }
	if (v >> 1) e += 1;
	return e;
}

HIST_INLINE __u32 hist_index(__u64 v)
{
	unsigned int e;

	if (v < HIST_LINEAR)
		return (__u32)v;
	e = hist_msb(v);
	if (e >= HIST_MAX_BITS)
		return HIST_OVERFLOW;
	return HIST_LINEAR + (e - HIST_SUB_BITS - 1) * HIST_SUB +
	       (__u32)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* Smallest value of bucket `idx`. */
HIST_INLINE __u64 hist_lower(__u32 idx)
{
	unsigned int g;

	if (idx < HIST_LINEAR)
		return idx;
	g = (idx - HIST_LINEAR) / HIST_SUB;	/* power of two 2^(g + 7) */
	return (__u64)(HIST_SUB + (idx - HIST_LINEAR) % HIST_SUB) << (g + 1);
}

/* Width of bucket `idx`; HIST_OVERFLOW has no upper bound, this is its
 * nominal width. */
HIST_INLINE __u64 hist_width(__u32 idx)
{
	if (idx < HIST_LINEAR)
		return 1;
	return 1ULL << ((idx - HIST_LINEAR) / HIST_SUB + 1);
}

/*
 * In-kernel aggregation of `iolens stat` and `iolens lat` (bpf/stat.bpf.c).
 *
 * Everything is kept per device slot (map `devs`: which disk, or partition
 * with IOLENS_STAT_PARTS, holds the slot), per operation group as
 * /proc/diskstats groups requests, and per CPU: userspace sums the CPUs and
 * takes differences between two reads, so nothing is ever reset.
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
};

/* One histogram (map `hists`): counts wrap at 2^32 per CPU, differences
 * taken modulo 2^32 stay exact below that many events per read interval. */
struct iolens_hist {
	__u32 b[HIST_BUCKETS];
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
};

/*
 * Histograms split by what `iolens lat -P` / `-F` asks for (map
 * `lat_hists`, one copy shared by all CPUs, atomic adds): these splits are
 * sparse, so a hash of the ones that occur replaces the per-CPU `hists`.
 */
struct iolens_lat_key {
	__u32 tgid;		/* submitting process with -P: the task that
				 * submitted the bio (block_io_start); 0 =
				 * not split, or not seen submitting */
	__u32 flags;		/* with -F: the kernel's cmd_flags above the op
				 * bits (raw, kernel-specific), else 0 */
	__u16 slot;		/* device slot */
	__u8 sg;		/* enum iolens_sgrp */
	__u8 kind;		/* enum iolens_hist_kind */
	/* With -P, for a kernel thread's requests (the flusher's writeback):
	 * the cgroup they are charged to (the first bio's blkcg, on cgroup2
	 * the cgroup that dirtied the pages) and its hierarchy (0 = cgroup2,
	 * else the v1 hierarchy holding blkio); else 0. */
	__u32 io_hier;
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
	__u8 pad;
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

/* Per-CPU counters of the aggregation (map `stat_counters`). */
struct iolens_stat_counters {
	__u64 no_slot;		/* events of devices beyond the slot table */
	__u64 no_stamp;		/* own issue stamps lost (map full or evicted) */
	__u64 no_key;		/* lat_hists full: the value was not kept */
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

/* Read-modify-write reads are told from the registers a write syscall
 * saved, by x86-64's syscall numbers (bpf/rmw.bpf.h): elsewhere they are
 * not counted. */
#if defined(__x86_64__) || defined(__TARGET_ARCH_x86)
#define IOLENS_RMW_COUNTED	1
#else
#define IOLENS_RMW_COUNTED	0
#endif

/* Read-only configuration of stat.bpf.c, set before load. */
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

/*
 * Per-task I/O of `iolens top` (bpf/tasks.bpf.c).
 *
 * Storage level: task->ioac, what /proc/<tid>/io shows, read for every task
 * in one pass of an iter/task program.  Syscall level: the read and write
 * family and fsync/fdatasync, counted per thread in task storage by syscall
 * tracepoints, split by what the fd is.
 */
struct iolens_ioac {
	__u64 rchar, wchar, syscr, syscw;	/* CONFIG_TASK_XACCT */
	__u64 read_bytes, write_bytes;		/* CONFIG_TASK_IO_ACCOUNTING */
	__u64 cancelled_write_bytes;
};

enum iolens_sys_class {
	IOLENS_SC_FILE_READ = 0,	/* read family on a regular file or a
					 * block device: what the page cache serves */
	IOLENS_SC_FILE_WRITE,
	IOLENS_SC_OTHER_READ,		/* pipes, sockets, ttys, eventfds, ... */
	IOLENS_SC_OTHER_WRITE,
	IOLENS_SC_SYNC,			/* fsync, fdatasync */
	IOLENS_SC_NR,
};

struct iolens_sys {
	__u64 calls[IOLENS_SC_NR];	/* completed calls */
	__u64 bytes[IOLENS_SC_NR];	/* bytes moved: the positive returns */
	__u64 ns[IOLENS_SC_NR];		/* time spent in them */
	/* Data reads the task submitted while inside a write to a file: the
	 * page cache reading a page the write covers only partly
	 * (read-modify-write). */
	__u64 rmw_reads, rmw_bytes;
};

#define IOLENS_TASK_KTHREAD	(1U << 0)	/* a kernel thread */
#define IOLENS_TASK_SYS		(1U << 1)	/* sys and sys_dead are counted */

/*
 * One thread, as the task iterator emits it.  A process's /proc/<pid>/io is
 * the sum of its threads' `io` plus its leader's `dead` (signal->ioac: what
 * its exited threads did); the same holds for `sys` and `sys_dead`.
 */
struct iolens_task_rec {
	__u32 tid;
	__u32 tgid;
	__u32 uid;			/* effective uid */
	__u32 flags;			/* IOLENS_TASK_* */
	__u64 start_ns;			/* task->start_time: tells a reused tid */
	__u64 cgroup;			/* cgroup v2 id */
	struct iolens_ioac io;
	struct iolens_ioac dead;	/* group leader only, else zero */
	struct iolens_sys sys;
	struct iolens_sys sys_dead;	/* group leader only, else zero */
	char comm[IOLENS_COMM_LEN];
};

/* ---- iolens check (bpf/check.bpf.c) ---- */

enum iolens_check_kind {
	IOLENS_CHECK_WRITE,	/* a data write request, at issue */
	IOLENS_CHECK_RMW_READ,	/* a data read started inside a buffered
				 * write syscall: the page cache filling a
				 * page the write covers only partly */
};

#define IOLENS_CHECK_DEPTH	4	/* path components kept */

/* The write syscall a task was in when it started a request. */
struct iolens_check_sys {
	__s64 pos;		/* its file offset; -1 unknown (writev, write
				 * to an O_APPEND file) */
	__u64 count;		/* its byte count; 0 unknown (the vector
				 * forms) */
	__u64 ino;		/* its file's inode */
	__u32 sdev;		/* that inode's filesystem (kernel dev_t) */
	__s32 fd;		/* -1: not in a write syscall */
	__u8 direct;		/* the file was opened O_DIRECT */
	__u8 pad[7];
};

/* The path of that call's file within its filesystem, the last components
 * first (c[0] is the file's): once the process is gone, all there is to
 * find it by.  Apart from the call, which a task keeps while it runs: the
 * name is read only for the requests it starts. */
struct iolens_check_name {
	char c[IOLENS_CHECK_DEPTH][32];
};

/* One event of `iolens check` (ring buffer `check_events`). */
struct iolens_check_event {
	__u64 sector;		/* request start, 512-byte units */
	__u64 page_ino;		/* inode of its first page when that is in a
				 * file's page cache (buffered I/O,
				 * writeback), 0 otherwise */
	__u32 page_sdev;	/* that inode's filesystem */
	__u32 dev;		/* whole disk (kernel dev_t) */
	__u32 bytes;		/* request size */
	__u32 lbs, pbs;		/* the disk's logical and physical block */
	__u32 tgid, tid;	/* submitter when the request started; 0
				 * unknown (started before we attached) */
	__u8 kind;		/* enum iolens_check_kind */
	__u8 pad[3];
	struct iolens_check_sys sys;
	struct iolens_check_name name;	/* of sys's file, when sys.fd >= 0 */
	char comm[IOLENS_COMM_LEN];
};

/* Write syscalls of a process to data files (map `write_calls`, by tgid). */
struct iolens_check_calls {
	__u64 calls;		/* completed */
	__u64 bytes;		/* their positive returns */
	__u64 direct;		/* of calls, to O_DIRECT files */
	char comm[IOLENS_COMM_LEN];	/* at its first call */
};

/* Read-only configuration of bpf/check.bpf.c. */
struct iolens_check_cfg {
	__u32 ndev;
	__u32 dev[IOLENS_MAX_DEV_FILTER];	/* whole disks; ndev 0: all */
};

#endif /* IOLENS_H */
