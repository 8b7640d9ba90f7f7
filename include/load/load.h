/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolens load: a load generator that takes fio's option names and prints
 * fio's reports.  This header is what the layers above use: `iolens load`
 * runs its command line with load_run_cmdline(); `iolens bench` parses
 * one with load_parse_args(), runs it with load_run() and frees it with
 * load_jobs_free(), and also reads the
 * results (struct load_result) it asks load_run() for; the shell
 * completion lists the options with load_opts_each(); the fuzzers and unit
 * tests set options and read job files.
 *
 * The parts, in src/load/, each with the header of include/load/ that
 * declares what it gives the other parts (load's own; no other layer
 * includes them):
 *   load_args.c     the command line; load_opts.c the options (the
 *                   rows of options.def) every source of options feeds;
 *                   load_jobfile.c fio's INI job files and the list of
 *                   jobs; load_shape.c the directions and block sizes a
 *                   job's options mean (opts.h)
 *   load_cpus.c     where the job threads run (cpus.h)
 *   load_target.c   opening the file or device, and the safety checks
 *                   before any write (target.h); load_files.c the files
 *                   made as fio makes them when a job names none (files.h)
 *   load_run.c      a run: the checks of every job, the threads, the report
 *                   (load_run() here)
 *   load_job.c      one thread per job: its loop, pacing, thinktime;
 *                   load_buf.c what its writes carry;
 *                   load_offsets.c where its next I/O goes; load_gate.c
 *                   when it starts and ends: stonewall, wait_for, exitall
 *                   (job.h); load_prio.c fio's I/O priorities (prio.h);
 *                   load_latgoal.c fio's latency_target (job.h)
 *   engines.c       the engine table; engines/ one file per engine
 *                   (sync.c the sync family, posixaio, libaio,
 *                   io_uring, mmap, null); load_io.c the completions
 *                   they call back (engine.h)
 *   load_stats.c    adding up statistics (stats.h); load_steady.c fio's
 *                   steady state, judged by the monitor (steady.h)
 *   load_monitor.c  while the jobs run: load_samples.c the bw and IOPS
 *                   samples, load_progress.c the progress line (monitor.h)
 *   load_report.c   fio's normal text and JSON; load_terse.c its terse
 *                   lines; load_diskutil.c the disks' statistics over
 *                   the run (report.h)
 *   load_sweep.c    --sweep, beyond fio (sweep.h)
 */
#ifndef IOLENS_LOAD_H
#define IOLENS_LOAD_H

#include <sched.h>
#include <stdbool.h>
#include <linux/types.h>
#include "bpf/hist_layout.h"

enum load_dir { LOAD_READ, LOAD_WRITE, LOAD_TRIM, LOAD_DIRS };

enum load_rw {
	LOAD_RW_READ, LOAD_RW_WRITE, LOAD_RW_RANDREAD, LOAD_RW_RANDWRITE,
	LOAD_RW_RW, LOAD_RW_RANDRW, LOAD_RW_TRIM, LOAD_RW_RANDTRIM,
};

struct load_engine;

/* Bits: fio's --output-format takes several at once. */
enum load_format { LOAD_FMT_NORMAL = 1, LOAD_FMT_JSON = 2, LOAD_FMT_TERSE = 4 };

/* fio's rw_sequencer: the I/Os between two random offsets of rw=randread:N
 * go on from the last one, or are at it again. */
enum load_rw_seq { LOAD_RW_SEQ_SEQUENTIAL, LOAD_RW_SEQ_IDENTICAL };

/* fio's fallocate=: how a file made or extended gets its blocks. */
enum load_fallocate {
	LOAD_FALLOC_NONE,	/* ftruncate only: a sparse file */
	LOAD_FALLOC_POSIX,	/* posix_fallocate() */
	LOAD_FALLOC_KEEP,	/* fallocate(FALLOC_FL_KEEP_SIZE), then ftruncate */
	LOAD_FALLOC_NATIVE,	/* fallocate(0), sparse where unsupported */
};

/* fio's file_service_type: which of a job's files the next I/O goes to. */
enum load_fservice {
	LOAD_FSERVICE_RR,	/* each in turn, N I/Os each (default 1) */
	LOAD_FSERVICE_SEQ,	/* one to its end, then the next */
	LOAD_FSERVICE_RANDOM,	/* one drawn at random, for N I/Os */
};

/* fio's exit_what: whom a job with exitall stops when it ends. */
enum load_exit_what {
	LOAD_EXIT_GROUP,	/* the jobs of its group */
	LOAD_EXIT_STONEWALL,	/* every job running, of any group */
	LOAD_EXIT_ALL,		/* every job, those not started too */
};

