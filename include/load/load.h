/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolens load: a load generator that takes fio's option names.  Parts:
 * load_opts.c (the option table every source of options feeds: argv and
 * job files), load_jobfile.c (fio's INI job files), load_target.c (opening the file or device, and the
 * safety checks before any write), engines.c and engines/ (psync,
 * io_uring, libaio), load_job.c (one thread per job: offsets, timing, statistics),
 * load_report.c (fio's normal text and JSON).
 */
#ifndef IOLENS_LOAD_H
#define IOLENS_LOAD_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/hist_layout.h"
#include "lib/json.h"

#define LOAD_CMD "load"

enum load_dir { LOAD_READ, LOAD_WRITE, LOAD_TRIM, LOAD_DIRS };

enum load_rw {
	LOAD_RW_READ, LOAD_RW_WRITE, LOAD_RW_RANDREAD, LOAD_RW_RANDWRITE,
	LOAD_RW_RW, LOAD_RW_RANDRW, LOAD_RW_TRIM, LOAD_RW_RANDTRIM,
};

struct load_engine;

enum load_format { LOAD_FMT_NORMAL, LOAD_FMT_JSON };

enum load_eta { LOAD_ETA_AUTO, LOAD_ETA_ALWAYS, LOAD_ETA_NEVER };

/* fio's cpus_allowed_policy; iolens's default is split (see load_cpus.c). */
enum load_cpus_policy { LOAD_CPUS_SPLIT, LOAD_CPUS_SHARED };

/* What the user set, as text, for "job options" / "global options". */
#define LOAD_MAX_GIVEN 48
struct load_given {
	const char *name;
	const char *value;
};

#define LOAD_MAX_SPLIT 64	/* fio's limit of bssplit entries */

/*
 * The block sizes of one direction, from whichever of --bs, --bsrange and
 * --bssplit came last.  The shares of a split add up to 100.
 */
struct load_bs {
	__u64 min, max;		/* min == max: one size */
	unsigned int nsplit;	/* 0: min..max as fio's bsrange */
	struct load_split {
		__u64 bs;
		unsigned int perc;
	} split[LOAD_MAX_SPLIT];
};

/* One job's options; the fields the table in load_opts.c writes into. */
struct load_job_opts {
	char *name;
	char *filename;
	__u64 size;		/* 0: the whole file or device from offset */
	__u64 offset;
	unsigned int offset_pct;	/* --offset=N%: set from the size found */
	__u64 offset_align;	/* of a percentage offset; 0: the smallest bs */
	int rw;			/* enum load_rw */
	unsigned int rwmixread;	/* percent */
	__u64 bs;
	struct load_bs bsz[LOAD_DIRS];	/* what each direction issues */
	__u64 blockalign[LOAD_DIRS];	/* of random offsets; 0: the smallest bs */
	unsigned int rate_iops[LOAD_DIRS];	/* 0: no cap */
	bool direct;
	const struct load_engine *ioengine;
	unsigned int iodepth;
	unsigned int numjobs;
	__u64 runtime_ns;	/* 0: until size is done */
	bool time_based;
	__u64 ramp_ns;
	__u64 randseed;
	bool norandommap;
	unsigned int bw_avg_ms;		/* bwavgtime: bw sample interval */
	unsigned int iops_avg_ms;	/* iopsavgtime */
	unsigned int fsync;	/* fsync after every this many writes; 0 off */
	unsigned int fdatasync;	/* the same with fdatasync */
	bool end_fsync;
	bool stonewall;		/* wait for every job before this one */
	bool new_group;		/* a new reporting group, without waiting */
	cpu_set_t cpus;		/* --cpus_allowed; empty: not given */
	int cpus_policy;	/* enum load_cpus_policy */
	int groupid;		/* set once all jobs are read, as fio's */
	/* Settings of the whole run; read from the global section. */
	bool group_reporting;
	int format;		/* enum load_format */
	int eta;		/* enum load_eta */
	char *output;
	bool allow_destroy;
	char *sweep;		/* --sweep: iodepth or zones[:N]; NULL none */

	struct load_given given[LOAD_MAX_GIVEN];
	int ngiven;
};

/* Default options, as fio's defaults. */
void load_opts_init(struct load_job_opts *o);

/*
 * Sets option `name` from the text `value` (NULL: given without a value,
 * which only a flag takes).  Returns 0; or -1 for an unknown option and -2
 * for a bad value, with *err set to a reason (the caller knows where the
 * option came from, so it prints the line).
 */
int load_opt_set(struct load_job_opts *o, const char *name, const char *value,
		 const char **err);

/* Whether `name` is an option that takes no value (a flag). */
bool load_opt_is_flag(const char *name);

/* Whether `name` is a known option. */
bool load_opt_known(const char *name);

/* Whether `name` is a setting of the whole run rather than of a job. */
bool load_opt_run_wide(const char *name);

/* Whether `name` is taken only on the command line (as fio's). */
bool load_opt_cmdline_only(const char *name);

/* ---- the jobs of a run: cmd_load.c, load_jobfile.c ---- */

struct load_jobs {
	struct load_job_opts global;	/* the defaults of the next job */
	struct load_job_opts *v;
	int n;
	char **texts;			/* job files' text: options point in */
	int ntexts;
};

/* The jobs of an `iolens load` command line (options and job files):
 * 0, -1 after printing the help, or the exit code after one line. */
int load_parse_args(int argc, char **argv, struct load_jobs *js);

void load_jobs_free(struct load_jobs *js);

/* Jobs of one run, at most: each costs its options' room (about 120 KiB),
 * and fio's job files rarely hold more than a handful. */
#define LOAD_MAX_JOBS 256

/* A new job, from the global options, at the end of js->v; NULL with
 * errno E2BIG (LOAD_MAX_JOBS reached) or ENOMEM. */
struct load_job_opts *load_jobs_add(struct load_jobs *js);

/* The line for a failed load_jobs_add(), and the exit code. */
int load_jobs_add_failed(void);

/*
 * Reads the fio job file `path` (the `index`th of the command line) into
 * js: a [global] section sets js->global, every other section adds a job
 * named after it.  As fio, a file after the first starts from the default
 * options and its first job waits for those before it.  Returns 0, or 2
 * after printing one line naming the file, the line and the option.
 */
int load_jobfile_read(struct load_jobs *js, const char *path, int index);

/* Sets each job's groupid from stonewall and new_group, as fio's. */
void load_jobs_group(struct load_jobs *js);

/* The options and their help, for --help. */
void load_opts_help(FILE *f);
/* Each option: its name, its value's name in --help (NULL for a flag), the
 * values it takes (space-separated; NULL: any) and its help. */
void load_opts_each(void (*fn)(const char *name, const char *arg,
				const char *choices, const char *help, void *ctx),
		    void *ctx);

/* Whether the job's --rw issues I/O of direction `dir`. */
bool load_dir_used(const struct load_job_opts *o, int dir);

/* The smallest and largest block size of the directions the job issues. */
__u64 load_bs_min(const struct load_job_opts *o);
__u64 load_bs_max(const struct load_job_opts *o);

/* The alignment of random offsets of direction `dir`: --blockalign, or by
 * default the smallest block size of that direction, as fio's. */
__u64 load_blockalign(const struct load_job_opts *o, int dir);

const char *load_rw_name(int rw);
/* "read", "write", "trim": fio's names of enum load_dir. */
const char *load_dir_name(int dir);

/* ---- where the job threads run: load_cpus.c ---- */

/* Parses fio's CPU list ("0-3,6") into *set: 0, or -1 with *err set to a
 * reason (also for a CPU this process may not run on). */
int load_cpus_parse(const char *s, cpu_set_t *set, const char **err);

/* Restricts the calling job thread, the `index`th of the run, as the job's
 * --cpus_allowed and --cpus_allowed_policy say: 0, or -errno. */
int load_cpus_place(const struct load_job_opts *o, int index);

/* ---- the target: load_target.c ---- */

struct load_target {
	bool is_blkdev;
	bool writes;
	__u64 dev_size;		/* bytes of the device or the file */
	unsigned int lbs;	/* logical block size; 0 if unknown */
	char lbs_from[64];	/* what lbs is of: "loop0" or "vda" */
};

/*
 * Checks the job's target before anything starts: creates or extends a
 * regular file, refuses a device that is mounted, held or carries a
 * signature when the job writes (unless --allow-destroy), and direct I/O
 * the device cannot take.  Fills in size when it was 0.  Returns 0, or the
 * exit code after printing one line.
 */
int load_target_prepare(struct load_job_opts *o, struct load_target *t);

/* Claims a block device the job writes with an O_EXCL open, kept for the
 * whole run: *fd, or -1 when there is nothing to claim.  0, or after one
 * line 2 (in use: mounted or held) or 1. */
int load_target_claim(const struct load_job_opts *o, const struct load_target *t,
		      int *fd);

/* Opens the target for one thread. */
int load_target_open(const struct load_job_opts *o, const struct load_target *t);

/* ---- statistics ---- */

struct load_lat {
	__u64 n, min, max, sum;
	unsigned __int128 sumsq;	/* exact: ns^2 sums overflow 64 bits */
};

/*
 * Per-interval samples of one direction's bandwidth (KiB/s) or IOPS, as
 * fio's io_stat: a running mean and sum of squares (Welford), so that
 * group_reporting can add them up the way fio does.
 */
struct load_rate {
	__u64 n, min, max;
	double mean, S;
};

struct load_dir_stats {
	__u64 ios, bytes, short_ios;	/* the sampler reads ios and bytes */
	struct load_lat slat, clat, lat;
	__u64 clat_hist[HIST_BUCKETS];
	struct load_rate bw_rate, iops_rate;	/* filled in after the run */
};

/* fio's iodepth_level buckets: 1, 2, 4, 8, 16, 32, >=64. */
#define LOAD_DEPTH_BUCKETS 7

struct load_stats {
	struct load_dir_stats dir[LOAD_DIRS];
	__u64 depth[LOAD_DEPTH_BUCKETS];	/* submits by depth after them */
	__u64 runtime_ns;
	__u64 thread_ns;		/* summed over threads: CPU % is of it */
	__u64 usr_ns, sys_ns, ctx, majf, minf;
	int error;			/* first errno, 0 none */
};

void load_lat_add(struct load_lat *l, __u64 ns);
void load_rate_add(struct load_rate *r, __u64 v);
/* fio's group_reporting sum of samples: min, max, mean and S add up. */
void load_rate_merge(struct load_rate *dst, const struct load_rate *src);
void load_stats_merge(struct load_stats *dst, const struct load_stats *src);

/* ---- engines: engines.c, one file each in engines/ ---- */

/* One I/O slot: iodepth of them per thread, each with its own buffer. */
struct load_io {
	void *buf;
	__u64 offset;
	__u32 len;
	__u16 index;		/* slot number, the fixed-buffer index */
	__u8 dir;		/* enum load_dir */
	bool counted;		/* issued after the ramp: goes in the stats */
	__u64 t_start;		/* before it was prepared */
	__u64 t_issue;		/* after the submit call returned */
	void *engine_priv;
};

struct load_thread;

struct load_usage {
	__u64 usr_ns, sys_ns, ctx, majf, minf;
};

enum load_queued { LOAD_Q_QUEUED, LOAD_Q_COMPLETED };

/* An engine's operations.  queue is required; a sync engine needs nothing
 * else, an asynchronous one also commit and reap; init and exit are
 * optional for both. */
struct load_engine {
	const char *name;	/* fio's --ioengine name */
	const char *help;	/* one line for --help */
	bool sync;		/* queue() does the I/O: no slat, depth 1 */
	int (*init)(struct load_thread *t);
	/* Adds io to the batch; a sync engine does it and returns
	 * LOAD_Q_COMPLETED with *res the byte count or -errno. */
	int (*queue)(struct load_thread *t, struct load_io *io, long *res);
	/* Submits the batch; returns how many went, or -errno. */
	int (*commit)(struct load_thread *t);
	/* Waits for at least `min` completions and hands each to
	 * load_io_done(); returns how many, or -errno. */
	int (*reap)(struct load_thread *t, unsigned int min);
	void (*exit)(struct load_thread *t);
};

/* The engine called `name` (NULL: the default), or NULL. */
const struct load_engine *load_engine_find(const char *name);
/* "want one of: psync io_uring libaio" */
const char *load_engines_text(void);
/* A line per engine, for --help. */
void load_engines_help(FILE *f);

/* ---- one job thread: load_job.c ---- */

/*
 * The stonewall between jobs: the threads of wave w start once every thread
 * of the waves before has ended.
 */
struct load_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int wave;	/* the wave allowed to run */
	unsigned int left;	/* its threads not yet ended */
	unsigned int nwaves;
	unsigned int *count;	/* threads per wave */
};

