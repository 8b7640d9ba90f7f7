/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a read-modify-write read is, for the programs on block_io_start
 * (where a bio becomes a request, in the task that submits it): a data read
 * started by a task inside a buffered write to a file.  The write covers
 * part of a page that is not in the page cache, so the page is read first.
 */
#ifndef IOLENS_RMW_BPF_H
#define IOLENS_RMW_BPF_H

#include "files.bpf.h"

/* A read of data: metadata reads (REQ_META: bitmaps, inode tables) are the
 * filesystem's own, not the page a write covers. */
static __always_inline bool rq_data_read(struct request *rq)
{
	__u32 cmd = rq->cmd_flags;

	return (cmd & KERNEL_REQ_OP_MASK) == bpf_core_enum_value(enum req_op, REQ_OP_READ) &&
	       !(cmd & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_META)));
}

#if IOLENS_RMW_COUNTED
/* arch/x86/entry/syscalls/syscall_64.tbl */
#define NR_WRITE	1
#define NR_PWRITE64	18
#define NR_WRITEV	20
#define NR_PWRITEV	296
#define NR_PWRITEV2	328
/* arch/x86/include/asm/thread_info.h: a 32-bit syscall, other numbers */
#define TS_COMPAT	0x0002
#define ENOSYS		38
#endif

/*
 * Whether t, the current task, is inside a write syscall to a regular file
 * or block device not opened O_DIRECT: told from the registers its syscall
 * entry saved, so that nothing runs on the write path itself (the syscall
 * tracepoints `iolens check` and `top` use cost every write).
 *
 * orig_ax is the syscall number, but an exception from user mode keeps its
 * error code there: a user instruction fetch from a page not present is
 * 20, writev's number.  The syscall entry also sets ax to -ENOSYS until the
 * call returns (arch/x86/entry/entry_64.S, PUSH_AND_CLEAR_REGS rax=$-ENOSYS,
 * since Linux 4.17), where an exception keeps the user's rax.  32-bit tasks
 * (TS_COMPAT) are not counted.
 */
static __always_inline bool in_buffered_write(struct task_struct *t)
{
#if IOLENS_RMW_COUNTED
	struct file_view f;
	struct pt_regs *regs;
	long nr;

	if (t->flags & KERNEL_PF_KTHREAD || t->thread_info.status & TS_COMPAT)
		return false;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs)
		return false;
	nr = regs->orig_ax;
	if (nr != NR_WRITE && nr != NR_PWRITE64 && nr != NR_WRITEV &&
	    nr != NR_PWRITEV && nr != NR_PWRITEV2)
		return false;
	if (regs->ax != (unsigned long)-ENOSYS)
		return false;
	return fd_file(t, (unsigned int)regs->di, &f, false) &&
	       file_is_data(&f) && !(f.flags & O_DIRECT);
#else
	return false;
#endif
}

#endif
