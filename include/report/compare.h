/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report --compare A B: two traces side by side, per op (read, write,
 * other): counts, rates, latency percentiles and queue depth, B's over A's,
 * and a verdict on whether B's latency differs from A's beyond the run-to-
 * run noise.  Text and JSON here (compare.c), the page in compare_html.c.
 *
 * The noise is each run's own: a trace is cut into COMPARE_SLICES equal
 * time slices, each slice gives its p50 and p99, and the exact rank-sum
 * test (lib/ranktest.h) asks whether B's slices stand apart from A's.  Two
 * runs of one job differ no more than a run's slices differ among
 * themselves; a change that moves latency moves every slice.  A verdict
 * of "different" needs the test (p < COMPARE_ALPHA / 2 for p50 or p99)
 * and a change of COMPARE_MIN_CHANGE or more in that percentile.
 */
#ifndef IOLENS_REPORT_COMPARE_H
#define IOLENS_REPORT_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include "lib/tracefile.h"
#include "report/page.h"
#include "trace/rqsum.h"

#define COMPARE_SLICES	10
/* The chance of a verdict of "different" for two runs that are not, over
 * both tests of an op (each at half of it). */
#define COMPARE_ALPHA	0.01
/* A percentile that moved less than this (10%) is not called different,
 * however sure the test is that it moved: runs of one job on one machine
 * drift by several percent (CPU frequency, caches, the host of a VM; two
 * runs of 4 KiB reads at QD 1 here had p50s 5% apart). */
#define COMPARE_MIN_CHANGE 0.10
/* A slice's p50 needs this many requests of the op, its p99 this many. */
#define COMPARE_P50_MIN	10
#define COMPARE_P99_MIN	100
/* Slices with their percentile needed on each side for a verdict: with
 * 6 and 6 the test can reach p = 2/C(12, 6) = 0.0022 < COMPARE_ALPHA / 2
 * (with 5 and 5 not: 0.0079). */
#define COMPARE_SLICES_MIN 6

struct report_opts;

/* One trace, read whole. */
struct compare_side {
	const char *path;
	struct trace_header hdr;
	struct trace_end end;
	bool complete;
	char damage[256];		/* why not complete */
	struct page *p;			/* as report -f html draws it */
	__u64 requests[PAGE_NOPS], bytes[PAGE_NOPS], failed[PAGE_NOPS];
	__u64 lat_sum[PAGE_NOPS];	/* of the successes' total latency */
	struct rqsum sum[PAGE_NOPS];	/* the successes */
	__u64 first, last;		/* completions */
	/* Each slice's latencies per op (the second pass). */
	__u64 (*slice)[PAGE_NOPS][HIST_BUCKETS];
	__u64 slice_n[COMPARE_SLICES][PAGE_NOPS];
};

/* What the test says of one op. */
struct compare_verdict {
	bool judged;			/* enough slices on both sides */
	double p[2];			/* p50's, p99's p-value; < 0: not judged */
	int n[2][2];			/* [p50/p99][A/B]: slices that had it */
	bool differs;
	int sign;			/* +1: B slower, -1: B faster, 0 */
};

/* The p-th percentile of a side's successes of op, ns; NaN if none or
 * past the histogram's range. */
double compare_pct(const struct compare_side *s, enum page_op op, double p);

/* A figure of an op's table, a row each in text, JSON and the page. */
struct compare_row {
	const char *label;	/* text and page; NULL: JSON only */
	const char *json;	/* its key in a side of an op */
	/* Of a side's op; NaN where unknown (no time, no request). */
	double (*value)(const struct compare_side *s, enum page_op op, double arg);
	double arg;
	const char *fmt;	/* printf's of value * scale; NULL: a time */
	double scale;		/* shown: MB/s of bytes/s; 0 for 1 */
	int prec;		/* JSON's decimals; -1: a whole number */
};
extern const struct compare_row compare_rows[];

/* A row's cells of an op: A's, B's and B's over A's, "-" where unknown. */
#define COMPARE_CELL 24
void compare_cells(const struct compare_row *r, const struct compare_side *side,
		   enum page_op op, char cell[3][COMPARE_CELL]);

/* A trace's duration in seconds, and its span from the first
 * completion to the last (the rates' time). */
double compare_duration(const struct compare_side *s);
double compare_busy(const struct compare_side *s);
void compare_judge(const struct compare_side *a, const struct compare_side *b,
		   enum page_op op, struct compare_verdict *v);
/* The verdict in words: its head ("no significant difference", "B is
 * slower"...) and what the test found ("p50 x1.80 p=1.1e-05, p99 ...";
 * why not judged). */
void compare_verdict_words(const struct compare_verdict *v, const struct compare_side *side,
			   enum page_op op, const char **head, char *detail, size_t len);
/* The comparison as text, and as JSON (its own output and the page's
 * data). */
void compare_text(FILE *f, const struct compare_side *side);
void compare_json(FILE *f, const struct compare_side *side);
/* The page (compare_html.c). */
void compare_html(FILE *f, const struct compare_side *side);

int compare_run(const struct report_opts *o);

#endif
