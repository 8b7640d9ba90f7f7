// SPDX-License-Identifier: GPL-2.0
/*
 * The report's charts, each from the page's grids (report/page.h): where
 * the time went (latency heat maps), where on the disk (offsets), how much
 * and how deep (IOPS, throughput, queue depth), the shape (size and
 * latency histograms with their percentiles), and who (submitters and
 * cgroups).  Every chart says in its caption what it shows.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "lib/cgroups.h"
#include "lib/hist.h"
#include "lib/units.h"
#include "report/charts.h"
#include "report/svg.h"

#define W		960
#define H		320
#define TOP_BARS	10
#define TIB		1099511627776.0	/* byte axes step in TiB, GiB, ... */

static const char *const op_color[PAGE_NOPS] = { "#1f77b4", "#ff7f0e", "#7f7f7f" };
#define FAIL_COLOR "#d62728"

/* Counts in a heat map cell, by level (log scale): light to dark. */
static const char *const heat[] = {
	"#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a",
	"#e31a1c", "#b10026",
};
#define HEAT_LEVELS (int)(sizeof(heat) / sizeof(heat[0]))

static double secs_of(const struct page *p)
{
	return p->nbins * (double)p->width / 1e9;
}

static void fmt_count(char *b, size_t n, double v)
{
	snprintf(b, n, v >= 1e6 ? "%.3gM" : v >= 1e4 ? "%.3gk" : "%g",
		 v >= 1e6 ? v / 1e6 : v >= 1e4 ? v / 1e3 : v);
}

static void fmt_rate(char *b, size_t n, double v)
{
	char t[32];

	fmt_bytes(t, sizeof(t), v);
	snprintf(b, n, "%s/s", t);
}

static void fmt_plain(char *b, size_t n, double v)
{
	snprintf(b, n, "%g", v);
}

/* The level of a count (or rate) among [1, max], log scale. */
static int level(double c, double max)
{
	int l;

	if (max <= 1)
		return HEAT_LEVELS - 1;
	l = c > 1 ? (int)(log(c) / log(max) * HEAT_LEVELS) : 0;
	return l < HEAT_LEVELS ? l : HEAT_LEVELS - 1;
}

/* ---- latency over time ---- */

/* The rows with requests in heat map k of p, and the most in a cell (a
 * count, or with per_second a rate). */
static void heat_extent(const struct page *p, int k, bool per_second, int *lo, int *hi,
			double *max)
{
	for (int i = 0; i < p->nbins; i++)
		for (int r = 0; r < PAGE_LROWS; r++) {
			__u32 c = p->col[i].lat[k][r];
			double v = per_second ? c / (p->width / 1e9) : c;

			if (!c)
				continue;
			*lo = r < *lo ? r : *lo;
			*hi = r + 1 > *hi ? r + 1 : *hi;
			*max = v > *max ? v : *max;
		}
}

/* At least two decades shown, around what is there. */
static void heat_rows(int *lo, int *hi)
{
	if (*hi <= *lo)
		*lo = 20, *hi = 34;
	while (*hi - *lo < 14) {
		*lo -= *lo > 0;
		*hi += *hi < PAGE_LROWS;
	}
}

void chart_heat_scale(const struct page *const *p, int n, int k, struct heat_scale *sc)
{
	sc->lo = PAGE_LROWS;
	sc->hi = 0;
	sc->secs = 0;
	sc->max_rate = 0;
	for (int i = 0; i < n; i++) {
		heat_extent(p[i], k, true, &sc->lo, &sc->hi, &sc->max_rate);
		sc->secs = secs_of(p[i]) > sc->secs ? secs_of(p[i]) : sc->secs;
	}
	heat_rows(&sc->lo, &sc->hi);
}

