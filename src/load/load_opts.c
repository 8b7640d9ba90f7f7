// SPDX-License-Identifier: GPL-2.0
/*
 * The options of iolens load: one table, fio's names and meanings.  The
 * command line and the job files (load_jobfile.c) both feed it through
 * load_opt_set(), so that both accept exactly the same options.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "load/cpus.h"
#include "load/dist.h"
#include "load/verify.h"
#include "load/engine.h"
#include "load/load.h"
#include "load/opts.h"
#include "load/prio.h"
#include "load/steady.h"
#include "lib/parse.h"

enum opt_type {
	T_STR, T_SIZE, T_UINT, T_BOOL, T_TIME, T_ENUM, T_U64,
	T_OFFSET,	/* a size or N% */
	T_ENGINE,	/* an engine of engines.c, by name */
	T_CPUS,		/* a CPU list */
	/* One value per direction, fio's "read,write,trim" form: */
	T_BSRANGE, T_BSSPLIT, T_DIRSIZE, T_DIRUINT, T_DIRRATE,
	T_PRIOSPLIT,	/* cmdprio_bssplit (load_prio.c) */
	T_STEADY,	/* ss (load_steady.c) */
	T_NOT,		/* a bool stored inverted: buffered is !direct */
	T_PCT_OTHER,	/* a percentage stored as 100 - it: rwmixwrite */
	T_DIST,		/* random_distribution (load_dist.c) */
	T_RW,		/* an rw choice and fio's ":SIZE" step after it */
	T_USEC,		/* a time whose bare number is microseconds */
	T_LOGNAME,	/* a string that may be left out in a job file */
};

struct choice {
	const char *name;
	int val;
};

struct opt {
	const char *name;
	enum opt_type type;
	size_t off;
	const struct choice *choices;	/* T_ENUM */
	unsigned int min, max;		/* T_UINT */
	const char *arg;		/* for --help */
	const char *help;
};

static const struct choice rw_choices[] = {
	{ "read", LOAD_RW_READ }, { "write", LOAD_RW_WRITE },
	{ "randread", LOAD_RW_RANDREAD }, { "randwrite", LOAD_RW_RANDWRITE },
	{ "rw", LOAD_RW_RW }, { "readwrite", LOAD_RW_RW },
	{ "randrw", LOAD_RW_RANDRW }, { "trim", LOAD_RW_TRIM },
	{ "randtrim", LOAD_RW_RANDTRIM }, { NULL, 0 },
};

static const struct choice eta_choices[] = {
	{ "auto", LOAD_ETA_AUTO }, { "always", LOAD_ETA_ALWAYS },
	{ "never", LOAD_ETA_NEVER }, { NULL, 0 },
};

static const struct choice cpus_policy_choices[] = {
	{ "split", LOAD_CPUS_SPLIT }, { "shared", LOAD_CPUS_SHARED }, { NULL, 0 },
};

static const struct choice fallocate_choices[] = {
	{ "none", LOAD_FALLOC_NONE }, { "0", LOAD_FALLOC_NONE },
	{ "truncate", LOAD_FALLOC_NONE }, { "posix", LOAD_FALLOC_POSIX },
	{ "1", LOAD_FALLOC_POSIX }, { "keep", LOAD_FALLOC_KEEP },
	{ "native", LOAD_FALLOC_NATIVE }, { NULL, 0 },
};

static const struct choice verify_choices[] = {
	{ "0", LOAD_VERIFY_NONE }, { "crc32c", LOAD_VERIFY_CRC32C },
	{ "crc32c-intel", LOAD_VERIFY_CRC32C }, { NULL, 0 },
};

static const struct choice think_type_choices[] = {
	{ "complete", 0 }, { "issue", 1 }, { NULL, 0 },
};

static const struct choice exit_what_choices[] = {
	{ "group", LOAD_EXIT_GROUP }, { "stonewall", LOAD_EXIT_STONEWALL },
	{ "all", LOAD_EXIT_ALL }, { NULL, 0 },
};

/* fio's zbd, for zoned block devices, is not taken: refused by name. */
static const struct choice zonemode_choices[] = {
	{ "none", LOAD_ZONE_NONE }, { "strided", LOAD_ZONE_STRIDED }, { NULL, 0 },
};

static const struct choice rate_process_choices[] = {
	{ "linear", 0 }, { "poisson", 1 }, { NULL, 0 },
};

/* fio's generators of random offsets; iolens's keyed permutation stands
 * for all three (fio's counts, in another order). */
