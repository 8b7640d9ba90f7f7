/* SPDX-License-Identifier: GPL-2.0 */
/* The SVG the report's charts are drawn with: a chart's frame, axes with
 * ticks and units, and shapes gathered by colour into one path each. */
#ifndef IOLENS_REPORT_SVG_H
#define IOLENS_REPORT_SVG_H

#include <stdbool.h>
#include <stdio.h>

/* A chart of w x h, its plot area inside margins. */
struct svg {
	FILE *f;
	int w, h;
	double x0, y0, pw, ph;		/* plot area: left, top, width, height */
};

/* <svg> with a title and a caption under it; `standalone`: a file of its
 * own (XML declaration, namespace, styles inline). */
void svg_begin(struct svg *s, FILE *f, int w, int h, bool standalone,
	       const char *title, const char *caption);
void svg_end(struct svg *s);

/* Text with & < > " ' escaped, for XML and HTML alike. */
void svg_esc(FILE *f, const char *s);

/* A grid line across the plot at x (y), its label below (at the left);
 * what the axis measures, under it (turned along it). */
void svg_x_tick(struct svg *s, double x, const char *label);
void svg_y_tick(struct svg *s, double y, const char *label);
void svg_x_label(struct svg *s, const char *label);
void svg_y_label(struct svg *s, const char *label);

/* The x axis over seconds [0, secs] and its label. */
void svg_time_axis(struct svg *s, double secs);
/* A linear y axis over [0, max], ticks written by fmt(value), at round
 * steps of the largest of unit, unit/1024, ... below max (1 for counts,
 * 1 << 40 for bytes). */
void svg_y_axis(struct svg *s, double max, double unit, const char *label,
		void (*fmt)(char *buf, size_t len, double v));
/* A y axis of latency rows [lo, hi) (report/page.h's rows), log scale. */
void svg_lat_axis(struct svg *s, int lo, int hi, const char *label);
/* A legend box of `color` with `label`, the i-th from the left above the
 * plot area. */
void svg_legend(struct svg *s, int i, const char *color, const char *label);

/* Rectangles gathered by colour (or level): one <path> each at the end,
 * a few bytes a rectangle. */
#define SVG_PATHS 16
struct svg_paths {
	char *buf[SVG_PATHS];
	size_t len[SVG_PATHS];
	FILE *m[SVG_PATHS];
};
int svg_paths_open(struct svg_paths *p);
void svg_paths_rect(struct svg_paths *p, int k, double x, double y, double w, double h);
/* Writes path k in fill[k] (and opacity[k] when not NULL), then frees. */
void svg_paths_close(struct svg_paths *p, FILE *f, const char *const *fill,
		     const double *opacity);

/* 1, 2 or 5 times a power of ten: a tick step for about n ticks. */
double svg_nice_step(double range, int n);

#endif
