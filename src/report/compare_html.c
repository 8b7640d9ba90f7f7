// SPDX-License-Identifier: GPL-2.0
/* report --compare -f html: the two traces on the same axes, one page
 * that needs nothing else (include/report/compare.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/hist.h"
#include "lib/units.h"
#include "report/charts.h"
#include "report/compare.h"
#include "report/report_html.h"
#include "report/svg.h"

#define W 940
#define H 320

static const char *const color[2] = { "#1f77b4", "#e8710a" };

/* What this page adds to report's style sheet. */
static const char css[] =
	".diff{background:#fff3cd}.same{background:#e6f4ea}svg .l{fill:none;stroke-width:1.6}";

static void table(FILE *f, const struct compare_side *side, enum page_op op)
{
	struct compare_verdict v;
	const char *head;
	char detail[128];

	compare_judge(&side[0], &side[1], op, &v);
	fprintf(f, "<h2>%s</h2>\n<table><tr><th></th><th>A</th><th>B</th><th>B/A</th></tr>\n",
		page_op_names[op]);
	for (const struct compare_row *r = compare_rows; r->json; r++) {
		char c[3][COMPARE_CELL];

		if (!r->label)
			continue;
		compare_cells(r, side, op, c);
		fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			r->label, c[0], c[1], c[2]);
	}
	fputs("</table>\n", f);
	compare_verdict_words(&v, side, op, &head, detail, sizeof(detail));
	fprintf(f, "<p class=\"%s\">Verdict: <b>%s</b> (%s; the exact rank-sum test of "
		"each trace's %d time slices).</p>\n", v.differs ? "diff" : v.judged ? "same" : "",
		head, detail, COMPARE_SLICES);
}

/* The latency percentile plot: x in nines (0: p0, 1: p90, 2: p99, 3:
 * p99.9, 4: p99.99), y latency on a log scale. */
#define NINES 4
static double nines(double q)
{
	return q >= 1 - 1e-4 ? NINES : -log10(1 - q);
}

static void cdf(FILE *f, const struct compare_side *side, enum page_op op)
{
	static const char *const qn[] = { "p0", "p90", "p99", "p99.9", "p99.99" };
	const __u64 *h[2] = { side[0].sum[op].lat[RQSUM_TOTAL], side[1].sum[op].lat[RQSUM_TOTAL] };
	__u64 n[2] = { hist_count(h[0]), hist_count(h[1]) };
	double lo = INFINITY, hi = 0;
	char title[64], buf[32];
	struct svg s;

	for (int i = 0; i < 2; i++)
		for (unsigned int b = 0; n[i] && b < HIST_BUCKETS; b++)
			if (h[i][b]) {
				lo = fmin(lo, fmax(hist_lower(b), 1));
				hi = fmax(hi, hist_lower(b) * 1.02 + 1);
			}
	if (!(hi > lo))
		return;
	lo = pow(10, floor(log10(lo)));
	hi = pow(10, ceil(log10(hi)));
	snprintf(title, sizeof(title), "%s latency by percentile", page_op_names[op]);
	svg_begin(&s, f, W, H, false, title,
		  "A and B on the same axes: start to completion of each success");
	for (int k = 0; k <= NINES; k++)
		svg_x_tick(&s, s.x0 + k * s.pw / NINES, qn[k]);
	svg_x_label(&s, "percentile");
	for (double v = lo; v <= hi * 1.001; v *= 10) {
		fmt_ns(buf, sizeof(buf), v);
		svg_y_tick(&s, s.y0 + s.ph - log10(v / lo) / log10(hi / lo) * s.ph, buf);
	}
	svg_y_label(&s, "latency");
	for (int i = 0; i < 2; i++) {
		__u64 c = 0;

		svg_legend(&s, i, color[i], i ? "B" : "A");
		if (!n[i])
			continue;
		fprintf(f, "<polyline class=\"l\" stroke=\"%s\" points=\"", color[i]);
		for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
			double v;

			if (!h[i][b])
				continue;
			v = fmax(hist_lower(b), lo);
			fprintf(f, "%.1f,%.1f ", s.x0 + nines((double)c / n[i]) / NINES * s.pw,
				s.y0 + s.ph - log10(v / lo) / log10(hi / lo) * s.ph);
			c += h[i][b];
			fprintf(f, "%.1f,%.1f ", s.x0 + nines((double)c / n[i]) / NINES * s.pw,
				s.y0 + s.ph - log10(v / lo) / log10(hi / lo) * s.ph);
		}
		fputs("\"/>\n", f);
	}
	svg_end(&s);
}

/* Requests per second (qd: mean queue depth at issue) in each time bin
 * of each trace, from its own start. */
static double bin_value(const struct page *p, int i, bool qd)
{
	const struct page_col *c = &p->col[i];

	if (qd)
		return c->qd_n ? (double)c->qd_sum / c->qd_n : NAN;
	return (double)(c->n[PAGE_READ] + c->n[PAGE_WRITE] + c->n[PAGE_OTHER]) /
	       (p->width / 1e9);
}

