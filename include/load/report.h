/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load's own: where the report goes and fio's report of a run's results
 * (load_report.c), with the disks' statistics over the run
 * (load_diskutil.c).
 */
#ifndef IOLENS_LOAD_REPORT_H
#define IOLENS_LOAD_REPORT_H

#include <stdio.h>
#include "lib/outfile.h"
#include "load/load.h"

struct json;

/* ---- disk statistics over the run: load_diskutil.c ---- */

struct load_disks;

/* Finds the block device of each job's target (for a file, of the
 * filesystem under it; for a partition, its disk, as fio) and reads its
 * counters; NULL if none has one. */
struct load_disks *load_disks_start(const struct load_job_opts *jobs, int n);
void load_disks_end(struct load_disks *d);
void load_disks_json(struct load_disks *d, struct json *j);
void load_disks_text(struct load_disks *d, FILE *f);
/* fio's terse fields of each disk: ";name;ios;..;util%". */
void load_disks_terse(struct load_disks *d, FILE *f);
void load_disks_free(struct load_disks *d);

/* ---- report: load_report.c ---- */

/* fio's num2str: at most four digits, then the unit: "207k", "48.2MiB". */
void load_num2str(char *buf, size_t len, double v, int base,
		  const char *const *units);
extern const char *const load_iops_units[];
extern const char *const load_bin_units[];

/* Where reports go, out->f: --output (whole or not at all, lib/outfile.h),
 * else stdout.  0, or 1 after one line. */
int load_output_open(const struct load_job_opts *global, struct outfile *out);

/* Closes what load_output_open() opened (nothing if it did not): 1 (after
 * one line) if the report could not be written, else 0. */
int load_output_close(struct outfile *out);

void load_report_normal(FILE *f, const struct load_result *r, int n,
			struct load_disks *disks);
void load_report_json(FILE *f, const struct load_result *r, int n,
		      const struct load_job_opts *global,
		      struct load_disks *disks);
/* fio's rs->agg of a group and direction, bytes/s. */
__u64 load_group_agg(const struct load_result *r, int n, int groupid, int d);

/* ---- fio's terse (minimal) lines: load_terse.c ---- */

/* A line a job (or group), fio's terse format of `version` (2 to 5). */
void load_report_terse(FILE *f, const struct load_result *r, int n,
		       unsigned int version, struct load_disks *disks);

#endif
