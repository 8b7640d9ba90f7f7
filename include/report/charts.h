/* SPDX-License-Identifier: GPL-2.0 */
/* The charts of `iolens report -f html` and `-f svg --chart NAME`: a table,
 * so that a chart is a row (its name, title, caption and drawing). */
#ifndef IOLENS_REPORT_CHARTS_H
#define IOLENS_REPORT_CHARTS_H

#include <stdbool.h>
#include <stdio.h>
#include "report/page.h"

/* What a chart needs besides the page. */
/* Heat maps of two traces drawn alike (report --compare): the same
 * latency rows, time axis and colours, a cell's colour its requests per
 * second (bins may differ in width). */
struct heat_scale {
	int lo, hi;			/* latency rows shown */
	double secs;			/* the time axis */
	double max_rate;		/* the darkest colour, requests/s */
};

struct chart_env {
	const char *(*dev_name)(void *ctx, __u32 dev);
	void *ctx;
	bool standalone;		/* an SVG file of its own */
	const struct heat_scale *scale;	/* NULL: each chart its own */
	const char *title;		/* NULL: the chart's own */
};

/* The scale that fits the heat map k (0 total, 1 device latency) of
 * every page of p[n]. */
void chart_heat_scale(const struct page *const *p, int n, int k, struct heat_scale *sc);

struct chart {
	const char *name;		/* for --chart */
	const char *section;		/* the page's heading it comes under */
	void (*draw)(FILE *f, const struct page *p, const struct chart_env *e);
};

extern const struct chart charts[];
extern const int ncharts;

#endif
