/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Submitting kernel stacks by name (`snoop --stacks`, trace files): each
 * read once from the block tracer's map, or from a trace file, named from
 * /proc/kallsyms where it was taken, and shared by the threads that show
 * requests.
 */
#ifndef IOLENS_TRACE_KSTACKS_H
#define IOLENS_TRACE_KSTACKS_H

#include <linux/types.h>
#include "lib/ksyms.h"

struct kstacks;

/* A table filled from map `fd` (a stack_trace map keyed by id) as
 * requests name stacks, or by kstacks_put() if fd is -1; NULL without
 * memory. */
struct kstacks *kstacks_new(int fd);

/* The stack a request names (iolens_rq.stack: 1 + id); NULL where it is
 * unknown.  Safe from several threads. */
const struct kstack *kstacks_get(struct kstacks *ks, __u32 stack);

/* Stack `stack` is `k` (read from a file): 0, or -1 if it is out of range
 * or without memory. */
int kstacks_put(struct kstacks *ks, __u32 stack, const struct kstack *k);

void kstacks_free(struct kstacks *ks);

#endif
