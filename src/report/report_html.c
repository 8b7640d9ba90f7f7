// SPDX-License-Identifier: GPL-2.0
/*
 * The page of `iolens report -f html`: a summary, the charts, and the
 * numbers they were drawn from as JSON in a <script type="application/json">
 * block, which no browser runs and any script may read (the tests do).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/cgroups.h"
#include "lib/devices.h"
#include "lib/hist.h"
#include "lib/json.h"
#include "lib/units.h"
#include "report/report_html.h"
#include "report/svg.h"
#include "trace/kstacks.h"
#include "trace/reqflags.h"
#include "trace/rqfile.h"

struct html {
	FILE *f;
	struct trace_header hdr;
	const struct chart *chart;
	struct page *p;
};

const char html_css[] =
	"body{font:14px sans-serif;margin:24px auto;color:#222;max-width:980px;padding:0 12px}"
	"h1{font-size:22px}h2{font-size:17px;margin-top:30px;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;"
	"border-bottom:1px solid #e4e4e4;text-align:right}th{background:#f4f4f4}"
	"td:first-child,th:first-child{text-align:left}.warn{background:#fff3cd;"
	"border:1px solid #e0c36a;padding:8px 12px}.note{color:#555}"
	"svg{display:block;margin:14px 0;max-width:100%;height:auto}"
	"svg text{font:12px sans-serif;fill:#222}svg .t{font-weight:bold;font-size:14px}"
	"svg .c{fill:#555}svg .ax{stroke:#888;fill:none}svg .g{stroke:#ddd}";

struct html *html_new(FILE *f, const struct trace_header *h, const struct chart *chart)
{
	struct html *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->f = f;
	x->hdr = *h;
	x->chart = chart;
	x->p = page_new(h->mono_ns, !chart && (h->flags & TRACE_HDR_STACKS),
			!chart && (h->flags & TRACE_HDR_FILES));
	if (!x->p) {
		free(x);
		return NULL;
	}
	return x;
}

int html_add(struct html *h, const struct iolens_rq *rq)
{
	return page_add(h->p, rq);
}

void html_free(struct html *h)
{
	if (!h)
		return;
	page_free(h->p);
	free(h);
}

/* ---- the summary ---- */

static void td_ns(FILE *f, const __u64 *hist, double p)
{
	__u64 v;
	bool over;
	char buf[32];

	if (!hist_percentile(hist, p, &v, &over)) {
		fputs("<td>-</td>", f);
		return;
	}
	fmt_ns(buf, sizeof(buf), v);
	fprintf(f, "<td>%s%s</td>", over ? "&gt;" : "", buf);
}

