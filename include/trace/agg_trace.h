/* SPDX-License-Identifier: GPL-2.0 */
/* The in-kernel aggregation (bpf/agg.bpf.c): load, attach, and read its
 * maps (per-CPU counters, histograms shared by the CPUs and read in place)
 * as per-device differences between two reads. */
#ifndef IOLENS_AGG_TRACE_H
#define IOLENS_AGG_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "bpf/agg.h"
#include "trace/agg_fail.h"

struct diskstat;

/* Whether `f` filters anything. */
static inline bool stat_proc_filter_set(const struct iolens_proc_filter *f)
{
	return f->npid || f->comm[0] || f->cgroup_level;
}

/* The histograms each command keeps (it adds its options' own): one
 * place, for the commands and for what doctor says they take. */
#define AGG_KINDS_STAT		(1U << IOLENS_H_TOTAL | 1U << IOLENS_H_QD)
#define AGG_KINDS_LAT		(1U << IOLENS_H_DEVICE)	/* biolatency's default */
#define AGG_KINDS_TOP		(1U << IOLENS_H_TOTAL | 1U << IOLENS_H_SIZE | \
				 1U << IOLENS_H_MISALIGNED)
#define AGG_KINDS_SERVE	(1U << IOLENS_H_TOTAL | 1U << IOLENS_H_QUEUE | \
				 1U << IOLENS_H_DEVICE)
#define AGG_KINDS_SERVE_DETAIL	(AGG_KINDS_SERVE | 1U << IOLENS_H_QD)

/* The op groups' names (enum iolens_sgrp), as stat, lat and serve print
 * them: one spelling in every report. */
extern const char *const agg_group_names[IOLENS_SG_NR];

struct agg_trace_opts {
	const __u32 *devs;	/* whole disks to keep, ndev of them; 0 = all */
	int ndev;
	bool partitions;	/* one slot per partition */
	bool own_clock;		/* stamp every issue ourselves */
	unsigned int kinds;	/* histograms: bits 1 << IOLENS_H_* */
	/* `iolens lat`: times end at the driver's completion, and only the
	 * histograms are kept (IOLENS_STAT_LAT). */
	bool lat;
	bool by_proc;		/* histograms per submitting process */
	bool by_flags;		/* histograms per request flags */
	bool by_hwq;		/* a disk's figures per hardware queue */
	/* `iolens lat`: histograms per hardware queue, per status (failures
	 * timed into theirs, not counted apart). */
	bool key_hwq, key_status, key_cgroup;
	bool key_stack;		/* histograms per submitting kernel stack */
	/* Only these submitters' requests; NULL or empty: all. */
	const struct iolens_proc_filter *proc;
	/* Count read-modify-write reads (where IOLENS_RMW_COUNTED). */
	bool rmw;
	/* IOLENS_STAT_LABEL_* bits: requests and bytes by label set, at most
	 * max_labels sets (agg_trace_labels()). */
	unsigned int labels;
	int max_labels;
	/* With `lat` and no queue depth or size histogram, the issue hook
	 * is there only to stamp requests the kernel does not (queues
	 * without QUEUE_FLAG_STATS): attached once a completion lacked a
	 * stamp (events lost "no_stamp"), not before. */
	bool issue_on_demand;
};

/* The requests and bytes of one label set so far (since the start: the
 * kernel's map is never reset), with the device of its slot. */
struct stat_label {
	struct iolens_label_key key;
	__u32 dev;
	struct iolens_label_count n;
};

/* One histogram of a split by process or flags, over the last interval. */
struct agg_keyed {
	struct iolens_lat_key key;
	__u32 dev;			/* of key.slot */
	char comm[IOLENS_COMM_LEN];	/* of key.tgid */
	__u64 sum;			/* of the values (bytes, ns) */
	__u64 hist[HIST_BUCKETS];
	/* Of key.stack: its frames, innermost first, 0 past the last; all 0
	 * where unknown. */
	__u64 stack[IOLENS_STACK_DEPTH];
};

