/* SPDX-License-Identifier: GPL-2.0 */
/* iolens snoop: one line per completed block request (iosnoop, biosnoop),
 * as text, CSV or JSON lines. */
#ifndef IOLENS_SNOOP_H
#define IOLENS_SNOOP_H

#include "trace/rqfilter.h"
#include "trace/rqfmt.h"

struct snoop_opts {
	/* Which requests; live, -p also takes in the processes' children. */
	struct rqfilter filter;
	enum rqfmt_mode mode;
	__u64 duration_ns;		/* 0: until interrupted */
	unsigned long long max;		/* lines to show; 0: no limit */
	__u64 stuck_ns;			/* warn of a request in flight this
					 * long; 0: never */
	bool stacks;			/* show each request's submitting
					 * kernel stack */
	bool files;			/* show the file of each request's
					 * data */
};

/* Traces until the duration, the count or a signal ends it; the exit code. */
int snoop_run(const struct snoop_opts *o);

#endif