static void summary(struct html *h, const struct html_facts *x,
		    const char *(*dev_name)(void *ctx, __u32 dev), void *ctx)
{
	const struct page *p = h->p;
	time_t secs = h->hdr.real_ns / 1000000000ULL;
	double dur = x->complete && x->end_ns > h->hdr.mono_ns ?
		     (x->end_ns - h->hdr.mono_ns) / 1e9 : (p->last - p->t0) / 1e9;
	char when[64] = "?", b[32];
	struct tm tm;
	FILE *f = h->f;

	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
	fputs("<p>Trace <b>", f);
	svg_esc(f, x->path);
	fputs("</b> of host ", f);
	svg_esc(f, h->hdr.host);
	fputs(", kernel ", f);
	svg_esc(f, h->hdr.kernel);
	fprintf(f, ", started %s, recorded by ", when);
	svg_esc(f, h->hdr.tool);
	fputs(".", f);
	if (x->filters[0]) {
		fputs(" Filters: <code>", f);
		svg_esc(f, x->filters);
		fputs("</code>.", f);
	}
	fputs("</p>\n", f);
	if (!x->complete) {
		fputs("<p class=\"warn\">The trace ends early: ", f);
		svg_esc(f, x->damage ? x->damage : "truncated");
		fputs(". This page shows the requests before that point; what came after is not "
		      "counted anywhere here.</p>\n", f);
	}
	fmt_bytes(b, sizeof(b), p->bytes);
	fprintf(f, "<table><tr><th>duration</th><td>%.3f s%s</td></tr>\n"
		"<tr><th>requests shown</th><td>%llu of %llu%s</td></tr>\n"
		"<tr><th>bytes</th><td>%s</td></tr>\n",
		dur, x->complete ? "" : " (to the last request read)",
		(unsigned long long)p->requests, (unsigned long long)x->total,
		p->requests < x->total ? " (the filters kept these)" : "", b);
	fprintf(f, "<tr><th>records lost</th><td>%llu%s</td></tr>\n"
		"<tr><th>requests not tracked</th><td>%llu%s</td></tr>\n"
		"<tr><th>without completion</th><td>%llu%s</td></tr>\n",
		(unsigned long long)x->lost, x->lost ? " (ring buffer full: these requests are in no "
		"chart)" : "", (unsigned long long)x->untracked,
		x->untracked ? " (request table full: their start is unknown)" : "",
		(unsigned long long)p->unseen,
		p->unseen ? " (in flight at the end: counted, drawn in no chart over time)" : "");
	fprintf(f, "<tr><th>failed</th><td%s>%llu%s</td></tr></table>\n",
		p->failed ? " class=\"warn\"" : "", (unsigned long long)p->failed,
		p->failed ? " (ended with an error status: in the counts and IOPS, in no latency; "
		"listed below)" : "");
	fputs("<table><tr><th>device</th><th>requests</th><th>bytes</th><th>mean latency</th>"
	      "<th>p50</th><th>p99</th><th>p99.9</th><th>mean queue depth</th>"
	      "<th>without completion</th><th>failed</th></tr>\n", f);
	for (int i = 0; i < p->ndev; i++) {
		const struct page_dev *d = &p->devs[i];

		fmt_bytes(b, sizeof(b), d->bytes);
		fputs("<tr><td>", f);
		svg_esc(f, dev_name(ctx, d->dev));
		fprintf(f, "</td><td>%llu</td><td>%s</td>", (unsigned long long)d->requests, b);
		if (d->timed)
			fmt_ns(b, sizeof(b), d->total_ns / d->timed);
		fprintf(f, "<td>%s</td>", d->timed ? b : "-");
		td_ns(f, d->sum.lat[RQSUM_TOTAL], 50);
		td_ns(f, d->sum.lat[RQSUM_TOTAL], 99);
		td_ns(f, d->sum.lat[RQSUM_TOTAL], 99.9);
		if (d->sum.qd_n)
			fprintf(f, "<td>%.2f</td>", (double)d->sum.qd_sum / d->sum.qd_n);
		else
			fputs("<td>-</td>", f);
		fprintf(f, "<td>%llu</td><td>%llu</td></tr>\n", (unsigned long long)d->unseen,
			(unsigned long long)d->failed);
	}
	fputs("</table>\n", f);
}

/* A failed request's comm, NUL-terminated. */
static const char *comm_of(const struct iolens_rq *rq, char *buf)
{
	memcpy(buf, rq->comm, IOLENS_COMM_LEN);
	buf[IOLENS_COMM_LEN] = '\0';
	return buf;
}

