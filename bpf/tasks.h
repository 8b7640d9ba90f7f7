/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IOLENS_BPF_TASKS_H
#define IOLENS_BPF_TASKS_H

#include "common.h"

/*
 * Per-task I/O of `iolens top` (bpf/tasks.bpf.c).
 *
 * Storage level: task->ioac, what /proc/<tid>/io shows, read for every task
 * in one pass of an iter/task program.  Syscall level: the read and write
 * family and fsync/fdatasync, counted per thread in task storage by syscall
 * tracepoints, split by what the fd is.
 */

/*
 * task->ioac's counters (struct task_io_accounting) in the order
 * /proc/<tid>/io shows them, X(name) each: the fields of struct iolens_ioac
 * and what the iterator copies into them.
 */
#define IOLENS_IOAC_FIELDS(X)						\
	X(rchar) X(wchar) X(syscr) X(syscw)	/* CONFIG_TASK_XACCT */	\
	X(read_bytes) X(write_bytes)	/* CONFIG_TASK_IO_ACCOUNTING */	\
	X(cancelled_write_bytes)

#define IOLENS_IOAC_FIELD(name)	__u64 name;
struct iolens_ioac {
	IOLENS_IOAC_FIELDS(IOLENS_IOAC_FIELD)
};
#undef IOLENS_IOAC_FIELD

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
	/* Calls of which only the entry or only the exit was seen: the
	 * kernel skips a tracepoint's BPF program while another BPF program
	 * or a map syscall counts as active on the CPU (bpf_prog_active,
	 * trace_call_bpf()); on a PREEMPT_RT kernel a map syscall preempted
	 * there holds it.  Neither their bytes nor their time are counted. */
	__u64 unseen;
};

/* Delay accounting (CONFIG_TASK_DELAY_ACCT): time the thread waited for
 * block I/O and for pages swapped in, as taskstats and iotop read them.
 * The kernel adds a wait when it ends, and only while
 * kernel.task_delayacct is 1 (a sysctl since Linux 5.14; off by default). */
struct iolens_delay {
	__u64 blkio_ns;
	__u64 swapin_ns;
};

#define IOLENS_TASK_KTHREAD	(1U << 0)	/* a kernel thread */
#define IOLENS_TASK_SYS		(1U << 1)	/* sys and sys_dead are counted */
#define IOLENS_TASK_BLKIO	(1U << 2)	/* delay.blkio_ns is known */
#define IOLENS_TASK_SWAPIN	(1U << 3)	/* delay.swapin_ns is known */
#define IOLENS_TASK_EXITED	(1U << 4)	/* the thread's last record */

/*
 * One thread, as the task iterator emits it.  A process's /proc/<pid>/io is
 * the sum of its threads' `io` plus its leader's `dead` (signal->ioac: what
 * its exited threads did); the same holds for `sys` and `sys_dead`, and for
 * `delay` and `delay_dead` while the syscall programs run (the kernel keeps
 * no delays of exited threads: bpf/tasks.bpf.c's exit hook does).
 *
 * The exit hook also writes each exiting thread's own last counters as a
 * record of its own (IOLENS_TASK_EXITED; dead, sys_dead and delay_dead
 * zero) to the ring buffer `exits`: a process that starts and ends between
 * two scans, or a thread's last moments, are counted from it, and a reaped
 * child's counters, which the kernel adds to its parent's signal->ioac
 * (wait_task_zombie()), are then not taken for the parent's own.
 */
struct iolens_task_rec {
	__u32 tid;
	__u32 tgid;
	__u32 uid;			/* effective uid */
	__u32 flags;			/* IOLENS_TASK_* */
	__u64 start_ns;			/* task->start_time: tells a reused tid */
	__u64 cgroup;			/* cgroup v2 id */
	__u32 ppid;			/* the parent process's tgid */
	__u32 pad;
	struct iolens_ioac io;
	struct iolens_ioac dead;	/* group leader only, else zero */
	struct iolens_sys sys;
	struct iolens_sys sys_dead;	/* group leader only, else zero */
	struct iolens_delay delay;
	struct iolens_delay delay_dead;	/* group leader only, with sys */
	char comm[IOLENS_COMM_LEN];
};

/* The ring buffer of exit records: 2,114 of 488 bytes (and an 8-byte
 * header each).  Userspace drains it once a scan and counts what did not
 * fit (exits_lost). */
#define IOLENS_EXITS_BYTES	(1U << 20)

#endif