static const struct choice generator_choices[] = {
	{ "tausworthe", 0 }, { "lfsr", 1 }, { "tausworthe64", 2 }, { NULL, 0 },
};

static const struct choice format_choices[] = {
	{ "normal", LOAD_FMT_NORMAL }, { "json", LOAD_FMT_JSON }, { NULL, 0 },
};

#define OFF(f) offsetof(struct load_job_opts, f)

static const struct opt opts[] = {
	{ "name", T_STR, OFF(name), NULL, 0, 0, "NAME",
	  "start a new job (options before the first are global)" },
	{ "filename", T_STR, OFF(filename), NULL, 0, 0, "PATH",
	  "regular file (created if absent, never truncated) or block device" },
	{ "directory", T_STR, OFF(directory), NULL, 0, 0, "DIR",
	  "where a job without --filename makes its file (default: here)" },
	{ "filename_format", T_STR, OFF(filename_format), NULL, 0, 0, "FORMAT",
	  "its name: $jobname, $jobnum, $filenum (default $jobname.$jobnum.$filenum)" },
	{ "size", T_SIZE, OFF(size), NULL, 0, 0, "SIZE",
	  "bytes of I/O per job and the range used (default: to the end)" },
	{ "filesize", T_SIZE, OFF(filesize), NULL, 0, 0, "SIZE",
	  "size of the file made (default: offset + size); also --size if none" },
	{ "nrfiles", T_UINT, OFF(nrfiles), NULL, 1, 1, "1",
	  "files per job: one (fio's several are not supported)" },
	{ "fallocate", T_ENUM, OFF(fallocate), fallocate_choices, 0, 0, "HOW",
	  "how a file is grown: native (default), posix, keep, none" },
	{ "allow_file_create", T_BOOL, OFF(allow_file_create), NULL, 0, 0, "0|1",
	  "a missing file may be made (default 1); 0: it must exist" },
	{ "verify", T_ENUM, OFF(verify), verify_choices, 0, 0, "HOW",
	  "crc32c: written blocks carry a header and checksum, read back after" },
	{ "do_verify", T_BOOL, OFF(do_verify), NULL, 0, 0, "0|1",
	  "the read-back pass after the writes (default 1)" },
	{ "verify_only", T_BOOL, OFF(verify_only), NULL, 0, 0, NULL,
	  "no writes: check the blocks an earlier run wrote" },
	{ "verify_fatal", T_BOOL, OFF(verify_fatal), NULL, 0, 0, "0|1",
	  "stop at the first bad block (iolens always does, as fio 3.33)" },
	{ "unlink", T_BOOL, OFF(unlink), NULL, 0, 0, "0|1",
	  "remove the job's regular file when it ends" },
	{ "invalidate", T_BOOL, OFF(invalidate), NULL, 0, 0, "0|1",
	  "drop the file's cached pages before the job (default 1)" },
	{ "fadvise_hint", T_BOOL, OFF(fadvise_hint), NULL, 0, 0, "0|1",
	  "tell the kernel the job is random or sequential (default 1)" },
	{ "loops", T_UINT, OFF(loops), NULL, 1, ~0U, "N",
	  "go over the range N times (default 1)" },
	{ "io_size", T_SIZE, OFF(io_size), NULL, 0, 0, "SIZE",
	  "bytes of I/O, going round the range if more (default --size)" },
	{ "number_ios", T_U64, OFF(number_ios), NULL, 0, 0, "N",
	  "end after N I/Os (times --loops) if nothing ends it sooner" },
	{ "thinktime", T_USEC, OFF(think_ns), NULL, 0, 0, "TIME",
	  "pause after I/O, the queue drained first (us, or 2ms...)" },
	{ "thinktime_spin", T_USEC, OFF(think_spin_ns), NULL, 0, 0, "TIME",
	  "of the pause, this long spinning on the CPU (us)" },
	{ "thinktime_blocks", T_UINT, OFF(think_blocks), NULL, 1, ~0U, "N",
	  "pause after every N I/Os (default 1)" },
	{ "thinktime_blocks_type", T_ENUM, OFF(think_on_issue), think_type_choices,
	  0, 0, "HOW", "count I/Os completed (default) or issued" },
	{ "wait_for", T_STR, OFF(wait_for), NULL, 0, 0, "JOB",
	  "start once every thread of this earlier job has ended" },
	{ "exitall", T_BOOL, OFF(exitall), NULL, 0, 0, NULL,
	  "when this job ends, stop others (--exit_what)" },
	{ "exit_what", T_ENUM, OFF(exit_what), exit_what_choices, 0, 0, "WHOM",
	  "group (default): its group; stonewall: all running; all" },
	{ "write_bw_log", T_LOGNAME, OFF(bw_log), NULL, 0, 0, "PREFIX",
	  "log each I/O's bandwidth in PREFIX_bw.N.log, as fio's" },
	{ "write_iops_log", T_LOGNAME, OFF(iops_log), NULL, 0, 0, "PREFIX",
	  "log each I/O in PREFIX_iops.N.log, as fio's" },
	{ "write_lat_log", T_LOGNAME, OFF(lat_log), NULL, 0, 0, "PREFIX",
	  "log each I/O's latencies in PREFIX_{lat,slat,clat}.N.log" },
	{ "log_avg_msec", T_UINT, OFF(log_avg_ms), NULL, 0, ~0U, "MSEC",
	  "a log line per window of MSEC and direction (default 0: per I/O)" },
	{ "log_max_value", T_BOOL, OFF(log_max), NULL, 0, 0, "0|1",
	  "a window's largest latency instead of its mean" },
	{ "log_offset", T_BOOL, OFF(log_offset), NULL, 0, 0, "0|1",
	  "each log line with the I/O's offset" },
	{ "log_prio", T_BOOL, OFF(log_prio), NULL, 0, 0, "0|1",
	  "the priority column as the ioprio value, not 1 for real-time" },
	{ "prio", T_UINT, OFF(prio), NULL, 0, 7, "LEVEL",
	  "the job's I/O priority level, 0 (highest) to 7, as ionice -n" },
	{ "prioclass", T_UINT, OFF(prioclass), NULL, 0, 3, "CLASS",
	  "its class: 1 real-time, 2 best-effort (0 too), 3 idle" },
	{ "cmdprio_percentage", T_DIRUINT, OFF(cmdprio_pct), NULL, 0, 100, "PCT[,..]",
	  "libaio, io_uring: this share of I/Os at cmdprio_class (r,w)" },
	{ "cmdprio_class", T_DIRUINT, OFF(cmdprio_class), NULL, 1, 3, "CLASS[,..]",
	  "the class of those I/Os (default 1, real-time)" },
	{ "cmdprio", T_DIRUINT, OFF(cmdprio_level), NULL, 0, 7, "LEVEL[,..]",
	  "their level (default 0)" },
	{ "cmdprio_bssplit", T_PRIOSPLIT, OFF(cmdprio_split), NULL, 0, 0,
	  "BS/PCT[/C/L]:..[,..]", "libaio, io_uring: a share of I/Os of a size at a priority" },
	{ "ss", T_STEADY, OFF(ss_flags), NULL, 0, 0, "KIND:LIMIT",
	  "steady when: iops, bw (deviation) or iops_slope, bw_slope, below LIMIT[%]" },
	{ "ss_dur", T_TIME, OFF(ss_dur_ns), NULL, 0, 0, "TIME",
	  "the seconds that must be steady; the job then ends (default 0: off)" },
	{ "ss_ramp", T_TIME, OFF(ss_ramp_ns), NULL, 0, 0, "TIME",
	  "measure steadiness from this long after the start" },
	{ "flow", T_UINT, OFF(flow), NULL, 0, ~0U, "WEIGHT",
	  "share the I/Os of the jobs of one flow_id by these weights" },
	{ "flow_id", T_UINT, OFF(flow_id), NULL, 0, ~0U, "N",
	  "the group of --flow (default 0)" },
	{ "flow_sleep", T_USEC, OFF(flow_sleep_ns), NULL, 0, 0, "TIME",
	  "how long a job ahead of its share waits (us; default: retries)" },
	{ "zonemode", T_ENUM, OFF(zonemode), zonemode_choices, 0, 0, "MODE",
	  "strided: zonesize bytes in each zone, then on to the next" },
	{ "zonesize", T_SIZE, OFF(zone_size), NULL, 0, 0, "SIZE",
	  "zonemode=strided: bytes done in a zone before the next" },
	{ "zonerange", T_SIZE, OFF(zone_range), NULL, 0, 0, "SIZE",
	  "the size of a zone (default: zonesize)" },
	{ "zoneskip", T_SIZE, OFF(zone_skip), NULL, 0, 0, "SIZE",
	  "bytes left out between a zone and the next" },
	{ "startdelay", T_TIME, OFF(startdelay_ns), NULL, 0, 0, "TIME",
	  "start the job this long after its turn (seconds, or 500ms...)" },
	{ "offset", T_OFFSET, OFF(offset), NULL, 0, 0, "SIZE|N%",
	  "start of the range; N% of the device or file, aligned up" },
	{ "offset_align", T_SIZE, OFF(offset_align), NULL, 0, 0, "SIZE",
	  "alignment of an N% offset (default: the smallest block size)" },
	{ "rw", T_RW, OFF(rw), rw_choices, 0, 0, "PATTERN[:SIZE]",
	  "read write randread randwrite rw|readwrite randrw trim randtrim" },
	{ "rwmixread", T_UINT, OFF(rwmixread), NULL, 0, 100, "PCT",
	  "percent of reads in rw and randrw (default 50)" },
	{ "rwmixwrite", T_PCT_OTHER, OFF(rwmixread), NULL, 0, 100, "PCT",
	  "percent of writes in rw and randrw: 100 - --rwmixread" },
	{ "description", T_STR, OFF(description), NULL, 0, 0, "TEXT",
	  "what the job is, shown with its results" },
	{ "thread", T_BOOL, OFF(thread), NULL, 0, 0, NULL,
	  "jobs as threads: iolens's jobs always are" },
	{ "bs", T_SIZE, OFF(bs), NULL, 0, 0, "SIZE",
	  "block size (default 4k)" },
	{ "bsrange", T_BSRANGE, OFF(bsz), NULL, 0, 0, "MIN-MAX[,..]",
	  "sizes from MIN to MAX in steps of MIN (read,write,trim)" },
	{ "bssplit", T_BSSPLIT, OFF(bsz), NULL, 0, 0, "BS/PCT:..[,..]",
	  "sizes by share, e.g. 4k/10:64k/50:32k/40 (read,write,trim)" },
	{ "blockalign", T_DIRSIZE, OFF(blockalign), NULL, 0, 0, "SIZE[,..]",
	  "random offsets on this (default: smallest bs; no random map)" },
	{ "direct", T_BOOL, OFF(direct), NULL, 0, 0, "0|1",
	  "O_DIRECT: bypass the page cache" },
	{ "buffered", T_NOT, OFF(direct), NULL, 0, 0, "0|1",
	  "through the page cache: the opposite of --direct" },
	{ "ioengine", T_ENGINE, OFF(ioengine), NULL, 0, 0, "ENGINE",
	  "how I/O is issued: one of the engines below" },
	{ "iodepth", T_UINT, OFF(iodepth), NULL, 1, 65535, "N",
	  "I/Os in flight per job (the sync engines and mmap: 1)" },
	{ "hipri", T_BOOL, OFF(hipri), NULL, 0, 0, "0|1",
	  "polled completions: pvsync2 RWF_HIPRI, io_uring IOPOLL" },
	{ "fixedbufs", T_BOOL, OFF(fixedbufs), NULL, 0, 0, "0|1",
	  "io_uring: registered buffers (default 1, unlike fio's 0)" },
	{ "registerfiles", T_BOOL, OFF(registerfiles), NULL, 0, 0, "0|1",
	  "io_uring: a registered file (default 1, unlike fio's 0)" },
	{ "sqthread_poll", T_BOOL, OFF(sqthread_poll), NULL, 0, 0, "0|1",
	  "io_uring: a kernel thread polls the submission queue" },
	{ "nonvectored", T_BOOL, OFF(nonvectored), NULL, 0, 0, "0|1",
	  "io_uring: READ/WRITE (1, default) or READV/WRITEV (0)" },
	{ "numjobs", T_UINT, OFF(numjobs), NULL, 1, 4096, "N",
	  "threads running this job, each with its own file descriptor" },
	{ "runtime", T_TIME, OFF(runtime_ns), NULL, 0, 0, "TIME",
	  "stop after this long (seconds, or 500ms, 2m, 1h)" },
	{ "gtod_reduce", T_BOOL, OFF(gtod_reduce), NULL, 0, 0, "0|1",
	  "fio's fewer clock reads: iolens reads it once per batch anyway" },
	{ "time_based", T_BOOL, OFF(time_based), NULL, 0, 0, NULL,
	  "run for --runtime, going over the range again" },
	{ "ramp_time", T_TIME, OFF(ramp_ns), NULL, 0, 0, "TIME",
	  "run this long before the statistics start" },
	{ "randseed", T_U64, OFF(randseed), NULL, 0, 0, "N",
	  "seed of the offsets and the read/write mix" },
	{ "norandommap", T_BOOL, OFF(norandommap), NULL, 0, 0, NULL,
	  "random offsets may repeat (default: each block once per pass)" },
	{ "randrepeat", T_BOOL, OFF(randrepeat), NULL, 0, 0, "0|1",
	  "the same offsets every run (default 1); 0: seeded by the clock" },
	{ "random_distribution", T_DIST, OFF(dist), NULL, 0, 0, "DIST",
	  "random, zipf:THETA, pareto:H or zoned:A/R:..; no random map" },
	{ "random_generator", T_ENUM, OFF(random_generator), generator_choices,
	  0, 0, "GEN", "fio's generator: iolens's permutation stands for each" },
	{ "fsync", T_UINT, OFF(fsync), NULL, 0, ~0U, "N",
	  "fsync after every N writes" },
	{ "fdatasync", T_UINT, OFF(fdatasync), NULL, 0, ~0U, "N",
	  "fdatasync after every N writes" },
	{ "rate_iops", T_DIRUINT, OFF(rate_iops), NULL, 0, ~0U, "N[,..]",
	  "at most N I/Os a second per job, at the smallest bs (r,w,t)" },
	{ "rate_process", T_ENUM, OFF(rate_poisson), rate_process_choices, 0, 0,
	  "HOW", "linear: evenly spaced; poisson: exponential gaps, same mean" },
	{ "rate", T_DIRRATE, OFF(rate), NULL, 0, 0, "SIZE[,..]",
	  "at most SIZE bytes a second per job (r,w,t); before rate_iops" },
	{ "end_fsync", T_BOOL, OFF(end_fsync), NULL, 0, 0, "0|1",
	  "fsync when the job ends" },
	{ "stonewall", T_BOOL, OFF(stonewall), NULL, 0, 0, NULL,
	  "start when every job before has ended; a new group" },
	{ "new_group", T_BOOL, OFF(new_group), NULL, 0, 0, NULL,
	  "a new reporting group, started with the jobs before" },
	{ "cpus_allowed", T_CPUS, OFF(cpus), NULL, 0, 0, "LIST",
	  "job threads run on these CPUs, e.g. 0-3,6 (default: all allowed)" },
	{ "cpus_allowed_policy", T_ENUM, OFF(cpus_policy), cpus_policy_choices,
	  0, 0, "HOW", "split: one CPU per thread (default); shared: fio's" },
	{ "bwavgtime", T_UINT, OFF(bw_avg_ms), NULL, 1, ~0U, "MSEC",
	  "interval of the bw samples (default 500)" },
	{ "iopsavgtime", T_UINT, OFF(iops_avg_ms), NULL, 1, ~0U, "MSEC",
	  "interval of the IOPS samples (default 500)" },
	{ "group_reporting", T_BOOL, OFF(group_reporting), NULL, 0, 0, NULL,
	  "one report for all jobs of a group" },
	{ "output-format", T_ENUM, OFF(format), format_choices, 0, 0, "FMT",
	  "normal or json" },
	{ "eta", T_ENUM, OFF(eta), eta_choices, 0, 0, "WHEN",
	  "progress line: auto (stdout a terminal), always, never" },
	{ "output", T_STR, OFF(output), NULL, 0, 0, "PATH",
	  "write the report to this file" },
	{ "allow-destroy", T_BOOL, OFF(allow_destroy), NULL, 0, 0, NULL,
	  "write to a device even if mounted, held or formatted" },
	{ "sweep", T_STR, OFF(sweep), NULL, 0, 0, "WHAT",
	  "iodepth: depths 1, 2, 4... to the best; zones[:N]: MB/s across it" },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

/* Other names fio gives the same option; --help lists each after it. */
static const struct alias {
	const char *name, *of;
} aliases[] = {
	{ "readwrite", "rw" }, { "threads", "thread" }, { "blocksize", "bs" },
	{ "blocksize_range", "bsrange" }, { "ba", "blockalign" },
	{ "timeout", "runtime" }, { "wait_for_previous", "stonewall" },
	{ "io_limit", "io_size" }, { "steadystate", "ss" },
	{ "steadystate_duration", "ss_dur" }, { "steadystate_ramp_time", "ss_ramp" },
};

#define NALIASES (sizeof(aliases) / sizeof(aliases[0]))

void load_opts_init(struct load_job_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->rw = LOAD_RW_READ;
	o->rwmixread = 50;
	o->bs = 4096;
	for (int d = 0; d < LOAD_DIRS; d++)
		o->bsz[d].min = o->bsz[d].max = o->bs;
	o->ioengine = load_engine_find(NULL);
	o->iodepth = 1;
	o->numjobs = 1;
	o->cpus_policy = LOAD_CPUS_SPLIT;
	o->bw_avg_ms = 500;
	o->iops_avg_ms = 500;
	o->nrfiles = 1;
	o->loops = 1;
	o->think_blocks = 1;
	o->invalidate = true;
	o->fadvise_hint = true;
	o->randrepeat = true;
	o->allow_file_create = true;
	o->do_verify = true;
	o->fallocate = LOAD_FALLOC_NATIVE;
	o->fixedbufs = true;
	o->registerfiles = true;
	o->nonvectored = true;
	o->prio = o->prioclass = LOAD_PRIO_UNSET;
	/* fio's default criterion, used once ss_dur is given. */
	o->ss_flags = LOAD_SS_IOPS | LOAD_SS_SLOPE | LOAD_SS_PCT;
	o->ss_limit = 0.01;
	/* fio's default seed, so that runs repeat as fio's do. */
	o->randseed = 0x89;
}

/* The option called `name`, by its own name or another of fio's. */
static const struct opt *find(const char *name)
{
	for (size_t i = 0; i < NOPTS; i++) {
		if (!strcmp(opts[i].name, name))
			return &opts[i];
	}
	for (size_t i = 0; i < NALIASES; i++) {
		if (!strcmp(aliases[i].name, name))
			return find(aliases[i].of);
	}
	return NULL;
}

bool load_opt_known(const char *name)
{
	return find(name) != NULL;
}

/* fio takes these only on its command line, not in a job file. */
bool load_opt_cmdline_only(const char *name)
{
	return !strcmp(name, "output-format") || !strcmp(name, "output") ||
	       !strcmp(name, "allow-destroy") || !strcmp(name, "sweep") ||
	       !strcmp(name, "eta");
}

bool load_opt_run_wide(const char *name)
{
	return load_opt_cmdline_only(name) || !strcmp(name, "group_reporting");
}

bool load_opt_is_flag(const char *name)
{
	const struct opt *op = find(name);

	return op && (op->type == T_BOOL || op->type == T_NOT);
}

static int parse_bool(const char *s, bool *b)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	if (!s) {
		*b = true;
		return 0;
	}
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*b = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -1;
}

