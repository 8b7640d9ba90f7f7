/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process table of `iolens top`: task scans folded per process or per
 * thread, each one's counters at this scan, at the last one and at first
 * sight, so that a frame shows rates or totals since start.
 */
#ifndef IOLENS_PROCTABLE_H
#define IOLENS_PROCTABLE_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/tasks.h"
#include "top/graph.h"

/* Everything counted for one process or thread. */
struct proc_io {
	struct iolens_ioac io;
	struct iolens_sys sys;
	/* Block requests it submitted (the aggregation core's -P split). */
	__u64 blk_ios, blk_bytes, blk_ns, blk_timed;
	__u64 blk_rbytes, blk_wbytes;	/* of blk_bytes: reads, writes */
	/* Of its writes, a kernel thread's that the kernel charged to the
	 * cgroup2 cgroup owning the pages (writeback): a group view moves
	 * them there. */
	__u64 wb_ios, wb_ns, wb_timed, wb_bytes;
	__u64 blk_failed;	/* of blk_ios: ended with an error (not in
				 * blk_ns, blk_timed) */
	/* Of its writes: misaligned to the disk's physical block. */
	__u64 misaligned, misaligned_bytes;
	/* Waits for block I/O and swap-in (delay accounting). */
	struct iolens_delay delay;
};

struct proc_ent {
	__u32 id;		/* tgid, or tid in thread mode; 0 = free */
	__u32 tgid;
	__u32 uid;
	__u32 flags;		/* IOLENS_TASK_* */
	__u32 ppid;		/* parent process */
	__u64 start_ns;		/* of the task that is `id`; 0 until its
				 * record is seen */
	__u64 cgroup;
	char comm[IOLENS_COMM_LEN];
	unsigned int seen;	/* scan generation it was last in */
	/* What it did since first seen (its threads' differences from scan
	 * to scan and their last records, proctable.c), at this scan and at
	 * the one before (zero when new). */
	struct proc_io cur, prev;
	/* Its disk bytes over the last minute, from its first frame with
	 * any; NULL before. */
	struct graph *graph;
	/* /proc/PID/cmdline when first asked for (proc_cmdline()). */
	char *cmdline;
	bool cmdline_read;
	/* The kernel counted a thread of it waiting longer than it lived:
	 * its IO> and SWAPIN are wrong from then on, and not shown. */
	bool overcount;
};

struct proctable;

struct proctable *proctable_new(bool threads);
void proctable_free(struct proctable *pt);

/* Starts a scan: every entry's current counters are rebuilt from the
 * records that follow. */
void proctable_begin(struct proctable *pt);
/* One thread's record of the scan, or its last record (fits
 * task_trace_scan()'s callback). */
void proctable_add(const struct iolens_task_rec *r, void *pt);
/* Block requests process `tgid` submitted over the last frame: their
 * block and misaligned fields added to its entry, or in thread mode to its
 * leader's (ignored for a process not in the scan). */
void proctable_add_block(struct proctable *pt, __u32 tgid,
			 const struct proc_io *blk);
/* Ends the scan: entries not seen are dropped; an entry whose process
 * ended since the last scan stays for this one, with what it did until it
 * ended. */
void proctable_end(struct proctable *pt);

/* Entries present in the last scan, in no order; valid until the next
 * begin. */
int proctable_count(const struct proctable *pt);
struct proc_ent *proctable_get(struct proctable *pt, int i);

bool proctable_threads(const struct proctable *pt);

/* Adds the entries' disk bytes of the last scan, spread over [t0, t1)
 * (seconds since start), to their graphs. */
void proctable_graph(struct proctable *pt, double t0, double t1);

/* The command line of the entry's process, read once, its NULs as
 * spaces; NULL for a kernel thread or a process already gone. */
const char *proc_cmdline(struct proc_ent *e);

/* d = a - b, field by field; 0 where b is larger. */
void proc_io_sub(struct proc_io *d, const struct proc_io *a,
		 const struct proc_io *b);

#endif
