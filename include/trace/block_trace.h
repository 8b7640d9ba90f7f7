/* SPDX-License-Identifier: GPL-2.0 */
/* A running per-request block tracer (bpf/block.bpf.c): load, attach,
 * deliver normalised requests, count what was lost. */
#ifndef IOLENS_BLOCK_TRACE_H
#define IOLENS_BLOCK_TRACE_H

#include <stdio.h>
#include <stddef.h>
#include <linux/types.h>
#include "bpf/block.h"
#include "lib/tsmerge.h"

struct block_trace;
struct rqfilter;

/* Called per completed request (op/flags already normalised); a non-zero
 * return stops the run. */
typedef int (*block_trace_fn)(void *ctx, const struct iolens_rq *rq);
/* Called about once a second while running. */
typedef void (*block_trace_tick_fn)(void *ctx);

/* Where a format callback of block_trace_run_par() writes its line. */
struct block_trace_out;
/* Room for the line being made, at least `need` bytes, in the memory the
 * lines are written out from; NULL without memory. */
char *block_trace_room(struct block_trace_out *o, size_t need);
/* block_trace_run_par(): called per completed request in the thread of
 * its ring, with that thread's context; writes what it makes of the
 * request at block_trace_room() and returns its length, 0 to leave the
 * request out, SIZE_MAX without memory (which ends the run). */
typedef size_t (*block_trace_format_fn)(void *cctx, const struct iolens_rq *rq,
					struct block_trace_out *o);
/* block_trace_run_par(): formatted requests in time order, a batch at a
 * time from one thread (tsmerge_emit_fn); a non-zero return stops the
 * run. */
typedef tsmerge_emit_fn block_trace_emit_fn;

/* The time a request shows at: its completion, or the last event of it
 * seen where the completion was not. */
static inline __u64 block_rq_time(const struct iolens_rq *rq)
{
	return rq->ts_complete ? rq->ts_complete :
	       rq->ts_issue ? rq->ts_issue :
	       rq->ts_insert ? rq->ts_insert : rq->ts_start;
}

/* block_trace_start() flags. */
enum {
	/* Count each process's bios as well: block_trace_proc_bios(). */
	BLOCK_TRACE_BIOS = 1 << 0,
	/* Take each request's submitting kernel stack (iolens_rq.stack),
	 * kept in the map of block_trace_stacks_fd(). */
	BLOCK_TRACE_STACKS = 1 << 1,
	/* Tell each request's file (iolens_rq.fkind, fdev, ino, fgen).  Uses
	 * lib/ksyms' table for direct I/O: load it first
	 * (ksyms_load_for(cmd, KSYMS_NO_DIO_FILES)). */
	BLOCK_TRACE_FILES = 1 << 2,
};

/* Checks privileges, loads and attaches, preferring tp_btf and falling back
 * to raw_tp.  `devs` (ndev entries, 0 = all) are whole-disk dev_t filters
 * applied in the kernel.  `nconsumers`: 0 for block_trace_run() (one ring),
 * else the threads of block_trace_run_par(), each draining a ring the
 * kernel writes some CPUs' records to.  On failure prints one line for
 * `cmd` and returns NULL. */
struct block_trace *block_trace_start(const char *cmd, const __u32 *devs,
				      int ndev, int nconsumers, unsigned int flags);

/* With BLOCK_TRACE_BIOS: calls fn for each process that submitted bios
 * since the start, with its counts so far.  0 or -errno. */
int block_trace_proc_bios(struct block_trace *bt,
			  void (*fn)(void *ctx, __u32 tgid,
				     const struct iolens_proc_bios *b),
			  void *ctx);

/* Rings for block_trace_run_par() here: a consumer thread per CPU this
 * process may run on, at most IOLENS_RINGS_MAX. */
int block_trace_nconsumers(void);

/* Resolves the filter's device names (disks or partitions) to dev_t for the
 * kernel-side filter; prints a usage error and returns 2 if one is not a
 * block device here. */
int block_trace_devs(const char *cmd, const struct rqfilter *f, __u32 *devs);

/* The map of submitting stacks (BLOCK_TRACE_STACKS): a stack_trace map
 * keyed by iolens_rq.stack - 1. */
int block_trace_stacks_fd(const struct block_trace *bt);

/* "tp_btf" or "raw_tp": which flavour is attached. */
const char *block_trace_flavour(const struct block_trace *bt);

/* Delivers requests until SIGINT/SIGTERM, `duration_ns` (0 = no limit) or a
 * callback asks to stop, then drains what is left.  0, or 1 on failure. */
int block_trace_run(struct block_trace *bt, __u64 duration_ns,
		    block_trace_fn fn, block_trace_tick_fn tick, void *ctx);

/*
 * The same with a consumer thread per ring, for output one thread could not
 * keep up with: each formats its ring's requests (`format`, with cctx[i]),
 * and this thread gives the results to `emit` in time order (a request is
 * held until every ring has been read past its time, 10 ms and more).
 */
int block_trace_run_par(struct block_trace *bt, __u64 duration_ns,
			block_trace_format_fn format, void *const *cctx,
			block_trace_emit_fn emit, block_trace_tick_fn tick, void *ctx);

/* Makes block_trace_run() drain what is recorded and return, as at its
 * duration's end; any thread may call it. */
void block_trace_end(struct block_trace *bt);

struct block_trace_stats {
	__u64 lost;		/* records the kernel dropped: ring buffer full */
	__u64 missed;		/* hook runs the kernel skipped because the
				 * same hook was running on that CPU */
	__u64 untracked;	/* requests whose start could not be kept
				 * (request table full): shown with what the
				 * completion knows */
	__u64 unseen;		/* requests whose completion never reached
				 * us (in flight when tracing stopped, or not
				 * delivered): shown with it unknown */
	__u64 bios_untracked;	/* BLOCK_TRACE_BIOS: bios of processes the
				 * table had no room for */
	__u64 rescued;		/* completions nested in the completion hook
				 * that its second program took (not missed) */
};

void block_trace_stats(struct block_trace *bt, struct block_trace_stats *st);

/* Requests that never arrived as records: ring buffer full, or the kernel
 * skipped the hook (trace files keep this one count as "lost"). */
static inline __u64 block_trace_dropped(const struct block_trace_stats *st)
{
	return st->lost + st->missed;
}

/* The counts of `st` as the end of a sentence, newline included. */
void block_trace_print_stats(FILE *f, const struct block_trace_stats *st);

void block_trace_stop(struct block_trace *bt);

/* A request in flight for `age_ns`, seen in the table under `key` (its
 * address: with rq->ts_start, it tells one request from a later one). */
typedef void (*block_trace_inflight_fn)(void *ctx, __u64 key,
					const struct iolens_rq *rq, __u64 age_ns);

/* Calls fn for each request the table holds that started (or was first
 * seen) older_ns ago or longer and has not completed; read in place, while
 * the hooks run.  0 or -errno. */
int block_trace_inflight(struct block_trace *bt, __u64 older_ns,
			 block_trace_inflight_fn fn, void *ctx);

/* The kernel memory the block tracer's maps take on this machine with
 * `nrings` rings and block_trace_start() `flags` (made, not used); 0 if
 * they cannot be made. */
__u64 block_trace_memory(int nrings, unsigned int flags);

/* The object file of bpf/block.bpf.c, for trace/hooks.c. */
const void *block_trace_elf(size_t *sz);

#endif
