/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `iolens stat --by cgroup`: each disk's reads and writes by the cgroup the
 * block layer charged them to (the bio's blkcg: on cgroup2 with the io and
 * memory controllers, writeback goes to the cgroup that dirtied the pages).
 */
#ifndef IOLENS_STAT_BY_CGROUP_H
#define IOLENS_STAT_BY_CGROUP_H

#include "lib/json.h"
#include "stat/print.h"

/* Most cgroups (per disk and op) the kernel counts apart; the I/O of any
 * beyond is counted as "(other)". */
#define STAT_CGROUP_SETS 1000

/* The kernel's counts at the last report, and the interval's. */
struct stat_cg {
	struct stat_label *prev;	/* sorted by key */
	int nprev;
	struct stat_label *d;		/* the interval's: sets that moved */
	int nd;
};

/* Reads the counts at the end of an interval: 0 or -errno. */
int stat_cg_update(struct stat_cg *s, const struct agg_trace *st);
void stat_cg_free(struct stat_cg *s);

/* A table of the rows' disks by cgroup, over `secs`. */
void stat_cg_print(const struct stat_cg *s, const struct stat_row *rows, int n,
		   double secs);
/* The row's disk's cgroups as the array "cgroups". */
void stat_cg_json(struct json *j, const struct stat_cg *s,
		  const struct stat_row *r, double secs);

#endif
