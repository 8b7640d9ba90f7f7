/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load's own: fio's steady state (load_steady.c).  Once a second the
 * monitor measures each job's (or with group_reporting each group's) IOPS
 * and bandwidth; a job whose last ss_dur seconds of them lie within ss's
 * limit, by the largest deviation from their mean or by the slope of
 * their least-squares line, has attained its steady state and ends.
 */
#ifndef IOLENS_LOAD_STEADY_H
#define IOLENS_LOAD_STEADY_H

#include <stdbool.h>
#include <linux/types.h>
#include "load/load.h"

struct load_thread;

/* What a job (or group) measured: a ring of ss_dur samples a second. */
struct load_steady {
	unsigned int flags;	/* LOAD_SS_* of the option */
	bool attained;
	bool full;		/* the ring has gone round once */
	double limit;
	double slope, deviation, criterion;
	unsigned int dur, head, tail;
	__u64 *iops, *bw;	/* I/Os and bytes a second */
	__u64 sum_y, sum_xy, oldest_y;
	__u64 sum_x, sum_x_sq;
};

/* "iops:10%", "bw_slope:1m" into the job's options: 0, or -1 with *err. */
int load_steady_parse(const char *value, struct load_job_opts *o, const char **err);

/* What is wrong with the job's steady state options, NULL if nothing; prev
 * the job before it in its reporting group (fio wants them alike), or
 * NULL. */
const char *load_steady_conflict(const struct load_job_opts *o,
				 const struct load_job_opts *prev);

struct load_steady_run;

/* The measures of a run's threads: th[i].ss set for each job (or the last
 * thread of each group) with ss_dur.  NULL when none has one, or out of
 * memory (said). */
struct load_steady_run *load_steady_new(struct load_thread *th, unsigned int n,
					bool group_reporting);
/* The check of a second, at `now`; `ended[i]` says thread i has ended.
 * Returns when the next is due. */
__u64 load_steady_check(struct load_steady_run *r, const bool *ended, __u64 now);
/* Frees the run's own; the threads' ss stay for the report. */
void load_steady_end(struct load_steady_run *r);
void load_steady_free(struct load_steady *ss);

/* fio's mean of the samples in the ring. */
__u64 load_steady_mean(const struct load_steady *ss, bool iops);

#endif
