/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load's own: one job thread (load_job.c), what its engine works with,
 * where its next I/O goes (load_offsets.c), and when it starts and ends
 * (load_gate.c).
 */
#ifndef IOLENS_LOAD_JOB_H
#define IOLENS_LOAD_JOB_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/types.h>
#include "load/dist.h"
#include "load/iolog.h"
#include "load/load.h"
#include "load/prio.h"

/*
 * The order of the job threads (load_gate.c): the threads of wave w (the
 * jobs between two stonewalls) start once every thread of the waves before
 * has ended, a job with wait_for once the job it names has.
 */
struct load_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int wave;	/* the wave allowed to run */
	unsigned int nwaves;
	unsigned int *left;	/* threads of each wave not yet ended */
	struct load_thread *th;	/* all of them */
	unsigned int n;
	/* Called under the lock as a thread is let through, its owner's
	 * last word: non-zero, an errno, and the thread does not run. */
	int (*starting)(void *ctx, struct load_thread *t);
	void *ctx;
};

/* fio's flow_id groups (load_flow.c): the I/Os of their threads so far
 * and the weights of those running. */
struct load_flow {
	unsigned int id;
	__u64 count, weight;
};

struct load_flows {
	struct load_flow *v;
	unsigned int n;
};

/*
 * fio's latency_target (load_latgoal.c): the depth a job may use, found by
 * doubling and bisection window by window; the job loop acts on the flags.
 */
struct load_latgoal {
	unsigned int qd;	/* the depth the job may use now */
	unsigned int low, high, stable;
	__u64 window_ns, ios0, failed;
	bool end_run;		/* at the depth found: the final window */
	bool quiesce;		/* drain before issuing more */
	bool restart;		/* the statistics start again, at that depth */
	bool done;		/* the final window kept it: the job ends */
	bool fatal;		/* over the target at depth 1 (percentile 100) */
	__u64 fatal_ns;		/* by this long */
};

struct load_usage {
	__u64 usr_ns, sys_ns, ctx, majf, minf;
};

enum load_sync { LOAD_SYNC_FSYNC = 1, LOAD_SYNC_DATA };

struct load_target;
struct load_io;

/*
 * One file of a job thread (fio's fio_file): its fd, its range (size bytes
 * from the job's offset) and where the next I/O in it goes, each file on
 * its own as fio's.
 */
struct load_file {
	int fd;			/* -1: not open (create_on_open, until then) */
	const struct load_target *target;
	__u64 size;
	bool done;		/* its range is done this pass */
	__u64 seq_pos[LOAD_DIRS];
	__u64 seq_start[LOAD_DIRS];	/* where the last I/O began */
	__u64 zone_start;	/* zonemode=strided: the zone, from offset */
	__u64 zone_bytes;	/* issued in it */
	__u64 nblocks;		/* of the smallest size, for either map */
	__u64 perm_pos;		/* next index of the permutation */
	__u64 feistel_keys[4];
	unsigned int feistel_half;	/* bits per half */
	/* Several sizes: fio's axmap, a bit per block of the smallest size
	 * taken this pass; used_left: the blocks not taken. */
	__u64 *used;
	__u64 used_left;
};

struct load_thread {
	pthread_t tid;
	struct load_gate *gate;	/* NULL: start at once */
	unsigned int wave;
	const struct load_job_opts *o;
	const struct load_target *target;	/* its files', one each */
	const struct load_engine *eng;
	int job_index;		/* among all threads: seeds the generators */
	int together;		/* job threads of its wave, which run at once */
	struct load_file *files;
	unsigned int nfiles;
	struct load_file *f;	/* the file of the next I/O */
	unsigned int next_file;	/* roundrobin's next; the files done: */
	unsigned int nfiles_done;
	unsigned int fservice_left;	/* I/Os to f before another */
	unsigned int depth;
	struct load_io *ios;
	struct load_io **queued;	/* the batch not yet submitted */
	unsigned int nqueued;
	struct load_io **free;
	unsigned int nfree;
	void *bufs;
	__u64 buf_len;		/* of each slot's buffer: the largest bs */
	void *engine_data;

	/* Offsets in each file's [offset, offset + size), bytes from
	 * offset (struct load_file). */
	unsigned int seq_count;	/* rw=randread:N: I/Os before a random one */
	bool randommap;		/* one block size: the permutation */
	__u64 rng;		/* xorshift state for mix and norandommap */
	struct load_dist_state dist;	/* random_distribution other than random */
	__u8 deck[LOAD_DIRS][100];	/* bssplit: the next 100 sizes */
	unsigned int deck_pos[LOAD_DIRS];

