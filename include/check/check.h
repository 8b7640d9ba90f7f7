/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolens check: whether an I/O pattern makes the device or the page cache
 * read-modify-write, with a verdict and a fix per finding, so that a
 * workload can be validated while it runs.  src/check/check.c traces and
 * aggregates the findings, report.c prints them, partalign.c reads the
 * partitions.
 */
#ifndef IOLENS_CHECK_H
#define IOLENS_CHECK_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/common.h"

#define CHECK_MAX_PIDS 16

struct check_opts {
	__u32 devs[IOLENS_MAX_DEV_FILTER];
	int ndev;
	int pids[CHECK_MAX_PIDS];
	int npid;
	const char *comm;
	unsigned int align;	/* 0: each disk's physical block */
	double threshold;	/* percent */
	__u64 duration_ns;
	bool json;
	/* DISK or IMAGE operands: check their partitions only, no tracing
	 * (none of devs, pids, comm, duration_ns is then set). */
	char *const *paths;
	int npaths;
};

/* Checks the partitions of o->paths, or else traces until Ctrl-C or
 * o->duration_ns and checks the writes and the partitions of the disks
 * written; prints the verdicts.  0 when every check passes, 1 when one
 * fails (or on a runtime error), 2 on a usage error. */
int check_run(const struct check_opts *o);

#endif