static void remember(struct load_job_opts *o, const char *name,
		     const char *value)
{
	/* The JSON shows each option once, with the value that counts. */
	for (int i = 0; i < o->ngiven; i++) {
		if (!strcmp(o->given[i].name, name)) {
			o->given[i].value = value;
			return;
		}
	}
	if (o->ngiven < LOAD_MAX_GIVEN)
		o->given[o->ngiven++] = (struct load_given){ name, value };
}

/* fio's "read,write,trim" values: "a" is all three, "a,b" is b for writes
 * and trims, an empty part keeps that direction as it was.  Copies the
 * parts into buf and points part[] at them; NULL for a kept one. */
static int split_dirs(const char *value, char *buf, size_t len,
		      char *part[LOAD_DIRS])
{
	char *p[LOAD_DIRS + 1];
	int n = 0;

	if (snprintf(buf, len, "%s", value) >= (int)len)
		return -1;
	p[n++] = buf;
	for (char *c = buf; *c; c++) {
		if (*c != ',')
			continue;
		if (n == LOAD_DIRS)
			return -1;
		*c = '\0';
		p[n++] = c + 1;
	}
	for (int d = 0; d < LOAD_DIRS; d++) {
		char *v = p[d < n ? d : n - 1];

		part[d] = *v ? v : NULL;
	}
	return 0;
}

