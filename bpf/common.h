/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every BPF object's ABI shares.  The ABI headers beside the programs
 * (block.h, stat.h, tasks.h, check.h, hist_layout.h) are included by the
 * BPF programs after vmlinux.h and by userspace after <linux/types.h>;
 * nothing in them may be defined anywhere else.
 */
#ifndef IOLENS_BPF_COMMON_H
#define IOLENS_BPF_COMMON_H

#define IOLENS_COMM_LEN		16
#define IOLENS_MAX_DEV_FILTER	8

/* Kernel macros both sides read kernel data with; BTF does not carry
 * macros.  The op is the low REQ_OP_BITS (8) bits of cmd_flags since Linux
 * 4.10; PF_EXITING and PF_KTHREAD are include/linux/sched.h's, unchanged
 * since 2.6. */
#define KERNEL_REQ_OP_MASK	0xffU
#define KERNEL_PF_EXITING	0x00000004U
#define KERNEL_PF_KTHREAD	0x00200000U

/*
 * Submitting kernel stacks (`lat --by stack`, `snoop --stacks`): kept in a
 * map `stacks` of at most IOLENS_STACKS_MAX, IOLENS_STACK_DEPTH frames
 * each (the block layer's own take about ten); a request names its stack
 * as 1 + its id there, IOLENS_STACK_LOST where the stack was taken and not
 * kept (its hash bucket held another), 0 where none was taken.
 */
#define IOLENS_STACK_DEPTH	32
#define IOLENS_STACKS_MAX	16384
#define IOLENS_STACK_LOST	0xffffffffU

/* Read-modify-write reads are told from the registers a write syscall
 * saved, by x86-64's syscall numbers (bpf/rmw.bpf.h): elsewhere they are
 * not counted. */
#if defined(__x86_64__) || defined(__TARGET_ARCH_x86)
#define IOLENS_RMW_COUNTED	1
#else
#define IOLENS_RMW_COUNTED	0
#endif

#endif