static void heatmap(FILE *f, const struct page *p, const struct chart_env *e, int k)
{
	static const char *const what[] = { "Total latency over time",
					    "Device latency over time" };
	static const char *const cap[] = {
		"Each column a time bin, each row a latency range (log scale), colour the requests "
		"that completed there: start (as iostat's await) to completion.",
		"The same for device time: issue to the driver until completion, without the "
		"time queued in the block layer.",
	};
	const struct heat_scale *sc = e->scale;
	bool rate = sc != NULL;
	int lo = PAGE_LROWS, hi = 0;
	double max = 0, secs, cw, unit = rate ? p->width / 1e9 : 1;
	struct svg s;
	struct svg_paths paths;
	char a[32], b[32];

	if (sc) {
		lo = sc->lo, hi = sc->hi, max = sc->max_rate, secs = sc->secs;
	} else {
		heat_extent(p, k, false, &lo, &hi, &max);
		heat_rows(&lo, &hi);
		secs = secs_of(p);
	}
	svg_begin(&s, f, W, H, e->standalone, e->title ? e->title : what[k], cap[k]);
	svg_time_axis(&s, secs);
	svg_lat_axis(&s, lo, hi, k ? "device time" : "total latency");
	cw = secs > 0 ? p->width / 1e9 / secs * s.pw : s.pw;
	if (svg_paths_open(&paths) == 0) {
		for (int i = 0; i < p->nbins; i++)
			for (int r = lo; r < hi; r++) {
				__u32 c = p->col[i].lat[k][r];

				if (c)
					svg_paths_rect(&paths, level(c / unit, max), s.x0 + i * cw,
						       s.y0 + s.ph - (r + 1 - lo) * s.ph / (hi - lo),
						       cw, s.ph / (hi - lo));
			}
		svg_paths_close(&paths, f, heat, NULL);
	}
	/* The colour scale: what the darkest and lightest stand for. */
	fmt_count(a, sizeof(a), rate ? 1 / unit : 1);
	fmt_count(b, sizeof(b), max);
	for (int l = 0; l < HEAT_LEVELS; l++)
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n",
			s.x0 + s.pw - 8 * 14 - 150 + l * 14, s.y0 - 16, heat[l]);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s: %s</text>"
		"<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
		s.x0 + s.pw - 8 * 14 - 154, s.y0 - 7, rate ? "requests/s a cell" : "requests a cell",
		a, s.x0 + s.pw - 146, s.y0 - 7, b);
	svg_end(&s);
}

static void draw_latency_heatmap(FILE *f, const struct page *p, const struct chart_env *e)
{
	heatmap(f, p, e, 0);
}

static void draw_device_heatmap(FILE *f, const struct page *p, const struct chart_env *e)
{
	heatmap(f, p, e, 1);
}

/* ---- offsets ---- */

static void fmt_gib(char *b, size_t n, double v)
{
	fmt_bytes(b, n, v);
}