static int set_dirs(struct load_job_opts *o, const struct opt *op,
		    const char *value, const char **err)
{
	char buf[1024], *part[LOAD_DIRS];

	*err = "bad value";
	if (split_dirs(value, buf, sizeof(buf), part)) {
		*err = "at most three values: read,write,trim";
		return -1;
	}
	for (int d = 0; d < LOAD_DIRS; d++) {
		unsigned long v;
		char *end;
		__u64 sz;

		if (!part[d])
			continue;
		switch (op->type) {
		case T_BSRANGE:
			if (load_bs_parse_range(part[d], &o->bsz[d], err))
				return -1;
			break;
		case T_BSSPLIT:
		case T_PRIOSPLIT: {
			/* The same text may be all three parts: parse a copy. */
			char one[sizeof(buf)];

			snprintf(one, sizeof(one), "%s", part[d]);
			if (op->type == T_BSSPLIT ? load_bs_parse_split(one, &o->bsz[d], err) :
			    load_prio_parse_split(one, &o->cmdprio_split[d], err))
				return -1;
			break;
		}
		case T_DIRSIZE:
		case T_DIRRATE:
			if (parse_size(part[d], &sz) || (!sz && op->type == T_DIRSIZE)) {
				*err = "must be a size above 0";
				return -1;
			}
			*(op->type == T_DIRSIZE ? &o->blockalign[d] : &o->rate[d]) = sz;
			break;
		default:
			errno = 0;
			v = strtoul(part[d], &end, 10);
			if (errno || *end || !isdigit((unsigned char)*part[d]) ||
			    v < op->min || v > op->max) {
				*err = "must be a whole number in range";
				return -1;
			}
			((unsigned int *)((char *)o + op->off))[d] = v;
			break;
		}
	}
	return 0;
}