enum load_sync { LOAD_SYNC_FSYNC = 1, LOAD_SYNC_DATA };

struct load_thread {
	pthread_t tid;
	struct load_gate *gate;	/* NULL: start at once */
	unsigned int wave;
	const struct load_job_opts *o;
	const struct load_target *target;
	const struct load_engine *eng;
	int job_index;		/* among all threads: seeds the generators */
	int fd;
	unsigned int depth;
	struct load_io *ios;
	struct load_io **queued;	/* the batch not yet submitted */
	unsigned int nqueued;
	struct load_io **free;
	unsigned int nfree;
	void *bufs;
	__u64 buf_len;		/* of each slot's buffer: the largest bs */
	void *engine_data;

	/* Offsets in [offset, offset + size): bytes from offset. */
	__u64 seq_pos[LOAD_DIRS];
	bool randommap;		/* one block size: the permutation below */
	__u64 nblocks;		/* of that size, for the permutation */
	__u64 perm_pos;		/* next index of the permutation */
	__u64 rng;		/* xorshift state for mix and norandommap */
	__u64 feistel_keys[4];
	unsigned int feistel_half;	/* bits per half */
	__u8 deck[LOAD_DIRS][100];	/* bssplit: the next 100 sizes */
	unsigned int deck_pos[LOAD_DIRS];