static void draw_offset(FILE *f, const struct page *p, const struct chart_env *e)
{
	static const double opacity[] = { 0.25, 0.5, 0.75, 1 };
	const char *fill[SVG_PATHS] = { NULL };
	double op_opacity[SVG_PATHS];
	int ndraw = 0;

	for (int d = 0; d < p->ndev; d++)
		ndraw += p->devs[d].off != NULL;
	for (int o = 0; o < PAGE_NOPS; o++)
		for (int l = 0; l < 4; l++) {
			fill[o * 4 + l] = op_color[o];
			op_opacity[o * 4 + l] = opacity[l];
		}
	for (int d = 0; d < p->ndev; d++) {
		const struct page_offsets *off = p->devs[d].off;
		char title[96], cap[200];
		int top = 0;
		__u64 max = 0;
		struct svg_paths paths;
		struct svg s;
		double cw, rh;

		if (!off)
			continue;
		for (int i = 0; i < p->nbins; i++)
			for (int r = 0; r < PAGE_OROWS; r++)
				for (int o = 0; o < PAGE_NOPS; o++)
					if (off->cell[i][r][o]) {
						top = r + 1 > top ? r + 1 : top;
						max = off->cell[i][r][o] > max ? off->cell[i][r][o] : max;
					}
		snprintf(title, sizeof(title), "Offset over time: %s", e->dev_name(e->ctx, p->devs[d].dev));
		/* A file of -f svg is one XML document: one disk's chart. */
		snprintf(cap, sizeof(cap), "Where on the disk each request completed, coloured by op "
			 "(the op with most requests in a cell; darker: more): a diagonal is "
			 "sequential, a cloud random%s.",
			 e->standalone && (ndraw > 1 || p->ndev > ndraw) ?
			 "; the first disk only (use -d for another)" :
			 d == 0 && p->ndev > ndraw ? "; the first disks only (use -d)" : "");
		svg_begin(&s, f, W, H, e->standalone, title, cap);
		svg_time_axis(&s, secs_of(p));
		top = top ? top : 1;
		svg_y_axis(&s, (double)top * off->sectors_per_row * 512, TIB, "offset", fmt_gib);
		for (int o = 0; o < PAGE_NOPS; o++)
			svg_legend(&s, o, op_color[o], page_op_names[o]);
		cw = p->nbins ? s.pw / p->nbins : s.pw;
		rh = s.ph / top;
		if (svg_paths_open(&paths) == 0) {
			for (int i = 0; i < p->nbins; i++)
				for (int r = 0; r < top; r++) {
					const __u32 *c = off->cell[i][r];
					int o = c[PAGE_WRITE] > c[PAGE_READ] ? PAGE_WRITE : PAGE_READ;
					int l;

					o = c[PAGE_OTHER] > c[o] ? PAGE_OTHER : o;
					if (!c[o])
						continue;
					l = level(c[o], max) * 4 / HEAT_LEVELS;
					/* Offset 0 at the bottom, as a y axis goes. */
					svg_paths_rect(&paths, o * 4 + l, s.x0 + i * cw,
						       s.y0 + s.ph - (r + 1) * rh, cw, rh);
				}
			svg_paths_close(&paths, f, fill, op_opacity);
		}
		svg_end(&s);
		if (e->standalone)
			break;
	}
}

/* ---- rates and depth over time ---- */

static void polyline(FILE *f, const struct svg *s, const struct page *p,
		     const double *v, double max, const char *color, const char *dash)
{
	double cw = p->nbins ? s->pw / p->nbins : s->pw;

	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s%s%s points=\"",
		color, dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
	for (int i = 0; i < p->nbins; i++)
		fprintf(f, "%.1f,%.1f ", s->x0 + (i + 0.5) * cw,
			s->y0 + s->ph - (max > 0 ? v[i] / max : 0) * s->ph);
	fputs("\"/>\n", f);
}

/* The seconds time bin i covers: the last one only up to the last
 * completion, so that its rate is not understated. */
static double bin_secs(const struct page *p, int i)
{
	__u64 start = p->t0 + i * p->width;

	if (i == p->nbins - 1 && p->last > start && p->last - start < p->width)
		return (p->last - start + 1) / 1e9;
	return p->width / 1e9;
}

static void rates(FILE *f, const struct page *p, const struct chart_env *e, bool bytes)
{
	double v[PAGE_NOPS][PAGE_TBINS], max = 0;
	struct svg s;

	for (int o = 0; o < PAGE_NOPS; o++)
		for (int i = 0; i < p->nbins; i++) {
			v[o][i] = (bytes ? p->col[i].bytes[o] : p->col[i].n[o]) / bin_secs(p, i);
			max = v[o][i] > max ? v[o][i] : max;
		}
	svg_begin(&s, f, W, H, e->standalone, bytes ? "Throughput over time" : "IOPS over time",
		  bytes ? "Bytes of the requests that completed in each time bin, per second, by op." :
			  "Requests that completed in each time bin, per second, by op (dashed red: "
			  "of them, those that failed).");
	svg_time_axis(&s, secs_of(p));
	svg_y_axis(&s, max > 0 ? max * 1.05 : 1, bytes ? TIB : 1,
		   bytes ? "throughput" : "requests/s", bytes ? fmt_rate : fmt_count);
	for (int o = 0; o < PAGE_NOPS; o++) {
		svg_legend(&s, o, op_color[o], page_op_names[o]);
		polyline(f, &s, p, v[o], max > 0 ? max * 1.05 : 1, op_color[o], NULL);
	}
	/* Failed requests (of those above), where there were any: a red line
	 * that is impossible to miss. */
	if (!bytes && p->failed) {
		double fails[PAGE_TBINS];

		for (int i = 0; i < p->nbins; i++)
			fails[i] = p->col[i].failed / bin_secs(p, i);
		svg_legend(&s, PAGE_NOPS, FAIL_COLOR, "failed");
		polyline(f, &s, p, fails, max > 0 ? max * 1.05 : 1, FAIL_COLOR, "2 2");
	}
	svg_end(&s);
}

