/* SPDX-License-Identifier: GPL-2.0 */
/* `iolens report --format perfetto`: requests as a Chrome Trace Event JSON
 * file that ui.perfetto.dev and chrome://tracing open. */
#ifndef IOLENS_REPORT_PERFETTO_H
#define IOLENS_REPORT_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/block.h"
#include "report/tracefile.h"

struct perfetto_src {
	const struct trace_header *hdr;
	const struct iolens_rq *rq;	/* the requests to show, any order */
	size_t nrq;
	/* Display name of a disk; never NULL. */
	const char *(*dev_name)(void *ctx, __u32 dev);
	void *ctx;
	/* Facts about the whole file, written to the trace metadata. */
	__u64 total;			/* requests in the file */
	__u64 lost;			/* records lost (ring buffer full) */
	__u64 untracked;		/* meaningful only if complete */
	__u64 end_ns;			/* CLOCK_MONOTONIC at end, if complete */
	bool complete;			/* END record seen */
};

/* Writes the whole trace to `f`; 0 on success, -1 if out of memory (nothing
 * written then). */
int report_perfetto(FILE *f, const struct perfetto_src *src);

#endif