	__u64 issued, budget;	/* bytes issued after the ramp; budget 0: none */
	bool exhausted;		/* no I/O left in the range */
	__u64 writes;		/* for --fsync and --fdatasync */
	int sync_pending;	/* 0, or LOAD_SYNC_* due before the next I/O */
	__u64 rate_bps[LOAD_DIRS];	/* --rate_iops times the smallest bs */
	__u64 rate_bytes[LOAD_DIRS], rate_start_ns;
	__u64 wake_ns;		/* ahead of the rate: sleep until then */
	bool ramping;
	bool stop;
	__u64 start_ns;		/* of the statistics; 0 before (the sampler
				 * reads it, with acquire) */
	__u64 deadline_ns, ramp_end_ns;
	struct load_usage ru0;	/* at the start of the statistics */
	struct load_stats st;
};

/* ---- completions: load_io.c ---- */

/* For engines: a completion of `io` with `res` bytes or -errno at `now`. */
void load_io_done(struct load_thread *t, struct load_io *io, long res,
		  __u64 now);
/* Stops the job after printing what failed; its first error is kept. */
void load_job_err(struct load_thread *t, const char *what, __u64 offset,
		  int err);

/* ---- the job loop: load_job.c ---- */

/* The thread body; `arg` is a struct load_thread. */
void *load_thread_run(void *arg);