	__u64 issued, budget;	/* bytes issued after the ramp; budget 0: none */
	__u64 nissued;		/* I/Os issued after the ramp (number_ios) */
	__u64 think_issued, think_done;	/* I/Os issued, completed: thinktime */
	__u64 think_last;	/* the count at the last pause */
	bool think_pending;	/* a pause is due once the queue is drained */
	struct load_prio_pick prio;	/* fio's prio and cmdprio */
	struct load_latgoal lat;	/* fio's latency_target */
	/* What writes carry (load_buf.c). */
	__u64 buf_seed;		/* set before the threads start */
	__u64 buf_rng, buf_prev;	/* the seeds, where the last unique began */
	__u64 dedupe_rng;
	__u64 *dedupe_ws;	/* dedupe_mode=working_set: its pages' seeds */
	__u64 dedupe_nws;
	__u64 buf_chunk;
	bool buf_refill, buf_scramble, buf_unique;
	struct load_steady *ss;	/* fio's steady state, where it is kept */
	struct load_flow *flow;	/* fio's flow: its group, or NULL */
	__u64 flow_count;	/* its I/Os counted in the group */
	bool flow_held;		/* ahead of its share: wait, then try again */
	bool batch_full;	/* iodepth_batch_submit I/Os queued: submit */
	/* Under the gate's lock, but terminate: set by another thread's
	 * exitall, read without it. */
	bool running, ended, terminate;
	bool exhausted;		/* no I/O left in the range */
	__u64 writes;		/* for --fsync and --fdatasync */
	int sync_pending;	/* 0, or LOAD_SYNC_* due before the next I/O */
	__u64 rate_bps[LOAD_DIRS];	/* --rate_iops times the smallest bs */
	__u64 rate_bytes[LOAD_DIRS], rate_start_ns;
	__u64 poisson_ns[LOAD_DIRS];	/* rate_process=poisson: next due */
	__u64 wake_ns;		/* ahead of the rate: sleep until then */
	bool ramping;
	bool stop;
	__u64 start_ns;		/* of the statistics; 0 before (the sampler
				 * reads it, with acquire) */
	__u64 deadline_ns, ramp_end_ns;
	struct load_usage ru0;	/* at the start of the statistics */
	struct load_stats st;
	__u64 *written;		/* verify: a bit per block written */
	/* verify_backlog: the offsets written and not yet read back, oldest
	 * first, from backlog[backlog_head]; due: a batch to read back. */
	__u64 *backlog;
	size_t backlog_head, backlog_n, backlog_cap;
	bool backlog_due;
	__u64 verify_bs;	/* verify: the size of a block of it */
	__u64 verify_writes;	/* verify: the header's numberio */
	__u64 verify_nonce;	/* verify: this run's, in every block's seed */
	bool logging;		/* a log of load_iolog.c is open */
	struct load_log log[LOAD_LOG_KINDS];
};

/* ---- where the next I/O goes: load_offsets.c ---- */

/* Seeds the thread's random numbers from *seed (which moves on). */
void load_offsets_seed(struct load_thread *t, __u64 *seed);
/* xorshift64*: a few cycles per number for the mix and norandommap. */
__u64 load_rnd(struct load_thread *t);
/* Each file's random map from its range and the smallest block size,
 * with the bitmap of blocks taken where the job has several sizes: 0, or
 * -ENOMEM. */
int load_offsets_map(struct load_thread *t, bool several);
/* A new pass of every file: each block once more, in a new order, and
 * the sequential ones from the start. */
void load_offsets_rewind(struct load_thread *t);
/* The direction of the next I/O, by --rw and the mix. */
int load_pick_dir(struct load_thread *t);
/* Places io (its dir set): its file (fio's file_service_type), offset
 * and length; false when every file's range is done and the job is not
 * to go round again. */
bool load_pick_io(struct load_thread *t, struct load_io *io);

/* ---- the job loop: load_job.c ---- */

/* The thread body; `arg` is a struct load_thread. */
void *load_thread_run(void *arg);
/* Frees what the thread set up for its I/O and in its files (not the
 * files, whose owner opened them, nor its statistics or logs, which
 * outlive it in the report). */
void load_thread_free(struct load_thread *t);

/* ---- fio's flow between threads: load_flow.c ---- */

/* Puts each thread with --flow in the group of its flow_id; 0, -ENOMEM. */
int load_flows_init(struct load_flows *f, struct load_thread *th, unsigned int n);
void load_flows_free(struct load_flows *f);
/* The thread starts, or ends: its weight in its group, or out. */
void load_flow_join(struct load_thread *t);
void load_flow_leave(struct load_thread *t);
/* Whether the thread may issue one more I/O (then counted). */
bool load_flow_allows(struct load_thread *t);

/* ---- fio's latency_target: load_latgoal.c ---- */

/* The search from depth 1 (or, without latency_target, the whole depth);
 * again where the statistics start, unless at the final window. */
void load_latgoal_start(struct load_thread *t, __u64 now);
/* A read or write of the statistics completed `ns` after it started. */
void load_latgoal_io(struct load_thread *t, __u64 ns);
/* At the end of each window of latency_window: up or down. */
void load_latgoal_check(struct load_thread *t, __u64 now);

/* ---- the order of the threads: load_gate.c ---- */

/* Counts the threads per wave; 0, or -ENOMEM. */
int load_gate_init(struct load_gate *g, struct load_thread *th, unsigned int n);
void load_gate_free(struct load_gate *g);
/* Waits for the thread's wave and its wait_for; false when a stop, or
 * another job's exitall, came first. */
bool load_gate_enter(struct load_gate *g, struct load_thread *t);
/* The thread has ended: the next wave may start once its wave is done;
 * with exitall, the threads it stops are told. */
void load_gate_leave(struct load_gate *g, struct load_thread *t);
/* Whether another job's exitall stopped t. */
bool load_thread_terminated(const struct load_thread *t);

#endif