static void draw_iops(FILE *f, const struct page *p, const struct chart_env *e)
{
	rates(f, p, e, false);
}

static void draw_throughput(FILE *f, const struct page *p, const struct chart_env *e)
{
	rates(f, p, e, true);
}

static void draw_queue_depth(FILE *f, const struct page *p, const struct chart_env *e)
{
	double mean[PAGE_TBINS], max[PAGE_TBINS], top = 0;
	struct svg s;

	for (int i = 0; i < p->nbins; i++) {
		const struct page_col *c = &p->col[i];

		mean[i] = c->qd_n ? (double)c->qd_sum / c->qd_n : 0;
		max[i] = c->qd_max;
		top = max[i] > top ? max[i] : top;
	}
	svg_begin(&s, f, W, H, e->standalone, "Queue depth over time",
		  "Requests in flight on the disk when each request was issued: the mean and the "
		  "largest in each time bin.");
	svg_time_axis(&s, secs_of(p));
	svg_y_axis(&s, top > 0 ? top * 1.1 : 1, 1, "in flight at issue", fmt_plain);
	svg_legend(&s, 0, "#2ca02c", "mean");
	svg_legend(&s, 1, "#d62728", "largest");
	polyline(f, &s, p, mean, top > 0 ? top * 1.1 : 1, "#2ca02c", NULL);
	polyline(f, &s, p, max, top > 0 ? top * 1.1 : 1, "#d62728", "4 3");
	svg_end(&s);
}

/* ---- histograms ---- */

/* The row of v with `sub` rows a power of two (1 or 2), and a row's lower
 * edge. */
static int hrow(__u64 v, int sub)
{
	unsigned int e = v ? hist_msb(v) : 0;

	return (int)e * sub + (sub == 2 && e ? (int)((v >> (e - 1)) & 1) : 0);
}

static __u64 hrow_lower(int r, int sub)
{
	__u64 base = 1ULL << (r / sub);

	return sub == 2 && r % 2 ? base + base / 2 : base;
}

/* Bars of a histogram in rows of `sub` a power of two (log x axis), with
 * the p50, p99 and p99.9 of the whole marked. */
