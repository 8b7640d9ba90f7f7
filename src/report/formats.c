// SPDX-License-Identifier: GPL-2.0
/* report's output formats: a row each, with what it does at the start, for
 * each request and at the end. */
#include "report/compare.h"
#include "report/report_html.h"
#include "report/report_perfetto.h"
#include "report/run.h"

/* text, csv, json: a line per request, between a header and a summary. */
static int lines_open(struct report *r)
{
	if (r->fmt->devices)
		report_intro(r);
	rqfmt_header(r->out, r->fmt->mode, r->files, r->stacks);
	return 0;
}

static int lines_add(struct report *r, struct iolens_rq *rq,
		     const struct rqfmt_names *n)
{
	rqfmt_print(r->out, r->fmt->mode, rq, n, r->hdr.mono_ns);
	return 0;
}

static int lines_close(struct report *r, int status, const char *err)
{
	(void)status;
	(void)err;
	if (r->complete)
		report_summary(r);
	return 0;
}

/* Perfetto is written in a second pass: memory holds a window of the
 * trace, not all of it (report_perfetto.h). */
static int pf_open(struct report *r)
{
	r->pf = perfetto_new(r->out, &r->hdr);
	return r->pf ? 0 : -1;
}

static int pf_scan(struct report *r, struct iolens_rq *rq,
		   const struct rqfmt_names *n)
{
	(void)n;
	return perfetto_scan(r->pf, rq);
}

static int pf_write(struct report *r, struct iolens_rq *rq)
{
	return perfetto_add(r->pf, rq);
}

static int pf_close(struct report *r, int status, const char *err)
{
	struct perfetto_facts facts = {
		.total = r->total,
		.lost = r->complete ? r->end.lost : r->lost,
		.untracked = r->end.untracked,
		.end_ns = r->end.mono_ns,
		.complete = r->complete,
	};

	(void)status;
	(void)err;
	perfetto_begin(r->pf, report_dev_label, r);
	if (report_second_pass(r, pf_write))
		return -1;
	return perfetto_end(r->pf, &facts);
}

/* html (every chart) and svg (the one of --chart). */
static int html_open(struct report *r)
{
	r->html = html_new(r->out, &r->hdr, r->chart);
	return r->html ? 0 : -1;
}

static int html_add_rq(struct report *r, struct iolens_rq *rq,
		    const struct rqfmt_names *n)
{
	(void)n;
	return html_add(r->html, rq);
}

/* A damaged trace still gets its page, which says so. */
static int html_close(struct report *r, int status, const char *err)
{
	struct html_facts facts = {
		.path = r->path, .filters = r->filters, .total = r->total,
		.lost = r->complete ? r->end.lost : r->lost,
		.untracked = r->end.untracked, .end_ns = r->end.mono_ns,
		.complete = r->complete, .damage = status > 0 ? err : NULL,
		.ks = r->ks,
	};

	html_end(r->html, &facts, report_dev_label, r);
	return 0;
}

#define LINES(m) .mode = (m), .open = lines_open, .add = lines_add, .close = lines_close, \
		 .stacks = true
#define PAGE .open = html_open, .add = html_add_rq, .close = html_close

const struct report_format report_formats[] = {
	{ "text", "a line per request, the disks first, a summary last",
	  LINES(RQFMT_TEXT), .devices = true, .compare = compare_text },
	{ "csv", "CSV with a header row", LINES(RQFMT_CSV) },
	{ "json", "JSON lines: an object per request, then a summary",
	  LINES(RQFMT_JSON), .compare = compare_json },
	{ "perfetto", "Chrome trace JSON for ui.perfetto.dev (not from a pipe)",
	  .twice = true, .open = pf_open, .add = pf_scan, .close = pf_close },
	{ "html", "a page of charts, one file that needs nothing else", PAGE,
	  .compare = compare_html },
	{ "svg", "one chart: --chart NAME", PAGE, .chart = true },
};

const int report_nformats = sizeof(report_formats) / sizeof(report_formats[0]);
