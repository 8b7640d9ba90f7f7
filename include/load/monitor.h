/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load's own: while the jobs run, the main thread starts and watches them
 * (load_monitor.c), takes their bw and IOPS samples (load_samples.c) and
 * shows the progress line (load_progress.c).
 */
#ifndef IOLENS_LOAD_MONITOR_H
#define IOLENS_LOAD_MONITOR_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "load/load.h"

struct load_thread;

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

#endif