static void histogram(FILE *f, const struct chart_env *e, const __u64 *h, int sub,
		      const char *title, const char *cap,
		      void (*fmt)(char *, size_t, __u64), const char *xlabel)
{
	static const double pct[] = { 50, 99, 99.9 };
	static const char *const pname[] = { "p50", "p99", "p99.9" };
	__u64 rows[128] = {}, max = 0;
	int lo = 128, hi = -1;
	char buf[64], v[32];
	struct svg s;
	double bw;

	for (__u32 i = 0; i < HIST_BUCKETS; i++) {
		int r;

		if (!h[i])
			continue;
		r = hrow(hist_lower(i), sub);
		rows[r] += h[i];
		lo = r < lo ? r : lo;
		hi = r > hi ? r : hi;
	}
	svg_begin(&s, f, W, H, e->standalone, title, cap);
	if (hi < 0) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">none</text>\n", s.x0 + 8, s.y0 + 20);
		svg_end(&s);
		return;
	}
	for (int r = lo; r <= hi; r++)
		max = rows[r] > max ? rows[r] : max;
	svg_y_axis(&s, max * 1.1, 1, "requests", fmt_count);
	bw = s.pw / (hi - lo + 1);
	for (int r = lo; r <= hi; r++) {
		double bh = rows[r] / (max * 1.1) * s.ph;

		fmt(v, sizeof(v), hrow_lower(r, sub));
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4c78a8\">"
			"<title>%s and up: %llu</title></rect>\n", s.x0 + (r - lo) * bw + 1,
			s.y0 + s.ph - bh, bw > 2 ? bw - 2 : bw, bh, v, (unsigned long long)rows[r]);
		if ((r - lo) % ((hi - lo) / 10 + 1) == 0)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
				s.x0 + (r - lo) * bw, s.y0 + s.ph + 16, v);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", s.x0 + s.pw / 2, s.h - 6);
	svg_esc(f, xlabel);
	fputs("</text>\n", f);
	/* The percentiles, where they fall in their row. */
	for (int k = 0; k < 3; k++) {
		__u64 val, a, b;
		bool over;
		double x;
		int r;

		if (!hist_percentile(h, pct[k], &val, &over) || !val)
			continue;
		r = hrow(val, sub);
		a = hrow_lower(r, sub);
		b = hrow_lower(r + 1, sub);
		x = s.x0 + (r - lo + (double)(val - a) / (b - a)) * bw;
		fmt(v, sizeof(v), val);
		snprintf(buf, sizeof(buf), "%s %s%s", pname[k], over ? ">" : "", v);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
			"stroke-dasharray=\"3 2\"/><text x=\"%.1f\" y=\"%.1f\" fill=\"#d62728\">%s</text>\n",
			x, s.y0, x, s.y0 + s.ph, x + 3, s.y0 + 14 + 14 * k, buf);
	}
	svg_end(&s);
}

static void fmt_size(char *b, size_t n, __u64 v)
{
	fmt_bytes(b, n, v);
}

static void draw_size_histogram(FILE *f, const struct page *p, const struct chart_env *e)
{
	histogram(f, e, p->size, 1, "Request sizes",
		  "Requests by size at issue, a bar a power of two; the percentiles of all of "
		  "them (within 1/128) marked.", fmt_size, "request size");
}

static void draw_latency_histogram(FILE *f, const struct page *p, const struct chart_env *e)
{
	histogram(f, e, p->sum.lat[RQSUM_TOTAL], 2, "Latency",
		  "Requests by total latency (start to completion), two bars a power of two; the "
		  "percentiles (within 1/128) marked.", fmt_ns, "total latency");
}

/* ---- who ---- */

static void who_name(char *b, size_t n, const struct page_who *w, bool cgroups)
{
	const char *path;

	if (!cgroups) {
		if (w->pid || w->comm[0])
			snprintf(b, n, "%s %u", w->comm[0] ? w->comm : "?", w->pid);
		else	/* in flight when the trace began */
			snprintf(b, n, "unknown");
		return;
	}
	path = w->cgroup ? cgroup_path(w->hier, w->cgroup) : NULL;
	if (path)
		snprintf(b, n, "%s", path);
	else if (w->cgroup)
		snprintf(b, n, "cgroup %llu", (unsigned long long)w->cgroup);
	else
		snprintf(b, n, "unknown");
}

/* One panel of bars: the top rows by requests or by time, then apart the
 * flusher's writeback (submitters) and what did not fit the table. */