static int parse_offset(struct load_job_opts *o, const char *value)
{
	char *end;
	unsigned long v;
	size_t n = strlen(value);

	if (n < 2 || value[n - 1] != '%') {
		o->offset_pct = 0;
		return parse_size(value, &o->offset);
	}
	errno = 0;
	v = strtoul(value, &end, 10);
	if (errno || end != value + n - 1 || !isdigit((unsigned char)*value) ||
	    v > 100)
		return -1;
	o->offset = 0;
	o->offset_pct = v;
	return 0;
}

/* A whole number from min to max into *v; -1 with *err the range. */
static int parse_uint(const char *value, unsigned int min, unsigned int max,
		      unsigned int *v, const char **err)
{
	static __thread char why[64];
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(value, &end, 10);
	if (!errno && end != value && !*end && *value != '-' && n >= min && n <= max) {
		*v = n;
		return 0;
	}
	if (min == max)
		snprintf(why, sizeof(why), "iolens supports only %u", min);
	else
		snprintf(why, sizeof(why), "must be a whole number from %u to %u", min, max);
	*err = why;
	return -1;
}

/* "want one of: read write ..." */
static const char *choices_text(const struct choice *c)
{
	static char msg[256];
	size_t n = snprintf(msg, sizeof(msg), "want one of:");

	for (; c->name && n < sizeof(msg); c++)
		n += snprintf(msg + n, sizeof(msg) - n, " %s", c->name);
	return msg;
}

