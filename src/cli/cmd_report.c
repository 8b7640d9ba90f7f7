// SPDX-License-Identifier: GPL-2.0
/* iolens report: a trace file of `iolens record` as text, CSV, JSON lines, a
 * Perfetto (Chrome JSON) trace, a page of charts or one chart. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "lib/cgroups.h"
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/devices.h"
#include "lib/json.h"
#include "lib/log.h"
#include "report/report_html.h"
#include "report/report_perfetto.h"
#include "trace/rqfilter.h"
#include "trace/rqfmt.h"
#include "lib/tracefile.h"

#define CMD "report"

enum out_fmt { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_PERFETTO, FMT_HTML, FMT_SVG, FMT_NR };

static const char *const fmts[FMT_NR] = {
	[FMT_TEXT] = "text", [FMT_CSV] = "csv", [FMT_JSON] = "json",
	[FMT_PERFETTO] = "perfetto", [FMT_HTML] = "html", [FMT_SVG] = "svg",
};

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
	return fmts[i];
}

static const char *chart_name(int i)
{
	return charts[i].name;
}

static const char *fmt_choices(void)
{
	static char buf[128];

	return names_of(buf, sizeof(buf), fmt_name, FMT_NR);
}

static const char *chart_choices(void)
{
	static char buf[512];

	return names_of(buf, sizeof(buf), chart_name, ncharts);
}

enum { OPT_CHART = CLI_LONG };

struct dev_ent {
	struct trace_device d;
	bool announced;		/* already described in text output */
};

struct report {
	enum out_fmt fmt;
	FILE *out;
	const char *path;
	struct rqfilter filt;
	struct trace_header hdr;

	struct dev_ent *dev;
	size_t ndev, capdev;
	size_t last_dev;	/* requests come in runs on one disk */

	__u64 total, shown, lost;
	__u64 unseen;		/* shown without completion */
	struct trace_end end;
	bool complete;
	bool prescanned;	/* devices known before the first request */

	struct perfetto *pf;	/* -f perfetto */
	struct html *html;	/* -f html, -f svg */
	const struct chart *chart;	/* --chart */
	char filters[256];	/* the filter options, as given */
};

static const struct cli_opt opts[] = {
	CLI_OPT_OF('f', "format", "FMT", fmt_choices, "text (default), csv, json (JSON lines), perfetto\n(Chrome trace JSON for ui.perfetto.dev), html (a page of\ncharts) or svg (one chart: --chart)"),
	CLI_OPT('o', "output", "FILE", "write to FILE instead of standard output"),
	CLI_OPT_OF(OPT_CHART, "chart", "NAME", chart_choices, "with -f svg: latency-heatmap, device-heatmap,\nlatency-histogram, iops, throughput, queue-depth,\nsize-histogram, offset, submitters or cgroups"),
	CLI_GROUP(cli_rqfilter_opts),
	CLI_END,
};

const struct cli_cmd report_cli = {
	.name = CMD,
	.usage = "usage: iolens report [options] FILE\n",
	.about = "Print a trace file written by 'iolens record'.\n",
	.opts = opts,
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

/* Strings from a file go to terminals and JSON: control characters and bytes
 * that are not UTF-8 become '?', in place. */
static void clean_str(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		int len = 0;

		if (*p < 0x20 || *p == 0x7f) {
			*p++ = '?';
			continue;
		}
		if (*p < 0x80) {
			p++;
			continue;
		}
		if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
			len = 2;
		else if ((*p & 0xf0) == 0xe0)
			len = 3;
		else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
			len = 4;
		for (int i = 1; i < len; i++) {
			if ((p[i] & 0xc0) != 0x80) {
				len = 0;
				break;
			}
		}
		if (!len) {
			*p++ = '?';
			continue;
		}
		p += len;
	}
}

/* ---- devices ---- */

static struct dev_ent *dev_find(struct report *r, __u32 dev)
{
	if (r->last_dev < r->ndev && r->dev[r->last_dev].d.dev == dev)
		return &r->dev[r->last_dev];
	for (size_t i = 0; i < r->ndev; i++) {
		if (r->dev[i].d.dev == dev) {
			r->last_dev = i;
			return &r->dev[i];
		}
	}
	return NULL;
}

/* Adds or updates a disk; a disk named by no DEVICE record gets "MAJ:MIN". */
static struct dev_ent *dev_add(struct report *r, const struct trace_device *d)
{
	struct dev_ent *e = dev_find(r, d->dev);

