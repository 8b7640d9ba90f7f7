// SPDX-License-Identifier: GPL-2.0
/*
 * The options of iolens load, fio's names and meanings: one row each, the
 * choices of those that take a name.  load_opts.c parses by it.
 */
#include <stddef.h>
#include "load/cpus.h"
#include "load/load.h"
#include "load/opt_table.h"
#include "load/opts.h"
#include "load/verify.h"

const struct load_choice load_rw_choices[] = {
	{ "read", LOAD_RW_READ }, { "write", LOAD_RW_WRITE },
	{ "randread", LOAD_RW_RANDREAD }, { "randwrite", LOAD_RW_RANDWRITE },
	{ "rw", LOAD_RW_RW }, { "readwrite", LOAD_RW_RW },
	{ "randrw", LOAD_RW_RANDRW }, { "trim", LOAD_RW_TRIM },
	{ "randtrim", LOAD_RW_RANDTRIM }, { NULL, 0 },
};

static const struct load_choice eta_choices[] = {
	{ "auto", LOAD_ETA_AUTO }, { "always", LOAD_ETA_ALWAYS },
	{ "never", LOAD_ETA_NEVER }, { NULL, 0 },
};

static const struct load_choice cpus_policy_choices[] = {
	{ "split", LOAD_CPUS_SPLIT }, { "shared", LOAD_CPUS_SHARED }, { NULL, 0 },
};

static const struct load_choice fallocate_choices[] = {
	{ "none", LOAD_FALLOC_NONE }, { "0", LOAD_FALLOC_NONE },
	{ "truncate", LOAD_FALLOC_NONE }, { "posix", LOAD_FALLOC_POSIX },
	{ "1", LOAD_FALLOC_POSIX }, { "keep", LOAD_FALLOC_KEEP },
	{ "native", LOAD_FALLOC_NATIVE }, { NULL, 0 },
};

static const struct load_choice verify_choices[] = {
	{ "0", LOAD_VERIFY_NONE }, { "crc32c", LOAD_VERIFY_CRC32C },
	{ "crc32c-intel", LOAD_VERIFY_CRC32C }, { NULL, 0 },
};

static const struct load_choice think_type_choices[] = {
	{ "complete", 0 }, { "issue", 1 }, { NULL, 0 },
};

static const struct load_choice exit_what_choices[] = {
	{ "group", LOAD_EXIT_GROUP }, { "stonewall", LOAD_EXIT_STONEWALL },
	{ "all", LOAD_EXIT_ALL }, { NULL, 0 },
};

/* fio's zbd, for zoned block devices, is not taken: refused by name. */
static const struct load_choice zonemode_choices[] = {
	{ "none", LOAD_ZONE_NONE }, { "strided", LOAD_ZONE_STRIDED }, { NULL, 0 },
};

static const struct load_choice rate_process_choices[] = {
	{ "linear", 0 }, { "poisson", 1 }, { NULL, 0 },
};

/* fio's generators of random offsets; iolens's keyed permutation stands
 * for all three (fio's counts, in another order). */
static const struct load_choice generator_choices[] = {
	{ "tausworthe", 0 }, { "lfsr", 1 }, { "tausworthe64", 2 }, { NULL, 0 },
};

static const struct load_choice format_choices[] = {
	{ "normal", LOAD_FMT_NORMAL }, { "json", LOAD_FMT_JSON },
	{ "terse", LOAD_FMT_TERSE }, { NULL, 0 },
};

#define OFF(f) offsetof(struct load_job_opts, f)

const struct load_opt load_opt_table[] = {
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
	{ "latency_target", T_USEC, OFF(latency_target_ns), NULL, 0, 0, "TIME",
	  "find the deepest queue whose I/Os take at most this (us, or 2ms...)" },
	{ "latency_window", T_USEC, OFF(latency_window_ns), NULL, 0, 0, "TIME",
	  "how long each depth is tried (us)" },
	{ "latency_percentile", T_PCT_F, OFF(latency_pct), NULL, 0, 0, "PCT",
	  "the share of I/Os that must meet it (default 100)" },
	{ "latency_run", T_BOOL, OFF(latency_run), NULL, 0, 0, "0|1",
	  "keep searching instead of ending at the depth found" },
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
	{ "rw", T_RW, OFF(rw), load_rw_choices, 0, 0, "PATTERN[:SIZE]",
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
	  "normal, json or terse (fio's ';' fields, a line a job)" },
	{ "terse-version", T_UINT, OFF(terse_version), NULL, 2, 5, "N",
	  "the terse format's version (default 3)" },
	{ "minimal", T_BOOL, OFF(minimal), NULL, 0, 0, NULL,
	  "the terse format" },
	{ "eta", T_ENUM, OFF(eta), eta_choices, 0, 0, "WHEN",
	  "progress line: auto (stdout a terminal), always, never" },
	{ "output", T_STR, OFF(output), NULL, 0, 0, "PATH",
	  "write the report to this file" },
	{ "allow-destroy", T_BOOL, OFF(allow_destroy), NULL, 0, 0, NULL,
	  "write to a device even if mounted, held or formatted" },
	{ "sweep", T_STR, OFF(sweep), NULL, 0, 0, "WHAT",
	  "iodepth: depths 1, 2, 4... to the best; zones[:N]: MB/s across it" },
};

const size_t load_opt_table_n = sizeof(load_opt_table) / sizeof(load_opt_table[0]);

const struct load_opt_alias load_opt_aliases[] = {
	{ "readwrite", "rw" }, { "threads", "thread" }, { "blocksize", "bs" },
	{ "blocksize_range", "bsrange" }, { "ba", "blockalign" },
	{ "timeout", "runtime" }, { "wait_for_previous", "stonewall" },
	{ "io_limit", "io_size" }, { "steadystate", "ss" },
	{ "steadystate_duration", "ss_dur" }, { "steadystate_ramp_time", "ss_ramp" },
};

const size_t load_opt_aliases_n = sizeof(load_opt_aliases) / sizeof(load_opt_aliases[0]);
