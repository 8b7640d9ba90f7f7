/* SPDX-License-Identifier: GPL-2.0 */
/* The tracer behind `iolens check` (bpf/check.bpf.c): every data write
 * request at issue and every page-cache RMW read, with their submitter and
 * the write syscall they came from. */
#ifndef IOLENS_CHECK_TRACE_H
#define IOLENS_CHECK_TRACE_H

#include <stddef.h>
#include <linux/types.h>
#include "bpf/check.h"

struct check_trace;

typedef void (*check_trace_fn)(void *ctx, const struct iolens_check_event *e);

/* Checks privileges, loads and attaches; `devs` (ndev, 0 = all) are whole
 * disks.  On failure prints one line for `cmd` and returns NULL. */
struct check_trace *check_trace_start(const char *cmd, const __u32 *devs,
				      int ndev);

/* Delivers events until SIGINT/SIGTERM or `duration_ns` (0: no limit),
 * then drains; *traced_ns is how long it traced.  0, or 1 on failure. */
int check_trace_run(struct check_trace *ct, __u64 duration_ns,
		    check_trace_fn fn, void *ctx, __u64 *traced_ns);

/* Makes check_trace_run() drain and return; any thread may call it. */
void check_trace_end(struct check_trace *ct);

/* Events the kernel dropped (ring buffer full) or never ran us for. */
__u64 check_trace_lost(const struct check_trace *ct);

/* The map of write syscalls per process (struct iolens_check_calls by
 * tgid); valid until check_trace_stop(). */
int check_trace_calls_fd(const struct check_trace *ct);

/* The kernel memory its maps take on this machine; 0 if they cannot be
 * made. */
__u64 check_trace_memory(void);

void check_trace_stop(struct check_trace *ct);

/* The object file of bpf/check.bpf.c, for trace/hooks.c. */
const void *check_trace_elf(size_t *sz);

#endif