	if (!e) {
		if (r->ndev == r->capdev) {
			size_t cap = r->capdev ? 2 * r->capdev : 8;
			struct dev_ent *n = realloc(r->dev, cap * sizeof(*n));

			if (!n)
				return NULL;
			r->dev = n;
			r->capdev = cap;
		}
		e = &r->dev[r->ndev++];
		e->announced = false;
	}
	e->d = *d;
	if (!e->d.name[0])
		snprintf(e->d.name, sizeof(e->d.name), "%u:%u",
			 kdev_major(d->dev), kdev_minor(d->dev));
	clean_str(e->d.name);
	return e;
}

static const char *dev_label(struct report *r, __u32 dev)
{
	struct dev_ent *e = dev_find(r, dev);
	struct trace_device d = { .dev = dev };

	if (!e)
		e = dev_add(r, &d);
	return e ? e->d.name : "?";
}

static const char *dev_label_cb(void *ctx, __u32 dev)
{
	return dev_label(ctx, dev);
}

/* ---- text decorations ---- */

static void bs_str(char *buf, size_t len, __u32 bs)
{
	if (bs)
		snprintf(buf, len, "%u B", bs);
	else
		snprintf(buf, len, "unknown");
}

static void print_dev(struct report *r, const struct trace_device *d)
{
	char lbs[16], pbs[16];

	bs_str(lbs, sizeof(lbs), d->logical_bs);
	bs_str(pbs, sizeof(pbs), d->physical_bs);
	fprintf(r->out, "%s (%u:%u, logical %s, physical %s)", d->name,
		kdev_major(d->dev), kdev_minor(d->dev), lbs, pbs);
}

static void print_intro(struct report *r)
{
	time_t secs = r->hdr.real_ns / 1000000000ULL;
	char when[64] = "?";
	struct tm tm;

	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
	fprintf(r->out, "# iolens trace of host %s, kernel %s, started %s, by %s; devices: ",
		r->hdr.host, r->hdr.kernel, when, r->hdr.tool);
	if (!r->prescanned)
		fputs("see the '# device' lines", r->out);
	else if (!r->ndev)
		fputs("none named", r->out);
	for (size_t i = 0; i < r->ndev; i++) {
		if (i)
			fputs(", ", r->out);
		print_dev(r, &r->dev[i].d);
		r->dev[i].announced = true;
	}
	fputc('\n', r->out);
}

/* The intro names the disks, but they are only known by reading the file:
 * read it once for them when it can be read twice (not from a pipe). */
static void prescan_devices(struct report *r)
{
	struct trace_header h;
	struct trace_reader *tr;
	struct trace_item it;
	struct stat st;

	if (stat(r->path, &st) || !S_ISREG(st.st_mode))
		return;
	tr = trace_open(r->path, &h, NULL, 0);
	if (!tr)
		return;
	r->prescanned = true;
	/* Damage is reported by the real pass. */
	while (trace_next(tr, &it, NULL, 0) == 1) {
		if (it.type == TRACE_REC_DEVICE)
			dev_add(r, &it.dev);
	}
	trace_close(tr);
}

static double duration_s(const struct report *r)
{
	if (r->end.mono_ns < r->hdr.mono_ns)
		return 0;
	return (r->end.mono_ns - r->hdr.mono_ns) / 1e9;
}

static void print_summary(struct report *r)
{
	struct json j;

	if (r->fmt == FMT_TEXT) {
		fprintf(r->out, "# %llu of %llu requests shown, duration %.3f s, ",
			(unsigned long long)r->shown,
			(unsigned long long)r->total, duration_s(r));
		if (r->end.lost)
			fprintf(r->out, "lost %llu records (ring buffer full or hook skipped), ",
				(unsigned long long)r->end.lost);
		else
			fputs("no records lost, ", r->out);
		fprintf(r->out, "%llu requests untracked%s, %llu shown without completion%s\n",
			(unsigned long long)r->end.untracked,
			r->end.untracked ? " (request table full)" : "",
			(unsigned long long)r->unseen,
			r->unseen ? " (in flight at the end, or not delivered)" : "");
	} else if (r->fmt == FMT_JSON) {
		json_init(&j, r->out);
		json_obj_open(&j, NULL);
		json_obj_open(&j, "summary");
		json_u64(&j, "requests_shown", r->shown);
		json_u64(&j, "requests_total", r->total);
		json_f64(&j, "duration_s", duration_s(r), 6);
		json_u64(&j, "lost", r->end.lost);
		json_u64(&j, "untracked", r->end.untracked);
		json_u64(&j, "unseen", r->unseen);
		json_obj_close(&j);
		json_obj_close(&j);
		json_newline(&j);
	}
}