/* fio's zonemode. */
enum load_zonemode {
	LOAD_ZONE_NONE,
	LOAD_ZONE_STRIDED,	/* zonesize bytes in each zone of zonerange,
				 * then zoneskip bytes on */
};

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

/* fio's random_distribution (load_dist.c). */
enum load_dist_kind {
	LOAD_DIST_RANDOM, LOAD_DIST_ZIPF, LOAD_DIST_PARETO, LOAD_DIST_NORMAL,
	LOAD_DIST_ZONED
};

#define LOAD_MAX_DIST_ZONES 16

struct load_dist {
	int kind;		/* enum load_dist_kind */
	double param;		/* zipf's theta, pareto's h, normal's dev % */
	double center;		/* where the hottest block is, 0 to 1; -1: a
				 * place drawn from the seed (normal: 0) */
	unsigned int nzones;	/* zoned: access percent over range percent */
	struct load_dist_zone {
		unsigned int access, range;
	} zone[LOAD_MAX_DIST_ZONES];
};

/* fio's cmdprio_bssplit of one direction: I/Os of size bs are issued at
 * ioprio perc percent of the time (load_prio.c). */
#define LOAD_MAX_PRIO_SPLIT 16

struct load_prio_split {
	unsigned int n;
	struct load_prio_entry {
		__u64 bs;
		unsigned int perc;
		int ioprio;	/* -1: cmdprio_class and cmdprio's */
	} e[LOAD_MAX_PRIO_SPLIT];
};

#define LOAD_PRIO_UNSET (~0U)	/* prio, prioclass: not given */

/* fio's steady state criterion (load_steady.c): IOPS rather than
 * bandwidth, the slope rather than the largest deviation, the limit a
 * percentage of the mean. */
enum { LOAD_SS_IOPS = 1, LOAD_SS_SLOPE = 2, LOAD_SS_PCT = 4 };

struct load_steady;