/* ---- stonewalls: load_gate.c ---- */

/* Counts the threads per wave; 0, or -ENOMEM. */
int load_gate_init(struct load_gate *g, const struct load_thread *th,
		   unsigned int n);
void load_gate_free(struct load_gate *g);
/* Waits for the thread's wave; false when a stop came first. */
bool load_gate_enter(struct load_gate *g, unsigned int wave);
/* The thread has ended: the next wave may start once its wave is done. */
void load_gate_leave(struct load_gate *g);


/* ---- beyond fio: load_sweep.c ---- */

/* Runs the one job of js as --sweep says and reports; the exit code. */
int load_sweep_run(struct load_jobs *js);

/* ---- while the jobs run: load_monitor.c, load_samples.c,
 * load_progress.c ---- */

/* Starts the job threads; returns how many started. */
unsigned int load_monitor_start(struct load_thread *th, unsigned int n);

/*
 * Takes the bw and IOPS samples and shows the progress line until every
 * started thread has ended, joins them, and stores the samples in their
 * statistics.
 */
void load_monitor_wait(struct load_thread *th, unsigned int n,
		       const struct load_job_opts *global, FILE *out);

struct load_sampler;

struct load_sampler *load_samples_new(struct load_thread *th, unsigned int n);
/* Takes the samples due at `now` of thread i; returns when to call
 * again (soon while the thread's statistics have not started). */
