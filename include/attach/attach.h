/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolens attach: follow a running benchmark (a fio started by hand, a
 * database under test) and sum up what the devices did for it, without
 * starting it ourselves; src/attach/attach.c.
 */
#ifndef IOLENS_ATTACH_H
#define IOLENS_ATTACH_H

#include <stdbool.h>
#include <linux/types.h>
#include "trace/rqfilter.h"

#define ATTACH_MAX_ROOTS RQFILTER_MAX

struct attach_opts {
	/* -d -c -G -O; its npid is 0: -p is followed with children, in
	 * roots[], not matched as the filter's exact pid. */
	struct rqfilter filter;
	int roots[ATTACH_MAX_ROOTS];
	int nroots;
	bool json;
	__u64 duration_ns;	/* 0: until Ctrl-C or the roots exit */
};

/* Traces until Ctrl-C, --duration or every root's exit, then prints the
 * summary: 0, 1 on a runtime failure, 2 on a usage error (a -d no disk). */
int attach_run(const struct attach_opts *o);

#endif