/* fio's buffer_pattern and verify_pattern: bytes repeated; len 0 none. */
struct load_pattern {
	unsigned char b[64];
	unsigned int len;
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
	__u64 rate[LOAD_DIRS];		/* bytes a second; 0: rate_iops's */
	int rate_poisson;		/* rate_process: 0 linear, 1 poisson */
	bool direct;
	const struct load_engine *ioengine;
	unsigned int iodepth;
	unsigned int batch_submit;	/* iodepth_batch_submit; 0: all ready */
	unsigned int batch_complete_min, batch_complete_max;	/* max 0: all */
	unsigned int iodepth_low;	/* 0: iodepth */
	int submit_offload;	/* io_submit_mode=offload: issue on the
				 * rate's clock, not after a completion */
	unsigned int numjobs;
	__u64 runtime_ns;	/* 0: until size is done */
	bool time_based;
	__u64 ramp_ns;
	__u64 randseed;
	bool norandommap;
	bool randrepeat;	/* false: the seed is the clock's, each run */
	struct load_dist dist;	/* random_distribution */
	int random_generator;	/* fio's name, kept for the report only */
	bool thread;		/* fio's thread: what iolens's jobs are */
	bool gtod_reduce;	/* fio's: iolens's clock reads are few anyway */
	char *description;
	unsigned int bw_avg_ms;		/* bwavgtime: bw sample interval */
	unsigned int iops_avg_ms;	/* iopsavgtime */
	unsigned int fsync;	/* fsync after every this many writes; 0 off */
	unsigned int fdatasync;	/* the same with fdatasync */
	bool end_fsync;
	bool stonewall;		/* wait for every job before this one */
	bool new_group;		/* a new reporting group, without waiting */
	cpu_set_t cpus;		/* --cpus_allowed; empty: not given */
	int cpus_policy;	/* enum load_cpus_policy (load/cpus.h) */
	int groupid;		/* set once all jobs are read, as fio's */
	/* Settings of the whole run; read from the global section. */
	bool group_reporting;
	int format;		/* enum load_format */
	unsigned int terse_version;	/* of LOAD_FMT_TERSE: 2 to 5 */
	bool minimal;		/* fio's --minimal: the terse format */
	int eta;		/* enum load_eta (load/opts.h) */
	char *output;
	bool allow_destroy;
	char *sweep;		/* --sweep: iodepth or zones[:N]; NULL none */
	/* Files as fio makes them (load_files.c): without a filename, one
	 * per job thread, FORMAT under directory. */
	char *directory;
	char *filename_format;	/* fio's $jobname.$jobnum.$filenum */
	unsigned int clone;	/* a job of numjobs made one per file: which */
	__u64 filesize;		/* a made file's size; 0: offset + size */
	unsigned int nrfiles;	/* files made per job thread */
	int fservice;		/* enum load_fservice */
	unsigned int fservice_nr;	/* I/Os to a file before the next */
	/* nrfiles > 1: each file's own options, as a job of one file (its
	 * name and its share of size); NULL with one file. */
	struct load_job_opts *files;
	bool unlink;		/* remove the job's files when it ends */
	bool create_on_open;	/* a missing file made as the job starts */
	bool create_serialize;	/* fio's; iolens makes files one by one */
	int verify;		/* enum load_verify (load/verify.h) */
	bool do_verify;		/* read back what was written (default) */
	unsigned int verify_backlog;	/* read back after every this many
					 * writes; 0: after all of them */
	unsigned int verify_backlog_batch;	/* that many at a time; 0: all */
	bool verify_only;	/* no writes: read back what is there */
	struct load_pattern verify_pattern;	/* the data of verified blocks */
	__u64 verify_interval;	/* a header every this many bytes; 0: a block */
	bool fill_device;	/* write until the space runs out */
	bool size_at_start;	/* its file, filled by an earlier job, sized
				 * when it starts (load_run.c) */
	bool verify_fatal;	/* fio's; iolens stops at the first bad block */
	bool allow_file_create;	/* false: a missing file is an error */
	bool invalidate;	/* drop their cached pages before it starts */
	bool fadvise_hint;	/* POSIX_FADV_RANDOM or _SEQUENTIAL by --rw */
	int fallocate;		/* enum load_fallocate: how a file is grown */
	__u64 startdelay_ns;	/* the job starts this long after its turn */
	unsigned int loops;	/* passes over the range (fio's loops) */
	__s64 seq_add;		/* rw=read:SIZE: a gap (below 0: a step
				 * back) after each sequential I/O */
	unsigned int seq_nr;	/* rw=randread:N: a random offset every Nth
				 * I/O, the others as rw_sequencer says */
	int rw_seq;		/* enum load_rw_seq */
	__u64 io_size;		/* bytes to do within the range; 0: size */
	__u64 number_ios;	/* end after this many I/Os; 0: no such end */
	__u64 think_ns;		/* thinktime: a pause after think_blocks */
	__u64 think_spin_ns;	/* of which this long spinning on the CPU */
	unsigned int think_blocks;
	int think_on_issue;	/* thinktime_blocks_type: 0 complete, 1 issue */
	char *wait_for;		/* start once every thread of this job ended */
	/* fio's logs (load_iolog.c): the prefix of each file ("": the
	 * job's name), NULL none. */
	char *bw_log, *iops_log, *lat_log;
	unsigned int log_avg_ms;	/* 0: a line per I/O */
	int zonemode;		/* enum load_zonemode */
	unsigned int flow;	/* fio's flow: its weight in flow_id's group */
	unsigned int flow_id;
	__u64 flow_sleep_ns;	/* the wait of a thread ahead of its share */
	__u64 zone_size, zone_range, zone_skip;
	bool log_max;		/* log_max_value: a window's largest */
	bool log_offset;	/* each line with its I/O's offset */
	bool log_prio;		/* the priority as fio's hex ioprio */
	bool exitall;		/* when it ends, stop others (exit_what) */
	int exit_what;		/* enum load_exit_what */
	/* fio's I/O priorities (load_prio.c): the job's, and a share of its
	 * I/Os at another (libaio, io_uring), by direction. */
	unsigned int prio, prioclass;	/* LOAD_PRIO_UNSET: not given */
	unsigned int cmdprio_pct[LOAD_DIRS];
	unsigned int cmdprio_class[LOAD_DIRS], cmdprio_level[LOAD_DIRS];
	struct load_prio_split cmdprio_split[LOAD_DIRS];
	/* What writes carry (load_buf.c), fio's buffer options. */
	unsigned int buf_compress_pct;	/* buffer_compress_percentage */
	__u64 buf_compress_chunk;
	bool refill_buffers, scramble_buffers, zero_buffers;
	struct load_pattern buf_pattern;	/* buffer_pattern */
	unsigned int dedupe_pct;	/* dedupe_percentage */
	int dedupe_working_set;		/* dedupe_mode: 0 repeat */
	bool dedupe_global;
	unsigned int dedupe_ws_pct;	/* dedupe_working_set_percentage */
	/* fio's latency_target (load_latgoal.c): off where it is 0. */
	__u64 latency_target_ns, latency_window_ns;
	double latency_pct;	/* latency_percentile, default 100 */
	bool latency_run;	/* keep searching after the depth is found */
	/* fio's steady state (load_steady.c): off where ss_dur is 0. */
	unsigned int ss_flags;	/* LOAD_SS_* */
	double ss_limit;
	__u64 ss_dur_ns, ss_ramp_ns;
	/* Engine options, as fio's of the same names. */
	bool hipri;		/* pvsync2: RWF_HIPRI; io_uring: IOPOLL */
	bool fixedbufs;		/* io_uring: registered buffers */
	bool registerfiles;	/* io_uring: registered file */
	bool sqthread_poll;	/* io_uring: SQPOLL, a kernel submitter */
	bool nonvectored;	/* io_uring: READ/WRITE, not READV/WRITEV */

