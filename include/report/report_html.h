/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `iolens report -f html`: one self-contained page (inline SVG and CSS, no
 * script that runs, nothing fetched) with a summary and every chart of
 * report/charts.c; `-f svg --chart NAME`: one chart alone.  One pass over
 * the requests, into report/page.h's grids: memory and the page's size do
 * not grow with the trace.
 */
#ifndef IOLENS_REPORT_HTML_H
#define IOLENS_REPORT_HTML_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/block.h"
#include "report/charts.h"
#include "lib/tracefile.h"

struct html;

/* What the page says about the file as a whole. */
struct kstacks;

struct html_facts {
	const char *path;		/* the trace */
	const char *filters;		/* the filters given, "" for none */
	__u64 total;			/* requests in the file */
	__u64 lost, untracked;		/* records lost; requests not tracked */
	__u64 end_ns;			/* END's CLOCK_MONOTONIC, if complete */
	bool complete;			/* END read: else cut short or damaged */
	const char *damage;		/* what was wrong, when not complete */
	struct kstacks *ks;		/* the stacks the trace named, or NULL */
};

/* `chart`: NULL for the page, else that chart alone as an SVG file. */
struct html *html_new(FILE *f, const struct trace_header *h, const struct chart *chart);
/* A request the filters kept; -1 if out of memory. */
int html_add(struct html *h, const struct iolens_rq *rq);
/* Writes the page (or the chart). */
void html_end(struct html *h, const struct html_facts *facts,
	      const char *(*dev_name)(void *ctx, __u32 dev), void *ctx);
void html_free(struct html *h);

/* The pages' style sheet. */
extern const char html_css[];
/* JSON (buf, len bytes) as the page's data, <script id="iolens-data">:
 * every '<' (only ever inside strings) as \u003c, so that "</script"
 * never occurs in it. */
void html_embed_json(FILE *f, const char *buf, size_t len);

#endif
