// SPDX-License-Identifier: GPL-2.0
/* iolens report: its options; the formats and the reading are report/. */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "report/charts.h"
#include "report/report.h"

#define CMD "report"

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

enum { OPT_CHART = CLI_LONG };

/* The formats, from their rows (report/formats.c). */
static void format_fields(FILE *f)
{
	fprintf(f, "formats:\n");
	for (int i = 0; i < report_nformats; i++)
		fprintf(f, "  %-10s %s\n", report_formats[i].name, report_formats[i].help);
}

static const struct cli_opt opts[] = {
	CLI_OPT_OF('f', "format", "FMT", fmt_choices, "the output format: text (default) or another below"),
	CLI_OPT('o', "output", "FILE", "write to FILE instead of standard output"),
	CLI_OPT_OF(OPT_CHART, "chart", "NAME", chart_choices, "with -f svg: latency-heatmap, device-heatmap,\nlatency-histogram, iops, throughput, queue-depth,\nsize-histogram, offset, submitters or cgroups"),
	CLI_GROUP(cli_rqfilter_opts),
	CLI_END,
};

static const struct cli_cmd report_cli = {
	.name = CMD,
	.usage = "usage: iolens report [options] FILE\n",
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
		"  iolens report -f svg --chart latency-heatmap -o lat.svg trace.iol\n",
};

static int parse_args(struct report_opts *r, int argc, char **argv)
{
	const char *chart = NULL;
	struct cli_parser p;
	size_t n = 0;
	int i;
	int opt, ret;

	cli_begin(&p, &report_cli, argc, argv);
	while ((opt = cli_next(&p)) > 0) {
		switch (opt) {
		case 'f':
			for (i = 0; i < report_nformats; i++) {
				if (!strcmp(optarg, report_formats[i].name))
					break;
			}
			if (i == report_nformats)
				return usage_err(CMD, "unknown format '%s': use one of %s",
						 optarg, fmt_choices());
			r->fmt = &report_formats[i];
			break;
		case 'o':
			r->outpath = optarg;
			break;
		case OPT_CHART:
			chart = optarg;
			break;
		default:
			ret = cli_rqfilter_opt(&r->filt, CMD, opt, optarg);
			if (ret != 1)
				return 2;
			/* As given, for the page to say what it shows. */
			if (n < sizeof(r->filters))
				n += snprintf(r->filters + n, sizeof(r->filters) - n, "%s-%c %s",
					      n ? " " : "", opt, optarg);
		}
	}
	if (opt < 0)
		return opt == CLI_HELP ? -1 : 2;
	if (chart && !r->fmt->chart)
		return usage_err(CMD, "--chart goes with -f svg (-f html draws every chart)");
	if (r->fmt->chart) {
		if (!chart)
			return usage_err(CMD, "-f svg draws one chart: give --chart NAME (%s)",
					 chart_choices());
		for (i = 0; i < ncharts && !r->chart; i++)
			if (!strcmp(charts[i].name, chart))
				r->chart = &charts[i];
		if (!r->chart) {
			char cut[LOG_EXCERPT_LEN];

			return usage_err(CMD, "no chart '%s': want one of %s",
					 log_excerpt(chart, cut, sizeof(cut)), chart_choices());
		}
	}
	if (optind == argc)
		return usage_err(CMD, "which trace FILE?");
	if (optind + 1 < argc)
		return usage_err(CMD, "one FILE only, '%s' is one too many",
				 argv[optind + 1]);
	r->path = argv[optind];
	return 0;
}

static int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .fmt = &report_formats[0] };
	int ret = parse_args(&o, argc, argv);

	if (ret)
		return ret < 0 ? 0 : ret;
	return report_run(&o);
}

CLI_COMMAND(report) = {
	.name = "report",
	.fn = cmd_report,
	.cli = &report_cli,
	.summary = "a trace file as text, CSV, JSON lines, Perfetto, or a page of charts",
	.order = 60,
};