/* ---- main loop ---- */

/* Whether the filters keep `rq`; its names in *names. */
static bool selected(struct report *r, struct iolens_rq *rq,
		     struct rqfmt_names *names)
{
	names->dev = dev_label(r, rq->dev);
	/* The submitter's cgroup is always a cgroup2 id. */
	names->cgroup = cgroup_path(0, rq->cgroup);
	names->io_cgroup = cgroup_path(rq->io_cgroup_hier, rq->io_cgroup);
	if (!rqfilter_match(&r->filt, rq, names->dev, names->cgroup,
			    names->io_cgroup))
		return false;
	/* After matching: -c compares the comm as recorded. */
	clean_str(rq->comm);
	return true;
}

static int handle_rq(struct report *r, struct iolens_rq *rq)
{
	static const enum rqfmt_mode modes[] = {
		[FMT_TEXT] = RQFMT_TEXT, [FMT_CSV] = RQFMT_CSV,
		[FMT_JSON] = RQFMT_JSON,
	};
	struct rqfmt_names names;

	r->total++;
	if (!selected(r, rq, &names))
		return 0;
	r->shown++;
	if (!rq->ts_complete)
		r->unseen++;
	if (r->fmt == FMT_PERFETTO)
		return perfetto_scan(r->pf, rq);
	if (r->html)
		return html_add(r->html, rq);
	rqfmt_print(r->out, modes[r->fmt], rq, &names, r->hdr.mono_ns);
	return 0;
}

/* -f perfetto's second pass over the file: the same requests again, now
 * written.  0, or -1 if out of memory. */
static int perfetto_pass(struct report *r)
{
	struct rqfmt_names names;
	struct trace_header h;
	struct trace_reader *tr = trace_open(r->path, &h, NULL, 0);
	struct trace_item it;
	int ret = 0;

	perfetto_begin(r->pf, dev_label_cb, r);
	/* Damage was reported by the first pass; this one stops there too. */
	while (tr && !ret && trace_next(tr, &it, NULL, 0) == 1)
		if (it.type == TRACE_REC_RQ && selected(r, &it.rq, &names))
			ret = perfetto_add(r->pf, &it.rq);
	trace_close(tr);
	return ret;
}

/* 0 at END, 1 if the file is damaged (after printing what it held), -1 on
 * an error of our own (reported). */
static int read_all(struct report *r, struct trace_reader *tr, char *err,
		    size_t errlen)
{
	struct trace_item it;
	struct dev_ent *e;
	int n;

	while ((n = trace_next(tr, &it, err, errlen)) == 1) {
		switch (it.type) {
		case TRACE_REC_DEVICE:
			e = dev_add(r, &it.dev);
			if (!e)
				goto oom;
			if (r->fmt == FMT_TEXT && !e->announced) {
				fputs("# device ", r->out);
				print_dev(r, &e->d);
				fputc('\n', r->out);
				e->announced = true;
			}
			break;
		case TRACE_REC_CGROUP:
			clean_str(it.cg.path);
			if (cgroup_set(it.cg.hier, it.cg.id, it.cg.path))
				goto oom;
			break;
		case TRACE_REC_RQ:
			if (handle_rq(r, &it.rq))
				goto oom;
			break;
		case TRACE_REC_LOST:
			r->lost += it.lost;
			break;
		default:
			break;
		}
	}
	if (n < 0)
		return 1;
	r->end = it.end;
	r->complete = true;
	return 0;
oom:
	pr_err("out of memory");
	return -1;
}