static void bars(FILE *f, const struct svg *s, double x0, double pw,
		 const struct page_table *t, bool by_time, bool cgroups)
{
	const struct page_who *top[TOP_BARS * 4];
	struct page_who wb;
	int n = page_top(t, by_time ? PAGE_BY_TIME : PAGE_BY_REQUESTS, top, TOP_BARS * 4);
	int shown = 0;
	double max = 1, bh = s->ph / (TOP_BARS + 2);
	char name[300], v[32];

	page_writeback(t, &wb);
	for (int i = 0; i < n; i++) {
		__u64 val = by_time ? top[i]->time_ns : top[i]->requests;

		max = val > max ? val : max;
	}
	max = fmax(max, by_time ? wb.time_ns : wb.requests);
	fprintf(f, "<text class=\"t\" x=\"%.1f\" y=\"%.1f\">by %s</text>\n", x0, s->y0 - 6,
		by_time ? "time (sum of latencies)" : "requests");
	for (int i = 0; i < n && shown < TOP_BARS; i++) {
		const struct page_who *w = top[i];
		__u64 val = by_time ? w->time_ns : w->requests;
		double y = s->y0 + shown * bh, len = val / max * (pw - 190);

		if (!cgroups && page_is_writeback(w))
			continue;
		who_name(name, sizeof(name), w, cgroups);
		if (by_time)
			fmt_ns(v, sizeof(v), val);
		else
			snprintf(v, sizeof(v), "%llu", (unsigned long long)val);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x0 + 150, y + bh * 0.7);
		svg_esc(f, name);
		fprintf(f, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4c78a8\">"
			"<title>", x0 + 154, y + 2, len, bh - 4);
		svg_esc(f, name);
		fprintf(f, ": %llu requests, %llu bytes, %llu ns</title></rect>"
			"<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			(unsigned long long)w->requests, (unsigned long long)w->bytes,
			(unsigned long long)w->time_ns, x0 + 158 + len, y + bh * 0.7, v);
		shown++;
	}
	if (!cgroups && wb.requests) {
		__u64 val = by_time ? wb.time_ns : wb.requests;
		double y = s->y0 + (TOP_BARS + 1) * bh, len = val / max * (pw - 190);

		if (by_time)
			fmt_ns(v, sizeof(v), val);
		else
			snprintf(v, sizeof(v), "%llu", (unsigned long long)val);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">writeback (kworkers)</text>"
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ff7f0e\">"
			"<title>kernel workers (the flusher): %llu requests, %llu bytes</title></rect>"
			"<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x0 + 150, y + bh * 0.7, x0 + 154,
			y + 2, len, bh - 4, (unsigned long long)wb.requests,
			(unsigned long long)wb.bytes, x0 + 158 + len, y + bh * 0.7, v);
	}
}

static void who_chart(FILE *f, const struct page *p, const struct chart_env *e, bool cgroups)
{
	const struct page_table *t = cgroups ? &p->cgroups : &p->who;
	char cap[256];
	struct svg s;

	snprintf(cap, sizeof(cap), "%s%s",
		 cgroups ? "The cgroups that owned the I/O (the dirtier's for writeback where the "
			   "kernel says), the largest first" :
			   "Processes that submitted requests, the largest first; kernel workers "
			   "(the flusher's writeback) apart",
		 t->others.requests ? "; more than the table holds went to none of them" : "");
	svg_begin(&s, f, W, H + 40, e->standalone, cgroups ? "Cgroups" : "Submitters", cap);
	s.y0 += 12;
	s.ph -= 12;
	bars(f, &s, 8, W / 2 - 8, t, false, cgroups);
	bars(f, &s, W / 2 + 8, W / 2 - 16, t, true, cgroups);
	fprintf(f, "</svg>\n");
}

static void draw_submitters(FILE *f, const struct page *p, const struct chart_env *e)
{
	who_chart(f, p, e, false);
}

static void draw_cgroups(FILE *f, const struct page *p, const struct chart_env *e)
{
	who_chart(f, p, e, true);
}

const struct chart charts[] = {
	{ "latency-heatmap", "Where the time went", draw_latency_heatmap },
	{ "device-heatmap", "Where the time went", draw_device_heatmap },
	{ "latency-histogram", "Where the time went", draw_latency_histogram },
	{ "iops", "How much, how deep", draw_iops },
	{ "throughput", "How much, how deep", draw_throughput },
	{ "queue-depth", "How much, how deep", draw_queue_depth },
	{ "size-histogram", "How much, how deep", draw_size_histogram },
	{ "offset", "Where on the disk", draw_offset },
	{ "submitters", "Who", draw_submitters },
	{ "cgroups", "Who", draw_cgroups },
};

const int ncharts = sizeof(charts) / sizeof(charts[0]);
