/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every task's I/O in one pass (bpf/tasks.bpf.c): task->ioac from an
 * iter/task program, syscall-level counters from syscall tracepoints.
 * Where the iterator cannot load, /proc/<pid>/task/<tid>/io is read instead
 * (slower, no syscall level).
 */
#ifndef IOLENS_TASK_TRACE_H
#define IOLENS_TASK_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "bpf/hist_layout.h"
#include "bpf/tasks.h"

struct task_trace_opts {
	bool syscalls;		/* attach the syscall tracepoints */
};

struct task_trace;

/* Checks privileges, loads, attaches.  On failure prints one line for
 * `cmd` and returns NULL.  Falls back to /proc when the iterator does not
 * load or attach (IOLENS_TASKS=proc forces that, =iter forbids it).  With
 * o->syscalls, syscall tracepoints that do not load or attach are one
 * warning line on stderr, not a failure: see task_trace_syscalls(). */
struct task_trace *task_trace_start(const char *cmd,
				    const struct task_trace_opts *o);

/* "iter/task" or "/proc": where scans come from. */
const char *task_trace_source(const struct task_trace *tt);

/* Whether records carry syscall counters (IOLENS_TASK_SYS): syscalls were
 * asked for, the iterator runs and the tracepoints attached. */
bool task_trace_syscalls(const struct task_trace *tt);

/* One pass over every thread on the system, oldest first: fn() once per
 * thread; then fn() once per exit record (IOLENS_TASK_EXITED, bpf/tasks.h)
 * of the threads that exited since the last pass, in the order they
 * exited.  0 or -errno. */
int task_trace_scan(struct task_trace *tt,
		    void (*fn)(const struct iolens_task_rec *r, void *arg),
		    void *arg);

/* Whether scans carry exit records (the iterator's exit hook attached),
 * and into *lost how many did not fit in their buffer since the start. */
bool task_trace_exits(const struct task_trace *tt, __u64 *lost);

/* Syscall latency of class `sc` (enum iolens_sys_class) since the start,
 * all tasks, CPUs summed, in the shared histogram layout; zeros without
 * syscalls. */
void task_trace_sys_hist(const struct task_trace *tt, int sc,
			 __u64 out[HIST_BUCKETS]);

/* Runs of the syscall programs the kernel skipped since they were loaded,
 * as it counts them (bpf_prog_info.recursion_misses), into *n:
 * trace_call_bpf() skips a program while bpf_prog_active is held on the
 * CPU, and counts that from Linux 6.7 (kfacts' tp_misses_counted).  false
 * where they are not counted, or there are no syscall programs. */
bool task_trace_sys_skipped(const struct task_trace *tt, __u64 *n);

void task_trace_stop(struct task_trace *tt);

/* For `iolens doctor`: loads the task iterator and its exit hook, runs
 * one pass and unloads them, printing nothing.  0, or -errno of the step
 * that failed; *exits: whether the exit hook attached. */
int task_trace_probe(bool *exits);

/* The object file of bpf/tasks.bpf.c, for trace/hooks.c. */
/* The kernel memory of the iterator's and the syscall hooks' maps on
 * this machine (the histograms per CPU); 0 if they cannot be made. */
__u64 task_trace_memory(void);

const void *task_trace_elf(size_t *sz);

#endif