/* The first failed requests, as a table. */
static void failures(struct html *h, const char *(*dev_name)(void *ctx, __u32 dev),
		     void *ctx)
{
	const struct page *p = h->p;
	char comm[IOLENS_COMM_LEN + 1];
	FILE *f = h->f;

	if (!p->failed)
		return;
	fprintf(f, "<h2>Failed requests</h2>\n<p class=\"warn\">%llu requests ended with an "
		"error status; the first %d:</p>\n<table><tr><th>completed (s)</th><th>device</th>"
		"<th>op</th><th>sector</th><th>bytes</th><th>status</th><th>pid</th>"
		"<th>command</th></tr>\n", (unsigned long long)p->failed, p->nfails);
	for (int i = 0; i < p->nfails; i++) {
		const struct iolens_rq *rq = &p->fails[i];

		fprintf(f, "<tr><td>%.6f</td><td>", rq->ts_complete > p->t0 ?
			(rq->ts_complete - p->t0) / 1e9 : 0.0);
		svg_esc(f, dev_name(ctx, rq->dev));
		fprintf(f, "</td><td>%s</td><td>%llu</td><td>%u</td><td>%s</td><td>%u</td><td>",
			op_name(rq->op), (unsigned long long)rq->sector, rq->bytes,
			blk_status_name(rq->status), rq->pid);
		svg_esc(f, comm_of(rq, comm));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* How many of the busiest stacks the page shows (all are in its JSON). */
#define TOP_STACKS 10

/* The busiest submitting stacks, by requests, each with its frames. */
static void stacks(struct html *h, struct kstacks *ks)
{
	const struct page_who *top[TOP_STACKS];
	const struct page *p = h->p;
	int n = p->stacks.v ? page_top(&p->stacks, PAGE_BY_REQUESTS, top, TOP_STACKS) : 0;
	FILE *f = h->f;
	char b[32];

	if (!n)
		return;
	fprintf(f, "<h2>Submitting stacks</h2>\n<p>The kernel stacks that submitted the "
		"requests, the %d with the most, innermost frame first.</p>\n<table><tr>"
		"<th>requests</th><th>bytes</th><th>mean latency</th><th>stack</th></tr>\n", n);
	for (int i = 0; i < n; i++) {
		const struct kstack *k = kstacks_get(ks, top[i]->stack);
		const char *why = kstack_unknown(top[i]->stack);

		fmt_bytes(b, sizeof(b), top[i]->bytes);
		fprintf(f, "<tr><td>%llu</td><td>%s</td>", (unsigned long long)top[i]->requests, b);
		fmt_ns(b, sizeof(b), top[i]->timed ? top[i]->time_ns / top[i]->timed : 0);
		fprintf(f, "<td>%s</td><td><pre>", top[i]->timed ? b : "-");
		for (__u32 j = 0; k && j < k->n; j++) {
			svg_esc(f, k->frame[j]);
			fputc('\n', f);
		}
		if (!k)
			fprintf(f, "(%s)", why ? why : "not found");
		fputs("</pre></td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* How many of the files with the most bytes the page shows (all are in
 * its JSON). */
#define TOP_FILES 10

/* A file row as requests name it, for trace/rqfile.h. */
static struct iolens_rq file_rq(const struct page_who *w)
{
	return (struct iolens_rq){ .fkind = w->fkind, .fdev = w->fdev, .ino = w->ino,
				   .fgen = w->fgen, .bytes = w->bytes };
}

/* The files with the most bytes: their paths as they were recorded (or
 * what the data was), bytes read and written, requests, mean latency. */
static void files(struct html *h)
{
	const struct page_who *top[TOP_FILES];
	const struct page *p = h->p;
	int n = p->files.v ? page_top(&p->files, PAGE_BY_BYTES, top, TOP_FILES) : 0;
	FILE *f = h->f;
	char b[32], what[64];

	if (!n)
		return;
	fprintf(f, "<h2>Files</h2>\n<p>What the requests' data belonged to, the %d with the "
		"most bytes: files by their paths where the trace was recorded, a "
		"filesystem's metadata, a raw device, or what nothing told.</p>\n<table><tr>"
		"<th>file</th><th>read</th><th>written</th><th>requests</th>"
		"<th>mean latency</th></tr>\n", n);
	for (int i = 0; i < n; i++) {
		struct iolens_rq k = file_rq(top[i]);
		const char *path = rqfile_path(&k);

		fputs("<tr><td>", f);
		svg_esc(f, path ? path : rqfile_unnamed(&k, rqfile_kind(&k), what, sizeof(what)));
		fmt_bytes(b, sizeof(b), top[i]->op_bytes[0]);
		fprintf(f, "</td><td>%s</td>", b);
		fmt_bytes(b, sizeof(b), top[i]->op_bytes[1]);
		fprintf(f, "<td>%s</td><td>%llu</td>", b, (unsigned long long)top[i]->requests);
		fmt_ns(b, sizeof(b), top[i]->timed ? top[i]->time_ns / top[i]->timed : 0);
		fprintf(f, "<td>%s</td></tr>\n", top[i]->timed ? b : "-");
	}
	fputs("</table>\n", f);
}

/* ---- the numbers, as JSON ---- */

static void json_series(struct json *j, const char *key, const struct page *p,
			bool bytes)
{
	json_arr_open(j, key);
	for (int o = 0; o < PAGE_NOPS; o++) {
		json_arr_open(j, NULL);
		for (int i = 0; i < p->nbins; i++)
			json_u64(j, NULL, bytes ? p->col[i].bytes[o] : p->col[i].n[o]);
		json_arr_close(j);
	}
	json_arr_close(j);
}

static void json_pcts(struct json *j, const char *key, const __u64 *hist)
{
	static const double pct[] = { 50, 99, 99.9 };
	static const char *const name[] = { "p50", "p99", "p99.9" };
	__u64 v;
	bool over;

	json_obj_open(j, key);
	for (int k = 0; k < 3; k++) {
		if (hist_percentile(hist, pct[k], &v, &over) && !over)
			json_u64(j, name[k], v);
		else
			json_null(j, name[k]);
	}
	json_obj_close(j);
}

static void json_who(struct json *j, const char *key, const struct page_table *t,
		     bool cgroups)
{
	json_arr_open(j, key);
	for (int i = 0; i < t->cap; i++) {
		const struct page_who *w = &t->v[i];

		if (!w->used)
			continue;
		json_obj_open(j, NULL);
		if (cgroups) {
			json_str(j, "cgroup", cgroup_path(w->hier, w->cgroup));
			json_u64(j, "cgroup_id", w->cgroup);
		} else {
			json_u64(j, "pid", w->pid);
			json_str(j, "comm", w->comm);
			json_bool(j, "writeback", page_is_writeback(w));
		}
		json_u64(j, "requests", w->requests);
		json_u64(j, "bytes", w->bytes);
		json_u64(j, "time_ns", w->time_ns);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_u64(j, cgroups ? "cgroups_others" : "submitters_others", t->others.requests);
}

static void json_fails(struct json *j, const struct page *p,
		       const char *(*dev_name)(void *ctx, __u32 dev), void *ctx)
{
	char comm[IOLENS_COMM_LEN + 1];

	json_arr_open(j, "failures");
	for (int i = 0; i < p->nfails; i++) {
		const struct iolens_rq *rq = &p->fails[i];

		json_obj_open(j, NULL);
		json_u64(j, "complete_ns", rq->ts_complete);
		json_str(j, "device", dev_name(ctx, rq->dev));
		json_str(j, "op", op_name(rq->op));
		json_u64(j, "sector", rq->sector);
		json_u64(j, "bytes", rq->bytes);
		json_str(j, "status", blk_status_name(rq->status));
		json_u64(j, "pid", rq->pid);
		json_str(j, "comm", comm_of(rq, comm));
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void json_stacks(struct json *j, const struct page_table *t, struct kstacks *ks)
{
	json_arr_open(j, "stacks");
	for (int i = 0; i < t->cap; i++) {
		const struct page_who *w = &t->v[i];
		const struct kstack *k;

		if (!w->used)
			continue;
		k = kstacks_get(ks, w->stack);
		json_obj_open(j, NULL);
		if (k) {
			json_u64(j, "stack_id", w->stack - 1);
			json_arr_open(j, "stack");
			for (__u32 f = 0; f < k->n; f++)
				json_str(j, NULL, k->frame[f]);
			json_arr_close(j);
		} else {
			json_null(j, "stack_id");
			json_null(j, "stack");
			json_str(j, "stack_unknown", kstack_unknown(w->stack) ?: "not found");
		}
		json_u64(j, "requests", w->requests);
		json_u64(j, "bytes", w->bytes);
		json_u64(j, "time_ns", w->time_ns);
		json_u64(j, "timed", w->timed);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_u64(j, "stacks_others", t->others.requests);
}

static void json_files(struct json *j, const struct page_table *t)
{
	json_arr_open(j, "files");
	for (int i = 0; i < t->cap; i++) {
		const struct page_who *w = &t->v[i];
		struct iolens_rq k = file_rq(w);

		if (!w->used)
			continue;
		json_obj_open(j, NULL);
		rqfile_json(j, &k);
		json_u64(j, "requests", w->requests);
		json_u64(j, "bytes", w->bytes);
		json_u64(j, "read_bytes", w->op_bytes[0]);
		json_u64(j, "write_bytes", w->op_bytes[1]);
		json_u64(j, "time_ns", w->time_ns);
		json_u64(j, "timed", w->timed);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_u64(j, "files_others", t->others.requests);
}

static void write_json(struct json *j, const struct page *p, struct kstacks *ks,
		       const char *(*dev_name)(void *ctx, __u32 dev), void *ctx)
{
	json_obj_open(j, NULL);
	json_u64(j, "t0_ns", p->t0);
	json_u64(j, "bin_ns", p->width);
	json_u64(j, "bins", p->nbins);
	json_u64(j, "requests", p->requests);
	json_u64(j, "bytes", p->bytes);
	json_u64(j, "unseen", p->unseen);
	json_u64(j, "failed", p->failed);
	json_arr_open(j, "failed_per_bin");
	for (int i = 0; i < p->nbins; i++)
		json_u64(j, NULL, p->col[i].failed);
	json_arr_close(j);
	json_fails(j, p, dev_name, ctx);
	json_arr_open(j, "ops");
	for (int o = 0; o < PAGE_NOPS; o++)
		json_str(j, NULL, page_op_names[o]);
	json_arr_close(j);
	json_series(j, "requests_per_bin", p, false);
	json_series(j, "bytes_per_bin", p, true);
	json_obj_open(j, "qd");
	json_arr_open(j, "sum");
	for (int i = 0; i < p->nbins; i++)
		json_u64(j, NULL, p->col[i].qd_sum);
	json_arr_close(j);
	json_arr_open(j, "n");
	for (int i = 0; i < p->nbins; i++)
		json_u64(j, NULL, p->col[i].qd_n);
	json_arr_close(j);
	json_arr_open(j, "max");
	for (int i = 0; i < p->nbins; i++)
		json_u64(j, NULL, p->col[i].qd_max);
	json_arr_close(j);
	json_obj_close(j);
	json_arr_open(j, "latency_rows_ns");
	for (int r = 0; r <= PAGE_LROWS; r++)
		json_u64(j, NULL, page_lrow_lower(r));
	json_arr_close(j);
	for (int k = 0; k < 2; k++) {
		json_arr_open(j, k ? "device_heatmap" : "latency_heatmap");
		for (int i = 0; i < p->nbins; i++)
			for (int r = 0; r < PAGE_LROWS; r++) {
				if (!p->col[i].lat[k][r])
					continue;
				json_arr_open(j, NULL);
				json_u64(j, NULL, i);
				json_u64(j, NULL, r);
				json_u64(j, NULL, p->col[i].lat[k][r]);
				json_arr_close(j);
			}
		json_arr_close(j);
	}
	json_arr_open(j, "offset");
	for (int d = 0; d < p->ndev; d++) {
		const struct page_offsets *off = p->devs[d].off;

		if (!off)
			continue;
		json_obj_open(j, NULL);
		json_str(j, "device", dev_name(ctx, p->devs[d].dev));
		json_u64(j, "sectors_per_row", off->sectors_per_row);
		json_arr_open(j, "cells");
		for (int i = 0; i < p->nbins; i++)
			for (int r = 0; r < PAGE_OROWS; r++)
				for (int o = 0; o < PAGE_NOPS; o++) {
					if (!off->cell[i][r][o])
						continue;
					json_arr_open(j, NULL);
					json_u64(j, NULL, i);
					json_u64(j, NULL, r);
					json_u64(j, NULL, o);
					json_u64(j, NULL, off->cell[i][r][o]);
					json_arr_close(j);
				}
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_pcts(j, "latency_ns", p->sum.lat[RQSUM_TOTAL]);
	json_pcts(j, "device_ns", p->sum.lat[RQSUM_DEVICE]);
	json_pcts(j, "size_bytes", p->size);
	json_arr_open(j, "devices");
	for (int d = 0; d < p->ndev; d++) {
		json_obj_open(j, NULL);
		json_str(j, "device", dev_name(ctx, p->devs[d].dev));
		json_u64(j, "requests", p->devs[d].requests);
		json_u64(j, "bytes", p->devs[d].bytes);
		json_u64(j, "unseen", p->devs[d].unseen);
		json_u64(j, "failed", p->devs[d].failed);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_who(j, "submitters", &p->who, false);
	json_who(j, "cgroups", &p->cgroups, true);
	if (p->stacks.v)
		json_stacks(j, &p->stacks, ks);
	if (p->files.v)
		json_files(j, &p->files);
	json_obj_close(j);
}

void html_embed_json(FILE *f, const char *buf, size_t len)
{
	fputs("<script type=\"application/json\" id=\"iolens-data\">", f);
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '<')
			fputs("\\u003c", f);
		else
			fputc(buf[i], f);
	}
	fputs("</script>\n", f);
}

static void embed_json(FILE *f, const struct page *p, struct kstacks *ks,
		       const char *(*dev_name)(void *ctx, __u32 dev), void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct json j;

	if (!m)
		return;
	json_init(&j, m);
	write_json(&j, p, ks, dev_name, ctx);
	fclose(m);
	html_embed_json(f, buf, len);
	free(buf);
}

void html_end(struct html *h, const struct html_facts *facts,
	      const char *(*dev_name)(void *ctx, __u32 dev), void *ctx)
{
	struct chart_env env = { .dev_name = dev_name, .ctx = ctx,
				 .standalone = h->chart != NULL };
	const char *section = NULL;
	FILE *f = h->f;

	if (facts->complete)
		page_span(h->p, facts->end_ns);
	if (h->chart) {
		h->chart->draw(f, h->p, &env);
		return;
	}
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width\">\n<title>iolens report: ");
	svg_esc(f, facts->path);
	fprintf(f, "</title>\n<style>%s</style>\n</head><body>\n<h1>iolens report</h1>\n", html_css);
	summary(h, facts, dev_name, ctx);
	failures(h, dev_name, ctx);
	stacks(h, facts->ks);
	files(h);
	for (int i = 0; i < ncharts; i++) {
		if (!section || strcmp(section, charts[i].section)) {
			section = charts[i].section;
			fputs("<h2>", f);
			svg_esc(f, section);
			fputs("</h2>\n", f);
		}
		charts[i].draw(f, h->p, &env);
	}
	fprintf(f, "<p class=\"note\">Made by iolens report from the trace alone: one pass, "
		"%d time bins of %.3f s. The numbers every chart was drawn from are in the "
		"page, as JSON (id iolens-data).</p>\n", h->p->nbins, h->p->width / 1e9);
	embed_json(f, h->p, facts->ks, dev_name, ctx);
	fputs("</body></html>\n", f);
}
