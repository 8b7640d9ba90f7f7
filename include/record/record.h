/* SPDX-License-Identifier: GPL-2.0 */
/* iolens record: every completed block request into a trace file
 * (lib/tracefile.h is its format; report reads it back). */
#ifndef IOLENS_RECORD_H
#define IOLENS_RECORD_H

#include "trace/rqfilter.h"

struct record_opts {
	struct rqfilter filter;
	const char *path;		/* the trace file; replaced if it exists */
	__u64 duration_ns;		/* 0: until interrupted */
	bool stacks;			/* with each request's submitting
					 * kernel stack */
	bool files;			/* with each request's file */
};

/* Records until the duration or a signal ends it; the exit code. */
int record_run(const struct record_opts *o);

#endif
