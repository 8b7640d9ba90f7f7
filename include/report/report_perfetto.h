/* SPDX-License-Identifier: GPL-2.0 */
/* `iolens report --format perfetto`: requests as a Chrome Trace Event JSON
 * file that ui.perfetto.dev and chrome://tracing open, written as the trace
 * is read: memory holds the requests of one window of time, not the
 * trace. */
#ifndef IOLENS_REPORT_PERFETTO_H
#define IOLENS_REPORT_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/block.h"
#include "lib/tracefile.h"

struct perfetto;

/* Facts about the whole file, written to the trace metadata. */
struct perfetto_facts {
	__u64 total;			/* requests in the file */
	__u64 lost;			/* records lost (ring buffer full) */
	__u64 untracked;		/* meaningful only if complete */
	__u64 end_ns;			/* CLOCK_MONOTONIC at end, if complete */
	bool complete;			/* END record seen */
};

struct perfetto *perfetto_new(FILE *f, const struct trace_header *h);

/* Two passes over the requests to show, in file order both times: the
 * first learns the time base, how far a request's start may lie before the
 * completions read already, and what each disk holds; the second writes.
 * perfetto_scan() of every request, then perfetto_begin(), perfetto_add()
 * of every request, perfetto_end().  -1 if out of memory. */
int perfetto_scan(struct perfetto *p, const struct iolens_rq *rq);
void perfetto_begin(struct perfetto *p,
		    const char *(*dev_name)(void *ctx, __u32 dev), void *ctx);
int perfetto_add(struct perfetto *p, const struct iolens_rq *rq);
int perfetto_end(struct perfetto *p, const struct perfetto_facts *facts);

void perfetto_free(struct perfetto *p);

#endif
