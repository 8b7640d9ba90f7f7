/* SPDX-License-Identifier: GPL-2.0 */
/* The charts of `iolens report -f html` and `-f svg --chart NAME`: a table,
 * so that a chart is a row (its name, title, caption and drawing). */
#ifndef IOLENS_REPORT_CHARTS_H
#define IOLENS_REPORT_CHARTS_H

#include <stdbool.h>
#include <stdio.h>
#include "report/page.h"

/* What a chart needs besides the page. */
struct chart_env {
	const char *(*dev_name)(void *ctx, __u32 dev);
	void *ctx;
	bool standalone;		/* an SVG file of its own */
};

struct chart {
	const char *name;		/* for --chart */
	const char *section;		/* the page's heading it comes under */
	void (*draw)(FILE *f, const struct page *p, const struct chart_env *e);
};

extern const struct chart charts[];
extern const int ncharts;

#endif
