// SPDX-License-Identifier: GPL-2.0
/* report --compare A B (include/report/compare.h): text and JSON. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib/hist.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "lib/ranktest.h"
#include "lib/sanitize.h"
#include "lib/units.h"
#include "report/compare.h"
#include "report/report.h"

static const double pcts[] = { 50, 99, 99.9 };
static const char *const pct_names[] = { "p50", "p99", "p99.9" };
#define NPCTS 3

/* The slice of a completion at t: the span from the first completion to
 * the last cut in equal parts, so that idle time before and after the
 * I/O holds none. */
static int slice_of(const struct compare_side *s, __u64 t)
{
	__u64 t0 = s->first, t1 = s->last;
	int i;

	if (t <= t0 || t1 <= t0)
		return 0;
	i = (t - t0) * (double)COMPARE_SLICES / (t1 - t0);
	return i < COMPARE_SLICES ? i : COMPARE_SLICES - 1;
}

static void take(struct compare_side *s, const struct iolens_rq *rq, bool second)
{
	enum page_op op = page_op_of(rq);
	__u64 lat = rq->ts_start && rq->ts_complete > rq->ts_start ?
		    rq->ts_complete - rq->ts_start : 0;

	if (second) {
		if (lat && !rq->status) {
			int i = slice_of(s, rq->ts_complete);

			s->slice[i][op][hist_index(lat)]++;
			s->slice_n[i][op]++;
		}
		return;
	}
	s->requests[op]++;
	s->bytes[op] += rq->bytes;
	if (rq->status) {
		s->failed[op]++;
	} else {
		rqsum_add(&s->sum[op], rq);
		s->lat_sum[op] += lat;
	}
	if (rq->ts_complete && (!s->first || rq->ts_complete < s->first))
		s->first = rq->ts_complete;
	if (rq->ts_complete > s->last)
		s->last = rq->ts_complete;
}

/* One pass over the trace: 0, or -1 after one line (unreadable, out of
 * memory).  A damaged trace gives what it held, and says so. */
static int read_side(struct compare_side *s, char which, bool second)
{
	struct trace_reader *tr;
	struct trace_item it;
	struct stat st;
	char err[256];
	int n, e = stat(s->path, &st) ? errno : 0;

	/* Read twice: a pipe would not give it again. */
	if (e || !S_ISREG(st.st_mode)) {
		pr_err("%c: %s: %s", which, s->path, e ? strerror(e) :
		       "not a regular file (--compare reads each trace twice)");
		return -1;
	}
	tr = trace_open(s->path, &s->hdr, err, sizeof(err));
	if (!tr) {
		pr_err("%c: %s", which, err);
		return -1;
	}
	if (!second && !(s->p = page_new(s->hdr.mono_ns, false, false))) {
		trace_close(tr);
		pr_err("out of memory");
		return -1;
	}
	while ((n = trace_next(tr, &it, err, sizeof(err))) == 1) {
		if (it.type != TRACE_REC_RQ)
			continue;
		if (!second && page_add(s->p, &it.rq)) {
			trace_close(tr);
			pr_err("out of memory");
			return -1;
		}
		take(s, &it.rq, second);
	}
	if (!second) {
		s->complete = !n;
		if (n)
			snprintf(s->damage, sizeof(s->damage), "%s", err);
		else
			s->end = it.end;
		page_span(s->p, s->complete ? s->end.mono_ns : s->last);
	}
	trace_close(tr);
	return 0;
}

double compare_duration(const struct compare_side *s)
{
	__u64 end = s->complete ? s->end.mono_ns : s->last;

	return end > s->hdr.mono_ns ? (end - s->hdr.mono_ns) / 1e9 : 0;
}

double compare_busy(const struct compare_side *s)
{
	return s->last > s->first ? (s->last - s->first) / 1e9 : 0;
}

/* Each slice's p50 (k 0) or p99 (1) of op, where it had the requests. */
static int slice_values(const struct compare_side *s, enum page_op op, int k, double *v)
{
	int n = 0;
	__u64 x;
	bool over;

	for (int i = 0; i < COMPARE_SLICES; i++)
		if (s->slice_n[i][op] >= (k ? COMPARE_P99_MIN : COMPARE_P50_MIN) &&
		    hist_percentile_n(s->slice[i][op], s->slice_n[i][op], k ? 99 : 50, &x, &over))
			v[n++] = x;
	return n;
}