static int parse_args(struct report *r, int argc, char **argv,
		      const char **outpath)
{
	const char *chart = NULL;
	struct cli_parser p;
	size_t i, n = 0;
	int opt, ret;

	cli_begin(&p, &report_cli, argc, argv);
	while ((opt = cli_next(&p)) > 0) {
		switch (opt) {
		case 'f':
			for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
				if (!strcmp(optarg, fmts[i]))
					break;
			}
			if (i == sizeof(fmts) / sizeof(fmts[0]))
				return usage_err(CMD, "unknown format '%s': use one of %s",
						 optarg, fmt_choices());
			r->fmt = i;
			break;
		case 'o':
			*outpath = optarg;
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
	if (chart && r->fmt != FMT_SVG)
		return usage_err(CMD, "--chart goes with -f svg (-f html draws every chart)");
	if (r->fmt == FMT_SVG) {
		if (!chart)
			return usage_err(CMD, "-f svg draws one chart: give --chart NAME (%s)",
					 chart_choices());
		r->chart = chart_find(chart);
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

static void report_free(struct report *r)
{
	free(r->dev);
	perfetto_free(r->pf);
	html_free(r->html);
}

int cmd_report(int argc, char **argv)
{
	struct report r = { .fmt = FMT_TEXT };
	struct trace_reader *tr = NULL;
	const char *outpath = NULL;
	char err[256] = "";
	int ret, status;

	ret = parse_args(&r, argc, argv, &outpath);
	if (ret)
		return ret < 0 ? 0 : ret;
	/* Cgroup names come from the file, never from this machine. */
	cgroup_offline();

	tr = trace_open(r.path, &r.hdr, err, sizeof(err));
	if (!tr) {
		fprintf(stderr, "iolens %s: %s: %s\n", CMD, r.path, err);
		return 1;
	}
	/* Perfetto is written in a second pass: memory holds a window of
	 * the trace, not all of it (report_perfetto.h). */
	if (r.fmt == FMT_PERFETTO) {
		struct stat st;

		if (stat(r.path, &st) || !S_ISREG(st.st_mode)) {
			trace_close(tr);
			return usage_err(CMD, "-f perfetto reads the trace twice: give a file, not a pipe");
		}
	}
	clean_str(r.hdr.host);
	clean_str(r.hdr.kernel);
	clean_str(r.hdr.tool);

	/* Opened only now, so a bad input leaves no empty output behind. */
	r.out = stdout;
	if (outpath && strcmp(outpath, "-")) {
		r.out = fopen(outpath, "w");
		if (!r.out) {
			pr_err("cannot create %s: %s", outpath, strerror(errno));
			trace_close(tr);
			return 1;
		}
	}

	if (r.fmt == FMT_TEXT) {
		prescan_devices(&r);
		print_intro(&r);
	}
	if (r.fmt == FMT_HTML || r.fmt == FMT_SVG)
		r.html = html_new(r.out, &r.hdr, r.chart);
	else if (r.fmt == FMT_PERFETTO)
		r.pf = perfetto_new(r.out, &r.hdr);
	else
		rqfmt_header(r.out, r.fmt == FMT_CSV ? RQFMT_CSV :
			     r.fmt == FMT_JSON ? RQFMT_JSON : RQFMT_TEXT);
	if ((r.fmt == FMT_PERFETTO && !r.pf) ||
	    ((r.fmt == FMT_HTML || r.fmt == FMT_SVG) && !r.html)) {
		pr_err("out of memory");
		trace_close(tr);
		report_free(&r);
		return 1;
	}

	status = read_all(&r, tr, err, sizeof(err));
	trace_close(tr);
	ret = status ? 1 : 0;

	if (status >= 0 && r.fmt == FMT_PERFETTO) {
		struct perfetto_facts facts = {
			.total = r.total,
			.lost = r.complete ? r.end.lost : r.lost,
			.untracked = r.end.untracked,
			.end_ns = r.end.mono_ns,
			.complete = r.complete,
		};

		if (perfetto_pass(&r) || perfetto_end(r.pf, &facts)) {
			pr_err("out of memory");
			ret = 1;
		}
	}
	/* A damaged trace still gets its page, which says so. */
	if (status >= 0 && r.html) {
		struct html_facts facts = {
			.path = r.path, .filters = r.filters, .total = r.total,
			.lost = r.complete ? r.end.lost : r.lost,
			.untracked = r.end.untracked, .end_ns = r.end.mono_ns,
			.complete = r.complete, .damage = status > 0 ? err : NULL,
		};

		html_end(r.html, &facts, dev_label_cb, &r);
	}
	if (r.complete)
		print_summary(&r);

	if (fflush(r.out) || ferror(r.out)) {
		pr_err("%s: write error: %s", outpath ? outpath : "standard output",
		       strerror(errno));
		ret = 1;
	}
	if (r.out != stdout && fclose(r.out) && !ret) {
		pr_err("%s: %s", outpath, strerror(errno));
		ret = 1;
	}
	/* Last, so it is not lost among the records above it. */
	if (status > 0)
		fprintf(stderr, "iolens %s: %s: %s\n", CMD, r.path, err);
	report_free(&r);
	return ret;
}