/* One device over one interval: CPUs summed, previous read subtracted. */
struct agg_dev {
	__u32 dev;		/* 0 = slot unused */
	struct iolens_stat op[IOLENS_SG_NR];
	__u64 busy_ns;		/* time with a request issued and not completed */
	/* Completions the kernel did not run our hook for, found in this
	 * interval: busy_ns is then unknown (see agg_trace_read()). */
	__u64 missed;
	__u64 io_ticks_ns;	/* the kernel's own busy time (diskstats' io_ticks) */
	/* diskstats' weighted time (iostat's aqu-sz over the interval) and
	 * requests in flight at the read: both 0 where not known (gone). */
	__u64 weighted_ns;
	__u64 inflight_now;
	__u64 busy_periods;	/* idle to busy, in this interval */
	/* Its disk takes bios, not requests (zram, dm, md, NVMe multipath):
	 * ios, bytes, merges and times are the kernel's diskstats (the bios
	 * timed with a process filter); histograms are of bios; no busy
	 * time. */
	bool bio_based;
	/* The kernel no longer has it (its sysfs stat cannot be read). */
	bool gone;
	/* Whole disks: the age of the oldest request issued and not
	 * completed at the read, a lower bound within 2^IOLENS_AGE_SHIFT ns;
	 * 0: none.  `oldest_beyond`: older than the epochs told apart, the
	 * age is then that bound. */
	__u64 oldest_ns;
	bool oldest_beyond;
	/* The request the disk watches (watch.rq 0: none), with its age. */
	struct iolens_watch watch;
	__u64 watch_age_ns;
	/* Of op[]'s ios and bytes, those of ops that are not their group's
	 * own, by the kernel's op (struct iolens_op_count). */
	struct iolens_op_count other_ops[IOLENS_KOPS];
	/* With by_hwq, a disk's: its figures by hardware queue, IOLENS_HWQ_MAX
	 * of them (inflight at the read, the rest over the interval); else
	 * NULL. */
	struct iolens_hwq_stat *hwq;
	/* Histograms of the kinds asked for, NULL for the others, and how
	 * many values each holds (to skip the empty ones). */
	__u64 *hist[IOLENS_SG_NR][IOLENS_H_NR];
	__u64 hist_n[IOLENS_SG_NR][IOLENS_H_NR];
	__u64 *hist_mem;	/* owns them */
};

struct agg_trace;

/* Checks privileges, loads and attaches.  On failure prints one line for
 * `cmd` and returns NULL. */
struct agg_trace *agg_trace_start(const char *cmd,
				    const struct agg_trace_opts *o);

/*
 * Reads the maps: afterwards agg_trace_dev() holds what happened since the
 * previous read (or since the start).  A disk idle for a whole interval
 * that our count still has requests in flight on, while the kernel has
 * none, lost completions (the kernel now and then skips the hook): they are
 * taken off its in-flight count, counted in `missed`, and its busy time of
 * this interval is unknown.  0 or -errno.
 */
int agg_trace_read(struct agg_trace *st);

/* CLOCK_MONOTONIC of the last read (of the start before any). */
__u64 agg_trace_read_ns(const struct agg_trace *st);

/* Seconds between the last two reads (the start and the first read). */
double agg_trace_interval_s(const struct agg_trace *st);

/* Whether d's busy_ns is unknown, so that the kernel's io_ticks must stand
 * in: a completion was missed, or ours exceeds io_ticks by more than its
 * jiffy rounding allows. */
bool agg_dev_busy_unknown(const struct agg_dev *d);

int agg_trace_nslots(const struct agg_trace *st);

/* Whether it keeps figures by hardware queue (agg_dev.hwq). */
bool agg_trace_by_hwq(const struct agg_trace *st);

/* Slot `i` over the last interval; NULL if no device holds it. */
const struct agg_dev *agg_trace_dev(const struct agg_trace *st, int i);