double compare_pct(const struct compare_side *s, enum page_op op, double p)
{
	__u64 v;
	bool over;

	return hist_percentile(s->sum[op].lat[RQSUM_TOTAL], p, &v, &over) && !over ? v : NAN;
}

void compare_judge(const struct compare_side *a, const struct compare_side *b,
		   enum page_op op, struct compare_verdict *v)
{
	double va[COMPARE_SLICES], vb[COMPARE_SLICES];

	memset(v, 0, sizeof(*v));
	for (int k = 0; k < 2; k++) {
		int na = slice_values(a, op, k, va), nb = slice_values(b, op, k, vb);
		double ra = compare_pct(a, op, k ? 99 : 50), rb = compare_pct(b, op, k ? 99 : 50);

		v->n[k][0] = na;
		v->n[k][1] = nb;
		v->p[k] = -1;
		if (na < COMPARE_SLICES_MIN || nb < COMPARE_SLICES_MIN)
			continue;
		v->judged = true;
		v->p[k] = ranktest_p(va, na, vb, nb);
		/* Beyond the noise and big enough to matter. */
		if (v->p[k] >= 0 && v->p[k] < COMPARE_ALPHA / 2 && ra > 0 &&
		    fabs(rb / ra - 1) >= COMPARE_MIN_CHANGE) {
			int sign = rb > ra ? 1 : rb < ra ? -1 : 0;

			/* Two percentiles moved apart: it differs, no side. */
			v->sign = v->differs && v->sign != sign ? 0 : sign;
			v->differs = true;
		}
	}
}

/* ---- text ---- */

static void intro(FILE *f, char which, const struct compare_side *s)
{
	time_t secs = s->hdr.real_ns / 1000000000ULL;
	char when[64] = "?";
	struct tm tm;
	__u64 n = 0;

	for (int o = 0; o < PAGE_NOPS; o++)
		n += s->requests[o];
	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "# %c: ", which);
	san_fputs_text(f, s->path);
	fputs("\n#    host ", f);
	san_fputs_text(f, s->hdr.host);
	fputs(", kernel ", f);
	san_fputs_text(f, s->hdr.kernel);
	fprintf(f, "\n#    started %s, %.3f s, %llu requests", when, compare_duration(s),
		(unsigned long long)n);
	if (!s->complete) {
		fputs(" (the trace ends early: ", f);
		san_fputs_text(f, s->damage);
		fputs(")", f);
	}
	if (s->complete && s->end.lost)
		fprintf(f, ", %llu lost", (unsigned long long)s->end.lost);
	fputc('\n', f);
}

static double per_s(const struct compare_side *s, double v)
{
	double d = compare_busy(s);

	return d > 0 ? v / d : NAN;
}

static double mean_of(__u64 sum, __u64 n)
{
	return n ? (double)sum / n : NAN;
}

/* A row's value of side s's op, from an expression of s, op and arg. */
#define VALUE(name, expr)						\
	static double name(const struct compare_side *s, enum page_op op,	\
			   double arg __attribute__((unused)))		\
	{								\
		return (expr);						\
	}
VALUE(v_requests, s->requests[op])
VALUE(v_failed, s->failed[op])
VALUE(v_bytes, s->bytes[op])
VALUE(v_iops, per_s(s, s->requests[op]))
VALUE(v_bytes_per_s, per_s(s, s->bytes[op]))
VALUE(v_mean, mean_of(s->lat_sum[op], s->sum[op].lat_n[RQSUM_TOTAL]))
VALUE(v_pct, compare_pct(s, op, arg))
VALUE(v_qd, mean_of(s->sum[op].qd_sum, s->sum[op].qd_n))

const struct compare_row compare_rows[] = {
	{ "requests", "requests", v_requests, 0, "%.0f", 0, -1 },
	{ "failed", "failed", v_failed, 0, "%.0f", 0, -1 },
	{ NULL, "bytes", v_bytes, 0, NULL, 0, -1 },
	{ "IOPS", "iops", v_iops, 0, "%.1f", 0, 3 },
	{ "MB/s", "bytes_per_s", v_bytes_per_s, 0, "%.2f", 1e-6, 1 },
	{ "mean", "mean_ns", v_mean, 0, NULL, 0, 1 },
	{ "p50", "p50_ns", v_pct, 50, NULL, 0, -1 },
	{ "p99", "p99_ns", v_pct, 99, NULL, 0, -1 },
	{ "p99.9", "p99.9_ns", v_pct, 99.9, NULL, 0, -1 },
	{ "mean QD", "mean_qd", v_qd, 0, "%.2f", 0, 3 },
	{ 0 },
};

