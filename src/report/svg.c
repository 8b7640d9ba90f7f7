// SPDX-License-Identifier: GPL-2.0
/* SVG drawing for the report's charts (report/svg.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/sanitize.h"
#include "lib/units.h"
#include "report/page.h"
#include "report/svg.h"

#define M_LEFT	84
#define M_RIGHT	24
#define M_TOP	62
#define M_BOTTOM 44

/* Styles of a standalone SVG; the page has them once in its <style>. */
static const char style[] =
	"text{font:12px sans-serif;fill:#222}.t{font-weight:bold;font-size:14px}"
	".c{fill:#555}.ax{stroke:#888;fill:none}.g{stroke:#ddd}";

/* Names in a page are others' too: lib/sanitize escapes them for HTML,
 * valid UTF-8 without a control character, as XML wants. */
void svg_esc(FILE *f, const char *s)
{
	san_fputs_html(f, s);
}

void svg_begin(struct svg *s, FILE *f, int w, int h, bool standalone,
	       const char *title, const char *caption)
{
	s->f = f;
	s->w = w;
	s->h = h;
	s->x0 = M_LEFT;
	s->y0 = M_TOP;
	s->pw = w - M_LEFT - M_RIGHT;
	s->ph = h - M_TOP - M_BOTTOM;
	if (standalone)
		fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg%s width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
		standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", w, h, w, h);
	if (standalone)
		fprintf(f, "<style>%s</style><rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
			style, w, h);
	fputs("<title>", f);
	svg_esc(f, title);
	fputs("</title>\n<text class=\"t\" x=\"8\" y=\"18\">", f);
	svg_esc(f, title);
	fputs("</text>\n<text class=\"c\" x=\"8\" y=\"34\">", f);
	svg_esc(f, caption);
	fputs("</text>\n", f);
}

void svg_end(struct svg *s)
{
	fprintf(s->f, "<rect class=\"ax\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n</svg>\n",
		s->x0, s->y0, s->pw, s->ph);
}

double svg_nice_step(double range, int n)
{
	double raw = range / (n > 0 ? n : 1), p, m;

	if (!(raw > 0))
		return 1;
	p = pow(10, floor(log10(raw)));
	m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

void svg_x_tick(struct svg *s, double x, const char *label)
{
	fprintf(s->f, "<line class=\"g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		x, s->y0, x, s->y0 + s->ph, x, s->y0 + s->ph + 16, label);
}

void svg_x_label(struct svg *s, const char *label)
{
	fprintf(s->f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", s->x0 + s->pw / 2,
		s->h - 6);
	svg_esc(s->f, label);
	fputs("</text>\n", s->f);
}

void svg_time_axis(struct svg *s, double secs)
{
	double step = svg_nice_step(secs, 8);
	char buf[32];

	for (double t = 0; secs > 0 && t <= secs * 1.0001; t += step) {
		snprintf(buf, sizeof(buf), "%g", t);
		svg_x_tick(s, s->x0 + t / secs * s->pw, buf);
	}
	svg_x_label(s, "time since the trace began (s)");
}

void svg_y_tick(struct svg *s, double y, const char *label)
{
	fprintf(s->f, "<line class=\"g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		s->x0, y, s->x0 + s->pw, y, s->x0 - 4, y + 4, label);
}

void svg_y_label(struct svg *s, const char *label)
{
	fprintf(s->f, "<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">",
		s->y0 + s->ph / 2);
	svg_esc(s->f, label);
	fputs("</text>\n", s->f);
}

void svg_y_axis(struct svg *s, double max, double unit, const char *label,
		void (*fmt)(char *buf, size_t len, double v))
{
	char buf[32];
	double step;

	/* Steps round in the unit the labels are in (KiB, MiB...). */
	while (unit > 1 && max < unit)
		unit /= 1024;
	step = svg_nice_step(max / unit, 5) * unit;
	for (double v = 0; max > 0 && v <= max * 1.0001; v += step) {
		fmt(buf, sizeof(buf), v);
		svg_y_tick(s, s->y0 + s->ph - v / max * s->ph, buf);
	}
	svg_y_label(s, label);
}

void svg_lat_axis(struct svg *s, int lo, int hi, const char *label)
{
	char buf[32];

	/* A tick at each power of ten within the rows shown. */
	for (__u64 ns = 1000; ns <= 100000000000ULL; ns *= 10) {
		double r;

		if (ns < page_lrow_lower(lo) || ns > page_lrow_lower(hi - 1) * 2)
			continue;
		/* Where ns falls: rows are log2-spaced, two a power of 2. */
		r = 2 * (log2((double)ns) - 10);
		fmt_ns(buf, sizeof(buf), ns);
		svg_y_tick(s, s->y0 + s->ph - (r - lo) / (hi - lo) * s->ph, buf);
	}
	svg_y_label(s, label);
}

void svg_legend(struct svg *s, int i, const char *color, const char *label)
{
	double x = s->x0 + 4 + i * 130;

	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">", x, s->y0 - 14, color, x + 14, s->y0 - 5);
	svg_esc(s->f, label);
	fputs("</text>\n", s->f);
}

int svg_paths_open(struct svg_paths *p)
{
	memset(p, 0, sizeof(*p));
	for (int k = 0; k < SVG_PATHS; k++) {
		p->m[k] = open_memstream(&p->buf[k], &p->len[k]);
		if (!p->m[k])
			return -1;
	}
	return 0;
}

void svg_paths_rect(struct svg_paths *p, int k, double x, double y, double w, double h)
{
	fprintf(p->m[k], "M%.1f %.1fh%.1fv%.1fh%.1fz", x, y, w, h, -w);
}

void svg_paths_close(struct svg_paths *p, FILE *f, const char *const *fill,
		     const double *opacity)
{
	for (int k = 0; k < SVG_PATHS; k++) {
		if (!p->m[k])
			continue;
		fclose(p->m[k]);
		if (p->len[k] && fill && fill[k]) {
			fprintf(f, "<path fill=\"%s\"", fill[k]);
			if (opacity)
				fprintf(f, " fill-opacity=\"%.2f\"", opacity[k]);
			fprintf(f, " d=\"%s\"/>\n", p->buf[k]);
		}
		free(p->buf[k]);
	}
	memset(p, 0, sizeof(*p));
}