static void fmt_count(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%g", v);
}

static void over_time(FILE *f, const struct compare_side *side, bool qd)
{
	double secs = 0, max = 0;
	struct svg s;

	for (int i = 0; i < 2; i++) {
		secs = fmax(secs, side[i].p->nbins * side[i].p->width / 1e9);
		for (int b = 0; b < side[i].p->nbins; b++)
			if (!isnan(bin_value(side[i].p, b, qd)))
				max = fmax(max, bin_value(side[i].p, b, qd));
	}
	if (!(secs > 0) || !(max > 0))
		return;
	svg_begin(&s, f, W, H, false, qd ? "Queue depth" : "Requests per second",
		  qd ? "mean requests in flight on the disk at each issue, per time bin" :
		  "all ops, per time bin; each trace from its own start");
	svg_time_axis(&s, secs);
	svg_y_axis(&s, max * 1.05, 1, qd ? "queue depth" : "requests/s", fmt_count);
	for (int i = 0; i < 2; i++) {
		const struct page *p = side[i].p;

		svg_legend(&s, i, color[i], i ? "B" : "A");
		fprintf(f, "<polyline class=\"l\" stroke=\"%s\" points=\"", color[i]);
		for (int b = 0; b < p->nbins; b++) {
			double v = bin_value(p, b, qd);

			if (!isnan(v))
				fprintf(f, "%.1f,%.1f ", s.x0 + (b + 0.5) * p->width / 1e9 / secs * s.pw,
					s.y0 + s.ph - v / (max * 1.05) * s.ph);
		}
		fputs("\"/>\n", f);
	}
	svg_end(&s);
}

/* Both traces' latency heat maps on one scale: rows, time axis, and
 * colours by requests per second in a cell. */
static void heatmaps(FILE *f, const struct compare_side *side)
{
	static const char *const title[2][2] = {
		{ "A: total latency over time", "B: total latency over time" },
		{ "A: device latency over time", "B: device latency over time" },
	};
	const struct page *p[2] = { side[0].p, side[1].p };
	const struct chart *c[2] = { NULL, NULL };
	struct heat_scale sc;

	for (int i = 0; i < ncharts; i++) {
		if (!strcmp(charts[i].name, "latency-heatmap"))
			c[0] = &charts[i];
		if (!strcmp(charts[i].name, "device-heatmap"))
			c[1] = &charts[i];
	}
	for (int k = 0; k < 2; k++) {
		chart_heat_scale(p, 2, k, &sc);
		for (int i = 0; i < 2 && c[k]; i++) {
			struct chart_env env = { .scale = &sc, .title = title[k][i] };

			c[k]->draw(f, p[i], &env);
		}
	}
}

static void trace_line(FILE *f, char which, const struct compare_side *s)
{
	fprintf(f, "<p><b style=\"color:%s\">%c</b>: <b>", color[which - 'A'], which);
	svg_esc(f, s->path);
	fputs("</b>, host ", f);
	svg_esc(f, s->hdr.host);
	fputs(", kernel ", f);
	svg_esc(f, s->hdr.kernel);
	fprintf(f, ", %.3f s, %llu requests", compare_duration(s),
		(unsigned long long)s->p->requests);
	if (!s->complete) {
		fputs(" <span class=\"diff\">(the trace ends early: ", f);
		svg_esc(f, s->damage);
		fputs(")</span>", f);
	}
	fputs(".</p>\n", f);
}

static void embed(FILE *f, const struct compare_side *side)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	compare_json(m, side);
	fclose(m);
	html_embed_json(f, buf, len);
	free(buf);
}

void compare_html(FILE *f, const struct compare_side *side)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      "<title>iolens report --compare: ", f);
	svg_esc(f, side[0].path);
	fputs(" and ", f);
	svg_esc(f, side[1].path);
	fprintf(f, "</title>\n<style>%s%s</style>\n</head><body>\n<h1>iolens report --compare</h1>\n",
		html_css, css);
	trace_line(f, 'A', &side[0]);
	trace_line(f, 'B', &side[1]);
	for (int o = 0; o < PAGE_NOPS; o++) {
		if (!side[0].requests[o] && !side[1].requests[o])
			continue;
		table(f, side, o);
		cdf(f, side, o);
	}
	fputs("<h2>Over time</h2>\n", f);
	over_time(f, side, false);
	over_time(f, side, true);
	heatmaps(f, side);
	fprintf(f, "<p class=\"note\">IOPS and MB/s over the span from a trace's first "
		"completion to its last. Latency from a request's start to its completion, of "
		"successes. A verdict is the exact rank-sum test (Wilcoxon-Mann-Whitney) of each "
		"trace's %d time slices' p50 and p99, each at p &lt; %.3g, and a change of %.0f%% "
		"or more: two runs of one job differ no more than a run's slices differ among "
		"themselves. The numbers are in the page, as JSON (id iolens-data).</p>\n",
		COMPARE_SLICES, COMPARE_ALPHA / 2, COMPARE_MIN_CHANGE * 100);
	embed(f, side);
	fputs("</body></html>\n", f);
}
