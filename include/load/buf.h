/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load's own: what a job's writes carry (load_buf.c), as fio fills its
 * buffers: random, zeros or a pattern, a share compressible, a share
 * repeated (dedupe), refilled each write or scrambled by its offset and
 * time.
 */
#ifndef IOLENS_LOAD_BUF_H
#define IOLENS_LOAD_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "load/load.h"

struct load_thread;
struct load_io;

/* len bytes of p from the generator seeded by seed: the same bytes for
 * the same seed. */
void load_buf_random(void *p, size_t len, __u64 seed);

/* The pattern over len bytes of p, from its start; zeros if none. */
void load_pattern_fill(const struct load_pattern *pat, void *p, size_t len);

/* What is wrong with the job's buffer options, NULL if nothing.  prev:
 * as load_steady_conflict's, unused. */
const char *load_buf_check(const struct load_job_opts *o,
			   const struct load_job_opts *prev);

/* Before the threads start: each one's data seed, and the working sets
 * of dedupe_mode=working_set (dedupe_global: from every thread's seeds).
 * 0, or -ENOMEM. */
int load_buf_plan(struct load_thread *th, unsigned int n);

/* The thread's buffers filled before its first write. */
void load_buf_start(struct load_thread *t);

/* A write's buffer, just before it goes, at `now`. */
void load_buf_fill(struct load_thread *t, struct load_io *io, __u64 now);

#endif
