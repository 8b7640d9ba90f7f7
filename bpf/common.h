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

/* Read-modify-write reads are told from the registers a write syscall
 * saved, by x86-64's syscall numbers (bpf/rmw.bpf.h): elsewhere they are
 * not counted. */
#if defined(__x86_64__) || defined(__TARGET_ARCH_x86)
#define IOLENS_RMW_COUNTED	1
#else
#define IOLENS_RMW_COUNTED	0
#endif

#endif