__u64 load_samples_take(struct load_sampler *s, unsigned int i, __u64 now);
/* Puts each thread's samples into its statistics and frees the sampler. */
void load_samples_store(struct load_sampler *s);

struct load_progress;

/* NULL when no progress line is wanted (--eta, not a terminal, JSON). */
struct load_progress *load_progress_new(const struct load_job_opts *global,
					FILE *out, unsigned int n);
/* Redraws the line; `done[i]` says thread i has ended. */
void load_progress_show(struct load_progress *p, const struct load_thread *th,
			const bool *done, __u64 now);
/* Erases the line, so that the report starts as without it. */
void load_progress_end(struct load_progress *p);

/* ---- disk statistics over the run: load_diskutil.c ---- */

struct load_disks;

/* Finds the block device of each job's target (for a file, of the
 * filesystem under it; for a partition, its disk, as fio) and reads its
 * counters; NULL if none has one. */
struct load_disks *load_disks_start(const struct load_job_opts *jobs, int n);
void load_disks_end(struct load_disks *d);
void load_disks_json(struct load_disks *d, struct json *j);
void load_disks_text(struct load_disks *d, FILE *f);
void load_disks_free(struct load_disks *d);

/* ---- report: load_report.c ---- */

/* fio's num2str: at most four digits, then the unit: "207k", "48.2MiB". */
void load_num2str(char *buf, size_t len, double v, int base,
		  const char *const *units);
extern const char *const load_iops_units[];
extern const char *const load_bin_units[];

struct load_result {
	const struct load_job_opts *o;
	const struct load_job_opts *global;
	int groupid;
	unsigned int nthreads;	/* folded into it by group_reporting */
	struct load_stats st;
};

/* Given the results of a run instead of printing them. */
typedef void (*load_done_fn)(void *ctx, const struct load_result *r, int n);

/*
 * Runs the jobs, after every safety check of every job, and prints fio's
 * report; with `done`, hands the results to it instead (`iolens bench`).
 * With --sweep, runs the sweep of load_sweep.c instead, which reports
 * itself (bench refuses --sweep).  Returns the exit code.
 */
int load_run(struct load_jobs *js, load_done_fn done, void *ctx);

/* Where reports go, *f: --output, else stdout.  0, or 1 after one line
 * (*f is then stdout). */
int load_output_open(const struct load_job_opts *global, FILE **f);

/* Closes what load_output_open() opened: 1 (after one line) if the report
 * could not be written, else 0. */
int load_output_close(FILE *f, const struct load_job_opts *global);

void load_report_normal(FILE *f, const struct load_result *r, int n,
			struct load_disks *disks);
void load_report_json(FILE *f, const struct load_result *r, int n,
		      const struct load_job_opts *global,
		      struct load_disks *disks);

#endif
