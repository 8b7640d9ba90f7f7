/* SPDX-License-Identifier: GPL-2.0 */
/* load's own: the files a job makes when it names none, as fio makes them
 * (load_files.c). */
#ifndef IOLENS_LOAD_FILES_H
#define IOLENS_LOAD_FILES_H

#include <stdio.h>
#include "load/load.h"

struct load_target;

/*
 * Names the file of every job that has no --filename and an engine that
 * does I/O: fio's filename_format under --directory, one file per job
 * thread, so that a job of numjobs=N becomes N jobs of one thread each
 * (as fio reports them).  Returns 0, or the exit code after one line.
 */
int load_files_name(struct load_jobs *js);

/* The files of a job: nrfiles of its own, or the one it names. */
unsigned int load_nfiles(const struct load_job_opts *o);
/* File k of a job as a job of one file: its own options, or o itself. */
struct load_job_opts *load_file_opts(struct load_job_opts *o, unsigned int k);

/*
 * load_target_prepare() for each of the job's files, tg[k] the target of
 * file k: size= shared among several as fio's (the first ones a block
 * more where it does not divide), then the job's size their sum.  Returns
 * 0, or the exit code after one line.
 */
int load_files_prepare(struct load_job_opts *o, struct load_target *tg);

/*
 * Writes the part of each file that prepare made or grew (grown_from to
 * the end of the job's range) when the job reads it, as fio lays out its
 * files: a read must not be of a hole, which no device would see.  Says
 * so on `out` as fio does (NULL: quietly).  Returns 0, or 1 after one
 * line.
 */
int load_files_layout(struct load_job_opts *o, const struct load_target *tg, FILE *out);

/* --unlink: removes the job's regular files, each if it is still the one
 * prepared (not a link or another file put in its place since). */
void load_files_unlink(struct load_job_opts *o, const struct load_target *tg);

#endif