/* The value of `name` among `c`; -1 with *err the choices. */
static int choose(const struct choice *c, const char *name, int *v, const char **err)
{
	for (const struct choice *k = c; k->name; k++) {
		if (!strcmp(k->name, name)) {
			*v = k->val;
			return 0;
		}
	}
	*err = choices_text(c);
	return -1;
}

/* fio's rw=PATTERN[:SIZE]: a sequential pattern skips SIZE after each
 * I/O, or steps back with a negative one ("read:-8k" reads backwards). */
static int parse_rw(struct load_job_opts *o, const struct opt *op, const char *value,
		    const char **err)
{
	char name[32];
	size_t n = strcspn(value, ":");
	const char *step = value[n] ? value + n + 1 : NULL;
	__u64 v;

	if (n >= sizeof(name)) {
		*err = choices_text(op->choices);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)n, value);
	if (choose(op->choices, name, &o->rw, err))
		return -1;
	o->seq_add = 0;
	if (!step)
		return 0;
	if (load_rw_random(o->rw)) {
		/* fio's rw_sequencer: not taken, so refused rather than
		 * run as something else. */
		*err = "a random pattern's ':N' (fio's rw_sequencer) is not supported";
		return -1;
	}
	*err = "want PATTERN:SIZE, e.g. read:8k or read:-8k";
	if (parse_size(step + (*step == '-'), &v) || v > (1ULL << 62))
		return -1;
	o->seq_add = *step == '-' ? -(__s64)v : (__s64)v;
	return 0;
}

