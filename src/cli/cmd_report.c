// SPDX-License-Identifier: GPL-2.0
/* iolens report: its options; the formats and the reading are report/. */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "report/charts.h"
#include "report/report.h"

/* Names of a table, space-separated, for the option table's choices. */
static const char *names_of(char *buf, size_t len, const char *(*name)(int i), int n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && k < len; i++)
		k += snprintf(buf + k, len - k, "%s%s", i ? " " : "", name(i));
	return buf;
}

static const char *fmt_name(int i)
{
	return report_formats[i].name;
}

static const char *chart_name(int i)
{
	return charts[i].name;
}

static const char *fmt_choices(void)
{
	static char buf[128];

	return names_of(buf, sizeof(buf), fmt_name, report_nformats);
}

static const char *chart_choices(void)
{
	static char buf[512];

	return names_of(buf, sizeof(buf), chart_name, ncharts);
}

enum { OPT_CHART = CLI_LONG, OPT_STACKS, OPT_COMPARE };

/* The formats, from their rows (report/formats.c). */
static void format_fields(FILE *f)
{
	fprintf(f, "formats:\n");
	for (int i = 0; i < report_nformats; i++)
		fprintf(f, "  %-10s %s\n", report_formats[i].name, report_formats[i].help);
}

/* What report's options fill: its struct, and the chart named by --chart,
 * looked up once -f is known. */
struct report_args {
	struct report_opts r;
	const char *chart;
	bool compare;
};

static int set_format(void *at, const char *arg, const char *cmd)
{
	const struct report_format **fmt = at;

	for (int i = 0; i < report_nformats; i++) {
		if (!strcmp(arg, report_formats[i].name)) {
			*fmt = &report_formats[i];
			return 0;
		}
	}
	return usage_err(cmd, "unknown format '%s': use one of %s", arg, fmt_choices());
}

/* The filters as given, for the page to say what it shows. */
static void note_filter(void *obj, int key, const char *arg)
{
	struct report_opts *r = &((struct report_args *)obj)->r;
	size_t n = strlen(r->filters);

	if (n < sizeof(r->filters))
		snprintf(r->filters + n, sizeof(r->filters) - n, "%s-%c %s",
			 n ? " " : "", key, arg);
}

#define OPTS struct report_args

static const struct cli_opt opts[] = {
	CLI_OPT_OF('f', "format", "FMT", fmt_choices, "the output format: text (default) or another below",
		   CLI_CALL(OPTS, r.fmt, set_format)),
	CLI_OPT('o', "output", "FILE", "write to FILE instead of standard output",
		CLI_STRING(OPTS, r.outpath)),
	CLI_OPT_OF(OPT_CHART, "chart", "NAME", chart_choices, "with -f svg: latency-heatmap, device-heatmap,\nlatency-histogram, iops, throughput, queue-depth,\nsize-histogram, offset, submitters or cgroups",
		   CLI_STRING(OPTS, chart)),
	CLI_OPT(OPT_STACKS, "stacks", NULL, "text, json, csv: each request's submitting stack\n(a trace made by record --stacks)",
		CLI_BOOL(OPTS, r.stacks)),
	CLI_OPT('F', "files", NULL, "text, json, csv: the file of each request's data\n(a trace made by record --files)",
		CLI_BOOL(OPTS, r.files)),
	CLI_OPT(OPT_COMPARE, "compare", NULL, "report --compare A B: two traces side by side, per op,\nwith a verdict on their latencies (text, json, html)",
		CLI_BOOL(OPTS, compare)),
	CLI_GROUP_AT(cli_rqfilter_opts, OPTS, r.filt, struct rqfilter, .seen = note_filter),
	CLI_END,
};

/* The chart -f svg draws, then the trace FILE. */
static int take_file(void *at, int argc, char **argv, const char *cmd)
{
	struct report_args *a = at;
	struct report_opts *r = &a->r;

	if (a->chart && !r->fmt->chart)
		return usage_err(cmd, "--chart goes with -f svg (-f html draws every chart)");
	if (r->fmt->chart) {
		if (!a->chart)
			return usage_err(cmd, "-f svg draws one chart: give --chart NAME (%s)",
					 chart_choices());
		for (int i = 0; i < ncharts && !r->chart; i++)
			if (!strcmp(charts[i].name, a->chart))
				r->chart = &charts[i];
		if (!r->chart) {
			char cut[LOG_EXCERPT_LEN];

			return usage_err(cmd, "no chart '%s': want one of %s",
					 log_excerpt(a->chart, cut, sizeof(cut)), chart_choices());
		}
	}
	if (a->compare) {
		if (!r->fmt->compare)
			return usage_err(cmd, "--compare writes text, json or html, not %s",
					 r->fmt->name);
		if (r->filters[0] || r->stacks || r->files)
			return usage_err(cmd, "--compare takes two whole traces: no filters, --stacks or --files");
		if (argc - optind != 2)
			return usage_err(cmd, "--compare takes two trace files, A and B");
		r->path = argv[optind];
		r->compare = argv[optind + 1];
		return 0;
	}
	if (optind == argc)
		return usage_err(cmd, "which trace FILE?");
	if (optind + 1 < argc)
		return usage_err(cmd, "one FILE only, '%s' is one too many",
				 argv[optind + 1]);
	r->path = argv[optind];
	return 0;
}

CLI_COMMAND(report) = {
	.name = "report",
	.usage = "usage: iolens report [options] FILE\n"
		 "       iolens report --compare [-f text|json|html] [-o OUT] A B\n",
	.about = "Print a trace file written by 'iolens record'.\n",
	.opts = opts,
	.fields = format_fields,
	.more =
		"A truncated or damaged file is printed up to the damage; the exit code\n"
		"is then 1.\n"
		"\n"
		"examples:\n"
		"  iolens report trace.iol\n"
		"  iolens report -d loop0 -O write -m 2ms trace.iol\n"
		"  iolens report -f csv -o trace.csv trace.iol\n"
		"  iolens report -f json trace.iol | jq 'select(.device_ns > 1000000)'\n"
		"  iolens report -f perfetto -o trace.json trace.iol   # open in ui.perfetto.dev\n"
		"  iolens report -f html -o trace.html trace.iol       # one page, offline\n"
		"  iolens report -f svg --chart latency-heatmap -o lat.svg trace.iol\n"
		"  iolens report --compare before.iol after.iol       # did the change help?\n",
	.operands = take_file,
	.summary = "a trace file as text, CSV, JSON lines, Perfetto or a page of charts",
	.order = 60,
};

static int cmd_report(int argc, char **argv)
{
	struct report_args a = { .r.fmt = &report_formats[0] };
	int rc = cli_parse(&report_cli, &a, argc, argv);

	return rc == CLI_RUN ? report_run(&a.r) : rc;
}
