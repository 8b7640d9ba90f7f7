/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load's own: the options (load_opts.c, by the table of options.def), what
 * a job's options mean for its I/O (load_shape.c), and the list of jobs
 * that the command line (load_args.c) and the job files (load_jobfile.c)
 * fill.
 */
#ifndef IOLENS_LOAD_OPTS_H
#define IOLENS_LOAD_OPTS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "load/load.h"

#define LOAD_CMD "load"

enum load_eta { LOAD_ETA_AUTO, LOAD_ETA_ALWAYS, LOAD_ETA_NEVER };

/* Whether the job was given option `name` (by the table's name), fio's
 * fio_option_is_set(). */
bool load_opt_given(const struct load_job_opts *o, const char *name);

/* Whether `name` is an option that takes no value (a flag). */
bool load_opt_is_flag(const char *name);

/* Whether `name` is a setting of the whole run rather than of a job. */
bool load_opt_run_wide(const char *name);

/* Whether `name` is taken only on the command line (as fio's). */
bool load_opt_cmdline_only(const char *name);

/* The options and their help, for --help. */
void load_opts_help(FILE *f);

/* Whether the job's --rw issues I/O of direction `dir`. */
bool load_dir_used(const struct load_job_opts *o, int dir);

/* fio's bsrange "MIN-MAX" into *b: 0, or -1 with *err the reason. */
int load_bs_parse_range(const char *s, struct load_bs *b, const char **err);
/* fio's bssplit "SIZE/PCT:..." (s is cut up) into *b: an empty or 0 share
 * is a share of what the others leave, evenly (the rounding goes to the
 * first); 0, or -1 with *err the reason. */
int load_bs_parse_split(char *s, struct load_bs *b, const char **err);

/* The smallest and largest block size of the directions the job issues. */
__u64 load_bs_min(const struct load_job_opts *o);
__u64 load_bs_max(const struct load_job_opts *o);

/* The alignment of random offsets of direction `dir`: --blockalign, or by
 * default the smallest block size of that direction, as fio's. */
__u64 load_blockalign(const struct load_job_opts *o, int dir);

const char *load_rw_name(int rw);
/* A random pattern: randread, randwrite, randrw, randtrim. */
bool load_rw_random(int rw);

/* ---- the list of jobs: load_jobfile.c ---- */

/* Jobs of one run, at most: each costs its options' room (about 120 KiB),
 * and fio's job files rarely hold more than a handful. */
#define LOAD_MAX_JOBS 256

/* A new job, from the global options, at the end of js->v; NULL with
 * errno E2BIG (LOAD_MAX_JOBS reached) or ENOMEM. */
struct load_job_opts *load_jobs_add(struct load_jobs *js);

/* Keeps `s` (malloc'd: a text, or the files of a job) for as long as the
 * jobs, whose options may point into it; 0, or -1 (out of memory, `s`
 * freed). */
int load_jobs_keep(struct load_jobs *js, void *s);

/* The line for a failed load_jobs_add(), and the exit code. */
int load_jobs_add_failed(void);

/* Sets each job's groupid from stonewall and new_group, as fio's, and
 * checks that each wait_for names a job before it: 0, or the exit code
 * after one line. */
int load_jobs_group(struct load_jobs *js);

#endif