int load_opt_set(struct load_job_opts *o, const char *name, const char *value,
		 const char **err)
{
	const struct opt *op = find(name);
	void *p;

	if (!op) {
		*err = "unknown option";
		return -1;
	}
	p = (char *)o + op->off;
	/* A bare write_bw_log in a job file: the file named after the job. */
	if (!value && op->type == T_LOGNAME)
		value = "";
	if (!value && op->type != T_BOOL && op->type != T_NOT) {
		*err = "needs a value";
		return -2;
	}
	*err = "bad value";
	switch (op->type) {
	case T_STR:
		if (!*value)
			return -2;
		*(char **)p = (char *)value;
		break;
	case T_LOGNAME:
		*(char **)p = (char *)value;
		break;
	case T_SIZE:
		if (parse_size(value, p))
			return -2;
		break;
	case T_U64: {
		char *end;

		errno = 0;
		*(__u64 *)p = strtoull(value, &end, 0);
		if (errno || end == value || *end || *value == '-')
			return -2;
		break;
	}
	case T_UINT:
		if (parse_uint(value, op->min, op->max, p, err))
			return -2;
		break;
	case T_BOOL:
		if (parse_bool(value, p))
			return -2;
		break;
	case T_TIME:
	case T_USEC:
		if (parse_duration(value, op->type == T_USEC ? 1e3 : 1e9, p))
			return -2;
		break;
	case T_RW:
		if (parse_rw(o, op, value, err))
			return -2;
		break;
	case T_OFFSET:
		if (parse_offset(o, value)) {
			*err = "want a size or a percentage, 0% to 100%";
			return -2;
		}
		break;
	case T_ENGINE: {
		const struct load_engine *e = load_engine_find(value);

		if (!e) {
			*err = load_engines_text();
			return -2;
		}
		*(const struct load_engine **)p = e;
		break;
	}
	case T_CPUS:
		if (load_cpus_parse(value, p, err))
			return -2;
		break;
	case T_DIST:
		if (load_dist_parse(value, p, err))
			return -2;
		break;
	case T_STEADY:
		if (load_steady_parse(value, o, err))
			return -2;
		break;
	case T_NOT:
		if (parse_bool(value, p))
			return -2;
		*(bool *)p = !*(bool *)p;
		break;
	case T_PCT_OTHER: {
		unsigned int v;

		if (parse_uint(value, 0, 100, &v, err))
			return -2;
		*(unsigned int *)p = 100 - v;
		break;
	}
	case T_BSRANGE:
	case T_BSSPLIT:
	case T_DIRSIZE:
	case T_DIRUINT:
	case T_DIRRATE:
	case T_PRIOSPLIT:
		if (set_dirs(o, op, value, err))
			return -2;
		break;
	case T_ENUM:
		if (choose(op->choices, value, p, err))
			return -2;
		break;
	}
	if (op->type == T_SIZE && op->off == OFF(bs)) {
		if (!o->bs) {
			*err = "must be more than 0";
			return -2;
		}
		/* The last of --bs, --bsrange and --bssplit counts. */
		for (int d = 0; d < LOAD_DIRS; d++)
			o->bsz[d] = (struct load_bs){ .min = o->bs, .max = o->bs };
	}
	/* By the table's own name: it outlives the caller's text, and
	 * the sweep asks for bs and direct by theirs. */
	remember(o, op->name, value ? value : "1");
	return 0;
}