void compare_cells(const struct compare_row *r, const struct compare_side *side,
		   enum page_op op, char cell[3][COMPARE_CELL])
{
	double v[2];

	for (int i = 0; i < 2; i++) {
		v[i] = r->value(&side[i], op, r->arg);
		if (isnan(v[i]))
			snprintf(cell[i], COMPARE_CELL, "-");
		else if (!r->fmt)
			fmt_ns(cell[i], COMPARE_CELL, v[i]);
		else
			snprintf(cell[i], COMPARE_CELL, r->fmt, v[i] * (r->scale ? r->scale : 1));
	}
	if (isnan(v[0]) || isnan(v[1]) || v[0] <= 0)
		snprintf(cell[2], COMPARE_CELL, "-");
	else
		snprintf(cell[2], COMPARE_CELL, "%.2f", v[1] / v[0]);
}

void compare_verdict_words(const struct compare_verdict *v, const struct compare_side *side,
			   enum page_op op, const char **head, char *detail, size_t len)
{
	static const char *const k_name[] = { "p50", "p99" };
	size_t n = 0;

	if (!v->judged) {
		*head = "not judged";
		snprintf(detail, len, "fewer than %d time slices with %d requests (p50) on a side",
			 COMPARE_SLICES_MIN, COMPARE_P50_MIN);
		return;
	}
	*head = !v->differs ? "no significant difference" : v->sign > 0 ? "B is slower" :
		v->sign < 0 ? "B is faster" : "B is different, p50 and p99 apart";
	*detail = 0;
	for (int k = 0; k < 2 && n < len; k++) {
		double a = compare_pct(&side[0], op, k ? 99 : 50);
		double b = compare_pct(&side[1], op, k ? 99 : 50);

		n += snprintf(detail + n, len - n, "%s%s", k ? ", " : "", k_name[k]);
		if (n < len && v->p[k] < 0)
			n += snprintf(detail + n, len - n, " not judged");
		else if (n < len && v->differs && a > 0)
			n += snprintf(detail + n, len - n, " x%.2f p=%.2g", b / a, v->p[k]);
		else if (n < len)
			n += snprintf(detail + n, len - n, " p=%.2g", v->p[k]);
	}
}

void compare_text(FILE *f, const struct compare_side *side)
{
	const struct compare_side *a = &side[0], *b = &side[1];

	intro(f, 'A', a);
	intro(f, 'B', b);
	for (int o = 0; o < PAGE_NOPS; o++) {
		struct compare_verdict v;
		const char *head;
		char detail[128];

		if (!a->requests[o] && !b->requests[o])
			continue;
		compare_judge(a, b, o, &v);
		fprintf(f, "\n%-12s %14s %14s %9s\n", page_op_names[o], "A", "B", "B/A");
		for (const struct compare_row *r = compare_rows; r->json; r++) {
			char c[3][COMPARE_CELL];

			if (!r->label)
				continue;
			compare_cells(r, side, o, c);
			fprintf(f, "  %-10s %14s %14s %9s\n", r->label, c[0], c[1], c[2]);
		}
		compare_verdict_words(&v, side, o, &head, detail, sizeof(detail));
		fprintf(f, "  verdict: %s (%s)\n", head, detail);
	}
	fprintf(f, "\n# IOPS and MB/s: over the span from the first completion to the last;\n"
		"# latency: from a request's start to its completion, of successes;\n"
		"# verdict: the exact rank-sum test of each trace's %d time slices' p50\n"
		"# and p99, each at p < %.3g (%.2g for both), and a change of %.0f%% or more\n",
		COMPARE_SLICES, COMPARE_ALPHA / 2, COMPARE_ALPHA, COMPARE_MIN_CHANGE * 100);
}

/* ---- JSON ---- */

static void json_side(struct json *j, const char *key, const struct compare_side *s,
		      enum page_op op)
{
	json_obj_open(j, key);
	for (const struct compare_row *r = compare_rows; r->json; r++) {
		double v = r->value(s, op, r->arg);

		if (isnan(v))
			json_null(j, r->json);
		else if (r->prec < 0)
			json_u64(j, r->json, v);
		else
			json_f64(j, r->json, v, r->prec);
	}
	json_obj_close(j);
}

