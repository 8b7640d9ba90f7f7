/* SPDX-License-Identifier: GPL-2.0 */
/* iolens report: a trace file of `iolens record` in one of the formats of
 * report_formats[] (text, CSV, JSON lines, Perfetto, a page of charts, one
 * chart).  A format is a row of that table: adding one is a row and its
 * handlers (src/report/formats.c). */
#ifndef IOLENS_REPORT_H
#define IOLENS_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "trace/rqfilter.h"
#include "trace/rqfmt.h"

/* A trace may name any number of disks: the pictures (the page, a chart,
 * Perfetto) tell the first REPORT_DEVS apart, and sum the others as one,
 * of dev REPORT_OTHER_DEVS, "(other disks)": memory and time are set by
 * the picture, not by the trace. */
#define REPORT_DEVS		64
#define REPORT_OTHER_DEVS	0

struct report;
struct rqfmt_names;
struct chart;
struct compare_side;

/* One output format.  open() runs once the output is open, add() for each
 * request the filters keep, close() after the last record: status 0 at the
 * trace's end, 1 if it was damaged (err says how).  Each returns 0, or -1
 * when out of memory. */
struct report_format {
	const char *name;
	const char *help;		/* a line of --help */
	enum rqfmt_mode mode;		/* the line format, where lines */
	bool devices;			/* says each disk as it is first met */
	bool twice;			/* reads the file twice: not a pipe */
	bool chart;			/* draws the one chart of --chart */
	bool stacks;			/* shows --stacks and --files */
	int (*open)(struct report *r);
	int (*add)(struct report *r, struct iolens_rq *rq,
		   const struct rqfmt_names *n);
	int (*close)(struct report *r, int status, const char *err);
	/* report --compare A B in this format (report/compare.h); NULL: it
	 * has none. */
	void (*compare)(FILE *f, const struct compare_side *side);
};

extern const struct report_format report_formats[];
extern const int report_nformats;

struct report_opts {
	const struct report_format *fmt;
	const struct chart *chart;	/* -f svg: which */
	const char *path;		/* the trace file */
	const char *outpath;		/* NULL or "-": standard output */
	struct rqfilter filt;
	char filters[256];		/* the filter options, as given */
	bool stacks;			/* lines show their stacks */
	bool files;			/* lines show their files */
	const char *compare;		/* --compare: path is A, this B */
};

/* Prints the trace; the exit code (1 also for a damaged trace, after
 * printing what it held). */
int report_run(const struct report_opts *o);

#endif