void load_opts_each(void (*fn)(const char *name, const char *arg,
				const char *choices, const char *help, void *ctx),
		    void *ctx)
{
	char names[256];

	for (size_t i = 0; i < NOPTS; i++) {
		const char *c = NULL;

		/* "want one of: a b c" without its first three words. */
		if (opts[i].choices)
			c = choices_text(opts[i].choices) + strlen("want one of: ");
		else if (opts[i].type == T_ENGINE)
			c = load_engines_text() + strlen("want one of: ");
		if (c) {
			snprintf(names, sizeof(names), "%s", c);
			c = names;
		}
		fn(opts[i].name, opts[i].arg, c, opts[i].help, ctx);
		for (size_t k = 0; k < NALIASES; k++) {
			char same[64];

			if (strcmp(aliases[k].of, opts[i].name))
				continue;
			snprintf(same, sizeof(same), "same as --%s", opts[i].name);
			fn(aliases[k].name, opts[i].arg, c, same, ctx);
		}
	}
}

static void help_line(const char *name, const char *arg, const char *choices,
		      const char *help, void *f)
{
	char lhs[40];

	(void)choices;
	snprintf(lhs, sizeof(lhs), "--%s%s%s", name, arg ? "=" : "", arg ? arg : "");
	/* Two spaces at least before the help: the man page's OPTIONS are
	 * read from these lines (tools/mkman.py). */
	fprintf(f, "  %-26s %s%s\n", lhs, strlen(lhs) >= 26 ? " " : "", help);
}

void load_opts_help(FILE *f)
{
	load_opts_each(help_line, f);
}

static const char *choice_name(const struct choice *c, int val)
{
	for (; c->name; c++) {
		if (c->val == val)
			return c->name;
	}
	return "?";
}

const char *load_rw_name(int rw)
{
	return choice_name(rw_choices, rw);
}
