/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel text addresses named from /proc/kallsyms (stacks of `lat --by
 * stack`). */
#ifndef IOLENS_KSYMS_H
#define IOLENS_KSYMS_H

#include <stddef.h>
#include <linux/types.h>
#include "bpf/common.h"

/* Bytes of a frame's name, "func+0x1a [module]", cut to fit. */
#define KSTACK_NAME 96

/* A submitting kernel stack, named (trace/kstacks.h, trace files). */
struct kstack {
	__u32 n;			/* frames shown */
	char frame[IOLENS_STACK_DEPTH][KSTACK_NAME];	/* innermost first, the
					 * tracepoint's own frames left out */
};

/* Why a request names no stack, where it names none it could (0 and
 * IOLENS_STACK_LOST: bpf/common.h); NULL for a stack's number. */
const char *kstack_unknown(__u32 stack);

/* Reads /proc/kallsyms once: 0; -ENOENT without it; -EPERM where it hides
 * the addresses (kernel.kptr_restrict 2, or not root); -ENOMEM. */
int ksyms_load(void);

/* ksyms_load() for command `cmd`: where it fails, one line saying so and
 * what it costs (`lost`, e.g. "stacks shown as addresses"). */
void ksyms_load_for(const char *cmd, const char *lost);
#define KSYMS_NO_STACKS "stacks shown as addresses"
#define KSYMS_NO_DIO_FILES "direct I/O names no file"

/* "name+0xoff" ("name+0xoff [module]") of a text address into buf, or its
 * hex address where no symbol holds it or the table is not loaded. */
const char *ksyms_name(__u64 addr, char *buf, size_t len);

/* The address of text symbol `name` (the first of that name), 0 if the
 * table does not hold it or is not loaded. */
__u64 ksyms_addr(const char *name);

/* The first of a stack's `n` frames (innermost first) worth showing: the
 * one after the tracepoint's own (the BPF program, bpf_trace_run1(),
 * __bpf_trace_block_io_start()), whose number differs between kernels. */
int ksyms_stack_first(const __u64 *frames, int n);

#endif
