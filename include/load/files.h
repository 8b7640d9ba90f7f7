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

/*
 * Writes the part of the file that prepare made or grew (t->grown_from to
 * the end of the job's range) when the job reads it, as fio lays out its
 * files: a read must not be of a hole, which no device would see.  Says
 * so on `out` as fio does (NULL: quietly).  Returns 0, or 1 after one
 * line.
 */
int load_files_layout(const struct load_job_opts *o, const struct load_target *t,
		      FILE *out);

/* --unlink: removes the job's regular file, if it is still the one
 * prepared (not a link or another file put in its place since). */
void load_files_unlink(const struct load_job_opts *o, const struct load_target *t);

#endif