static void json_trace(struct json *j, const char *key, const struct compare_side *s)
{
	const struct page *p = s->p;
	__u64 v;
	bool over;

	json_obj_open(j, key);
	json_str(j, "path", s->path);
	json_str(j, "host", s->hdr.host);
	json_str(j, "kernel", s->hdr.kernel);
	json_u64(j, "start_realtime_ns", s->hdr.real_ns);
	json_f64(j, "duration_s", compare_duration(s), 6);
	json_f64(j, "busy_s", compare_busy(s), 6);
	json_bool(j, "complete", s->complete);
	if (s->complete)
		json_null(j, "damage");
	else
		json_str(j, "damage", s->damage);
	json_u64(j, "lost", s->complete ? s->end.lost : 0);
	/* As report -f html's data says them of the same trace. */
	json_u64(j, "requests", p->requests);
	json_u64(j, "bytes", p->bytes);
	json_u64(j, "failed", p->failed);
	json_obj_open(j, "latency_ns");
	for (int k = 0; k < NPCTS; k++) {
		if (hist_percentile(p->sum.lat[RQSUM_TOTAL], pcts[k], &v, &over) && !over)
			json_u64(j, pct_names[k], v);
		else
			json_null(j, pct_names[k]);
	}
	json_obj_close(j);
	json_obj_close(j);
}

static void json_verdict(struct json *j, const struct compare_verdict *v)
{
	static const char *const k_name[] = { "p50", "p99" };

	json_obj_open(j, "verdict");
	json_str(j, "test", "exact Wilcoxon-Mann-Whitney rank-sum of the time slices' percentiles");
	json_u64(j, "slices", COMPARE_SLICES);
	json_f64(j, "alpha", COMPARE_ALPHA, 4);
	json_f64(j, "min_change", COMPARE_MIN_CHANGE, 3);
	json_bool(j, "judged", v->judged);
	for (int k = 0; k < 2; k++) {
		char key[24];

		snprintf(key, sizeof(key), "%s_p", k_name[k]);
		if (v->p[k] >= 0)
			json_f64(j, key, v->p[k], 12);
		else
			json_null(j, key);
		snprintf(key, sizeof(key), "%s_slices", k_name[k]);
		json_arr_open(j, key);
		json_u64(j, NULL, v->n[k][0]);
		json_u64(j, NULL, v->n[k][1]);
		json_arr_close(j);
	}
	json_bool(j, "significant", v->differs);
	if (!v->differs)
		json_null(j, "b_is");
	else
		json_str(j, "b_is", v->sign > 0 ? "slower" : v->sign < 0 ? "faster" : "different");
	json_obj_close(j);
}

void compare_json(FILE *f, const struct compare_side *side)
{
	struct json j;

	json_init(&j, f);
	json_obj_open(&j, NULL);
	json_trace(&j, "a", &side[0]);
	json_trace(&j, "b", &side[1]);
	json_arr_open(&j, "ops");
	for (int o = 0; o < PAGE_NOPS; o++) {
		struct compare_verdict v;

		if (!side[0].requests[o] && !side[1].requests[o])
			continue;
		compare_judge(&side[0], &side[1], o, &v);
		json_obj_open(&j, NULL);
		json_str(&j, "op", page_op_names[o]);
		json_side(&j, "a", &side[0], o);
		json_side(&j, "b", &side[1], o);
		json_verdict(&j, &v);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_newline(&j);
}

/* ---- the run ---- */

int compare_run(const struct report_opts *o)
{
	struct compare_side side[2] = { { .path = o->path }, { .path = o->compare } };
	const char *inputs[] = { o->path, o->compare, NULL };
	const char *outpath = o->outpath;
	struct outfile out;
	int ret = 1;

	for (int i = 0; i < 2; i++) {
		if (read_side(&side[i], 'A' + i, false))
			goto done;
		side[i].slice = calloc(COMPARE_SLICES, sizeof(*side[i].slice));
		if (!side[i].slice) {
			pr_err("out of memory");
			goto done;
		}
		if (read_side(&side[i], 'A' + i, true))
			goto done;
	}
	if (outfile_begin(&out, "report", outpath, inputs)) {
		/* A path refused (lib/outfile.h) is bad input. */
		if (errno == EPERM)
			ret = 2;
		goto done;
	}
	o->fmt->compare(out.f, side);
	ret = outfile_end(&out, "report", true) ? 1 : 0;
	/* A damaged trace was compared as far as it went: said, exit 1. */
	if (!ret && (!side[0].complete || !side[1].complete))
		ret = 1;
done:
	for (int i = 0; i < 2; i++) {
		page_free(side[i].p);
		free(side[i].slice);
	}
	return ret;
}