/* With by_proc or by_flags: the split histograms over the last interval
 * (those without a value in it too), 0 <= i < agg_trace_nkeyed(). */
int agg_trace_nkeyed(const struct agg_trace *st);
const struct agg_keyed *agg_trace_keyed(const struct agg_trace *st, int i);

/* Failed requests by device slot, op group, status (and with by_proc
 * submitter): totals and the last interval's, 0 <= i < nfailures; those
 * the map had no room for are counted in lost.no_fail_key only. */
int agg_trace_nfailures(const struct agg_trace *st);
const struct agg_failure *agg_trace_failure(const struct agg_trace *st, int i);

/* With labels: every label set so far, in *out (malloc'd, the caller
 * frees it).  How many, or -errno. */
int agg_trace_labels(const struct agg_trace *st, struct stat_label **out);

/* Events the aggregation could not keep: devices beyond the slot table,
 * issue stamps lost from the own-clock map, values of splits beyond the
 * table of them. */
void agg_trace_losses(const struct agg_trace *st,
		       struct iolens_stat_counters *lost);

/* A zeroed device with histograms of the kinds `st` keeps, to sum slots
 * into (a disk and its partitions, all disks); NULL if out of memory. */
struct agg_dev *agg_dev_new(const struct agg_trace *st);
void agg_dev_zero(struct agg_dev *d);
/* dst += src: counters, busy time, missed completions, io_ticks and
 * histograms. */
void agg_dev_add(struct agg_dev *dst, const struct agg_dev *src);
/* Differences of one histogram's 32-bit counts since the last read (prev,
 * updated) into `out`, modulo 2^32 (see struct iolens_hist): a count taken
 * back cancels the one it takes back, wherever it was made.  Returns how
 * many values the interval holds. */
__u64 agg_hist_delta(const volatile struct iolens_hist *h, __u32 *prev, __u64 *out);
/*
 * d's counts as the kernel's diskstats deltas from `prev` to `now`: a
 * bio-based disk's (its driver accounts each bio it takes, as it sees fit:
 * dm and md once per bio they were given, zram per bio).  Not with a
 * process filter: those counts are every process's, so the bios timed are
 * counted instead.
 */
void agg_dev_kernel_counts(struct agg_dev *d, const struct diskstat *now,
			   const struct diskstat *prev);
/* The counters of CPUs summed (v: ncpu of them), and a - b. */
void agg_stat_sum(struct iolens_stat *dst, const struct iolens_stat *v,
		  int ncpu);
void agg_stat_sub(struct iolens_stat *d, const struct iolens_stat *a,
		  const struct iolens_stat *b);
/* d->other_ops from the map's counts `now` of its slot, since `prev`,
 * which becomes `now`. */
void agg_dev_other_ops(struct agg_dev *d, struct iolens_op_count *prev,
		       const volatile struct iolens_op_count *now);
void agg_dev_free(struct agg_dev *d);

/* Whether `d` (a disk called `name`) has had a request in flight for
 * stuck_ns or more (0: never asked); its warning line, sanitized for a
 * terminal, into buf: the age, and the request when it is the one the
 * disk watches (its op, size, sector and submitter). */
bool agg_dev_stuck(const struct agg_dev *d, const char *name, __u64 stuck_ns,
		   char *buf, size_t len);

/* Descriptors of the programs loaded, at most `max` of them, for their run
 * statistics (struct bpf_prog_info run_time_ns, run_cnt); owned by `st`.
 * Returns how many. */
int agg_trace_prog_fds(const struct agg_trace *st, int *fds, int max);

void agg_trace_stop(struct agg_trace *st);

/* The object file of bpf/agg.bpf.c, for trace/hooks.c. */
/* The kernel memory the maps of `o` take on this machine (made, not
 * used: no program is loaded); 0 if they cannot be made. */
__u64 agg_trace_memory(const struct agg_trace_opts *o);

const void *agg_trace_elf(size_t *sz);

#endif