	struct load_given given[LOAD_MAX_GIVEN];
	int ngiven;
};

/* ---- the jobs of a run: load_args.c, load_jobfile.c ---- */

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

/*
 * Reads the fio job file `path` (the `index`th of the command line) into
 * js: a [global] section sets js->global, every other section adds a job
 * named after it.  As fio, a file after the first starts from the default
 * options and its first job waits for those before it.  Returns 0, or 2
 * after printing one line naming the file, the line and the option.
 */
int load_jobfile_read(struct load_jobs *js, const char *path, int index);

/* ---- options: load_opts.c ---- */

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

/* Whether `name` is a known option. */
bool load_opt_known(const char *name);

/* Each option: its name, its value's name in --help (NULL for a flag), the
 * values it takes (space-separated; NULL: any) and its help. */
void load_opts_each(void (*fn)(const char *name, const char *arg,
				const char *choices, const char *help, void *ctx),
		    void *ctx);

/* ---- statistics: load_stats.c ---- */

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

/* fio's latency distribution (io_u_lat_n, _u, _m): I/Os by clat, ten
 * buckets of ns below 1 us, ten of us below 1 ms, then twelve of ms; each
 * named by its upper end, "2" holding 0 and 1 (load_stats.c). */
enum {
	LOAD_LAT_NS = 0, LOAD_LAT_US = 10, LOAD_LAT_MS = 20, LOAD_LAT_BUCKETS = 32
};

/* fio's iodepth_level buckets: 1, 2, 4, 8, 16, 32, >=64. */
#define LOAD_DEPTH_BUCKETS 7

/* fio's clat per I/O priority, kept by a job that sets one per I/O. */
struct load_prio_stats {
	int dir;
	__u16 ioprio;			/* class << 13 | level */
	struct load_lat clat;
	__u64 hist[HIST_BUCKETS];
};

struct load_stats {
	struct load_dir_stats dir[LOAD_DIRS];
	/* Allocated (load_stats_free()), NULL where the job sets no
	 * priority per I/O; in fio's order: each direction's own first. */
	struct load_prio_stats *prios;
	unsigned int nprios;
	__u64 depth[LOAD_DEPTH_BUCKETS];	/* submits by depth after them */
	__u64 lat_dist[LOAD_LAT_BUCKETS];	/* I/Os by clat */
	__u64 runtime_ns;
	__u64 thread_ns;		/* summed over threads: CPU % is of it */
	__u64 usr_ns, sys_ns, ctx, majf, minf;
	int error;			/* first errno, 0 none */
	unsigned int latency_depth;	/* latency_target's, or iodepth */
};

/* Adds src's figures to dst's, the per-priority ones by direction and
 * priority (allocated in dst). */
void load_stats_merge(struct load_stats *dst, const struct load_stats *src);
void load_stats_free(struct load_stats *st);

/* fio's default percentile list: 1, 5, ... 99.99. */
#define LOAD_NPCTS 17
extern const double load_pcts[LOAD_NPCTS];
/* The mean and, as fio's, the sample standard deviation. */
double load_lat_mean(const struct load_lat *l);
double load_lat_stddev(const struct load_lat *l);
double load_rate_dev(const struct load_rate *r);

/* The names of the buckets of a unit (LOAD_LAT_*): "2", ... ">=2000". */
extern const char *const load_lat_names[12];
/* Its buckets as fio's percentages of every I/O: 0.01 at least where
 * there is one; n is 10 or 12. */
void load_lat_pcts(const struct load_stats *st, int unit, int n, double *pct);

/* "read", "write", "trim": fio's names of enum load_dir. */
const char *load_dir_name(int dir);

/* ---- a run: load_run.c ---- */

struct load_result {
	const struct load_job_opts *o;
	const struct load_job_opts *global;
	int groupid;
	unsigned int nthreads;	/* folded into it by group_reporting */
	struct load_stats st;
	const struct load_steady *ss;	/* ss_dur: load/steady.h; or NULL */
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

/* `iolens load ARGS`: parses them, runs the jobs, frees them; the exit
 * code (0 after --help). */
int load_run_cmdline(int argc, char **argv);

#endif
