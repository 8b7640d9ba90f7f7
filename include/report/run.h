/* SPDX-License-Identifier: GPL-2.0 */
/* What report's formats (src/report/formats.c) share with the loop that
 * reads the trace (src/report/report.c): the run's state and its helpers. */
#ifndef IOLENS_REPORT_RUN_H
#define IOLENS_REPORT_RUN_H

#include <stdio.h>
#include "lib/tracefile.h"
#include "report/report.h"

struct dev_ent {
	struct trace_device d;
	bool announced;		/* already described in text output */
};

struct report {
	const struct report_format *fmt;
	FILE *out;
	const char *path;
	struct rqfilter filt;
	struct trace_header hdr;

	struct dev_ent *dev;
	size_t ndev, capdev;
	__u32 *dev_idx;		/* dev's index + 1, by dev_slot() */
	size_t dev_idx_cap;
	size_t last_dev;	/* requests come in runs on one disk */

	__u64 total, shown, lost;
	__u64 unseen;		/* shown without completion */
	__u64 failed;		/* shown, ended with an error status */
	struct trace_end end;
	bool complete;
	bool prescanned;	/* devices known before the first request */
	bool triggered;		/* saved by record --ring: */
	bool trigger_shown;	/* in the text already */
	struct trace_trigger trigger;	/* why */

	struct perfetto *pf;	/* -f perfetto */
	struct html *html;	/* -f html, -f svg */
	const struct chart *chart;	/* --chart */
	const char *filters;	/* the filter options, as given */
	bool stacks;		/* --stacks: lines show them */
	bool files;		/* --files: lines show them */
	struct kstacks *ks;	/* the file's stacks, as read */
};

/* The name of disk `dev` (ctx: the report), for the charts and Perfetto. */
const char *report_dev_label(void *ctx, __u32 dev);
/* Text: the disks, read ahead from the file where it can be read twice,
 * in the first line. */
void report_intro(struct report *r);
/* The counts after the last request, in text or JSON. */
void report_summary(struct report *r);
/* -f perfetto's second pass: the requests the filters keep, again. */
int report_second_pass(struct report *r, int (*fn)(struct report *r,
						    struct iolens_rq *rq));

#endif
