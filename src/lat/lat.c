// SPDX-License-Identifier: GPL-2.0
/*
 * iolens lat's histograms: what the kernel aggregated, folded into the
 * groups the options ask for, printed as log2 rows with percentiles or as
 * JSON.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "trace/block_trace.h"
#include "lat/lat.h"
#include "lib/cgroups.h"
#include "lib/devices.h"
#include "lib/hist.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/ksyms.h"
#include "lib/sanitize.h"
#include "lib/stop.h"
#include "trace/reqflags.h"
#include "trace/agg_loop.h"
#include "trace/agg_trace.h"
#include "lib/units.h"
#include "lib/vec.h"

#define CMD "lat"
#define BAR_WIDTH 40
/* Rows of the log2 view: one for 0, one per power of two up to
 * 2^HIST_MAX_BITS, one for the overflow bucket. */
#define ROWS (HIST_MAX_BITS + 2)

/* One histogram shown: what it is of, and its counts over the interval. */
struct group {
	__u32 dev;		/* 0: all disks */
	int sg;			/* enum iolens_sgrp; -1: all ops */
	__u32 kflags;		/* cmd_flags, op included, with -F */
	__u32 tgid;		/* with -P; 0: submitter not seen */
	char comm[IOLENS_COMM_LEN];
	int kind;		/* enum iolens_hist_kind */
	int hwq;		/* with --by hwq: queue + 1; 0 none */
	int status;		/* with --by status: blk_status_t */
	unsigned int cg_hier;	/* with --by cgroup: the blkcg, 0 none */
	__u64 cg_id;
	__u32 stack;		/* with --by stack: as iolens_lat_key's */
	__u64 frames[IOLENS_STACK_DEPTH];	/* its frames, 0 past the last */
	__u64 h[HIST_BUCKETS];
};

struct groups {
	const struct lat_opts *o;	/* what they are split by */
	struct group **v;
	int n;
};

static const struct {
	const char *name;	/* JSON "kind" */
	const char *title;
	const char *unit;	/* JSON "unit" */
} kinds[IOLENS_H_NR] = {
	[IOLENS_H_TOTAL] = { "total", "total latency (start to completion)", "ns" },
	[IOLENS_H_QUEUE] = { "queue", "queue time (start to issue)", "ns" },
	[IOLENS_H_DEVICE] = { "device", "device time (issue to completion)", "ns" },
	[IOLENS_H_SIZE] = { "size", "request size at issue", "bytes" },
	[IOLENS_H_QD] = { "qd", "requests in flight at issue", "requests" },
	[IOLENS_H_MISALIGNED] = { "misaligned", "size of misaligned writes", "bytes" },
};

/* Row of the log2 view that fine bucket `i` belongs to: powers of two are
 * whole groups of fine buckets, so no bucket straddles two rows. */
static int row_of(__u32 i)
{
	__u64 lo = hist_lower(i);

	if (i == HIST_OVERFLOW)
		return ROWS - 1;
	return lo ? (int)hist_msb(lo) + 1 : 0;
}

static __u64 row_lower(int r)
{
	return r ? 1ULL << (r - 1) : 0;
}

static void fmt_value(char *buf, size_t len, int kind, __u64 v)
{
	if (kind == IOLENS_H_SIZE)
		fmt_bytes(buf, len, v);
	else if (kind == IOLENS_H_QD)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		fmt_ns(buf, len, v);
}

/* "lo - hi" of values in [lo, hi); a single value when that is all. */
static void fmt_range(char *buf, size_t len, int kind, __u64 lo, __u64 hi,
		      bool open_ended)
{
	char a[32], b[32];

	fmt_value(a, sizeof(a), kind, lo);
	if (open_ended) {
		snprintf(buf, len, ">= %s", a);
	} else if (hi == lo + 1) {
		snprintf(buf, len, "%s", a);
	} else {
		/* Counts have integer values: show the last one, not hi. */
		fmt_value(b, sizeof(b), kind, kind == IOLENS_H_QD ? hi - 1 : hi);
		snprintf(buf, len, "%s - %s", a, b);
	}
}

static void print_bar(__u64 n, __u64 max)
{
	int w = max ? (int)((n * BAR_WIDTH + max - 1) / max) : 0;

	printf("|%.*s%*s|", w, "****************************************",
	       BAR_WIDTH - w, "");
}

static const double pcts[] = { 50, 90, 99, 99.9, 100 };
static const char *const pct_names[] = { "p50", "p90", "p99", "p99.9", "max" };
#define NPCTS (sizeof(pcts) / sizeof(pcts[0]))

/*
 * The p-th percentile of a group: the midpoint of its bucket (within 0.78%),
 * but for sizes the bucket's lower bound.  Requests are whole sectors, and
 * the bounds are every 4 KiB multiple below 512 KiB and every power of two:
 * 64 KiB requests show as 64.0k, not as the midpoint 64.5k, and any size is
 * at most 1/64 low.  *overflow: only a lower bound is known.
 */
static bool pct_value(const struct group *g, double p, __u64 *v, bool *overflow)
{
	__u32 i;

	if (g->kind != IOLENS_H_SIZE)
		return hist_percentile(g->h, p, v, overflow);
	if (!hist_rank_bucket(g->h, p, &i))
		return false;
	*v = hist_lower(i);
	*overflow = i == HIST_OVERFLOW;
	return true;
}

static void print_hist(const struct group *g, bool fine)
{
	__u64 rows[ROWS] = {}, max = 0, n = 0, seen = 0, v;
	int first = ROWS, last = -1;
	char range[80], val[32];
	bool over;

	for (__u32 i = 0; i < HIST_BUCKETS; i++) {
		int r = row_of(i);

		if (!g->h[i])
			continue;
		rows[r] += g->h[i];
		n += g->h[i];
		first = r < first ? r : first;
		last = r > last ? r : last;
	}
	for (int r = first; r <= last; r++)
		max = rows[r] > max ? rows[r] : max;
	printf("%22s : %-8s %s\n", "range", "count", "distribution");
	for (int r = first; r <= last; r++) {
		fmt_range(range, sizeof(range), g->kind, row_lower(r),
			  row_lower(r + 1), r == ROWS - 1);
		printf("%22s : %-8llu ", range, (unsigned long long)rows[r]);
		print_bar(rows[r], max);
		putchar('\n');
	}
	for (size_t p = 0; p < NPCTS; p++) {
		if (!pct_value(g, pcts[p], &v, &over))
			break;
		fmt_value(val, sizeof(val), g->kind, v);
		printf("  %s %s%s", pct_names[p], over ? ">=" : "", val);
	}
	printf("   (%llu)\n", (unsigned long long)n);
	if (!fine)
		return;
	printf("%22s : %-8s %s\n", "fine bucket", "count", "cumulative");
	for (__u32 i = 0; i < HIST_BUCKETS; i++) {
		if (!g->h[i])
			continue;
		seen += g->h[i];
		fmt_range(range, sizeof(range), g->kind, hist_lower(i),
			  hist_lower(i) + hist_width(i), i == HIST_OVERFLOW);
		printf("%22s : %-8llu %6.2f%%\n", range,
		       (unsigned long long)g->h[i], 100.0 * seen / n);
	}
}

/* A group's op by name ("zone-reset"), and its flags ("sync,fua") in buf. */
static const char *group_op_flags(const struct group *g, char *buf, size_t len)
{
	struct iolens_rq rq = { .kflags = g->kflags };

	reqflags_normalize(&rq);
	flags_str(rq.flags, buf, len);
	return op_name(rq.op);
}

/* The cgroup's path; (unknown) for no bio (a flush the block layer made),
 * (gone) for one removed before it was named. */
static const char *cg_name(const struct group *g)
{
	const char *p = cgroup_path(g->cg_hier, g->cg_id);

	return !g->cg_id ? "(unknown)" : p ? p : "(gone)";
}

static int stack_first(const struct group *g)
{
	return ksyms_stack_first(g->frames, IOLENS_STACK_DEPTH);
}

/* A stack's frames, innermost first, one per line below its title. */
static void print_stack(const struct group *g)
{
	char sym[SAN_TEXT_MAX(512) + 1], raw[512];

	if (!g->stack || g->stack == IOLENS_STACK_LOST) {
		printf("    (%s)\n", g->stack ? "not kept: its hash bucket held another stack" :
		       "not seen submitting: a flush the block layer made, or a request "
		       "in flight at the start");
		return;
	}
	for (int i = stack_first(g); i < IOLENS_STACK_DEPTH && g->frames[i]; i++)
		printf("    %s\n", san_text_buf(sym, sizeof(sym),
					     ksyms_name(g->frames[i], raw, sizeof(raw))));
}

static void print_title(const struct group *g, const struct lat_opts *o)
{
	char flags[128], comm[SAN_TEXT_MAX(IOLENS_COMM_LEN) + 1];
	char path[SAN_TEXT_MAX(256) + 1];

	printf("%s", g->dev ? dev_name(g->dev) : "all disks");
	if (o->per_flags) {
		const char *op = group_op_flags(g, flags, sizeof(flags));

		printf(" %s%s%s", op, *flags ? " " : "", flags);
	}
	if (o->per_hwq) {
		if (g->hwq)
			printf(" hwq %d", g->hwq - 1);
		else
			printf(" of no hwq");
	}
	if (o->per_status)
		printf(" %s", blk_status_name(g->status));
	if (o->per_cgroup)
		printf(", cgroup %s", san_text_buf(path, sizeof(path), cg_name(g)));
	if (o->per_stack && g->stack && g->stack != IOLENS_STACK_LOST)
		printf(", stack %u", g->stack - 1);
	else if (o->per_stack)
		printf(", stack unknown");
	if (o->per_proc) {
		if (g->tgid)
			printf(", pid %u %s", g->tgid,
			       san_text_buf(comm, sizeof(comm), g->comm));
		else
			printf(", submitter not seen");
	}
	printf(": %s\n", kinds[g->kind].title);
	if (o->per_stack)
		print_stack(g);
}

static void json_hist(struct json *j, const struct group *g,
		      const struct lat_opts *o)
{
	__u64 rows[ROWS] = {}, v;
	char flags[128];
	bool over;

	json_obj_open(j, NULL);
	if (g->dev)
		json_str(j, "disk", dev_name(g->dev));
	else
		json_null(j, "disk");
	if (o->per_flags) {
		json_str(j, "op", group_op_flags(g, flags, sizeof(flags)));
		json_str(j, "flags", flags);
	}
	if (o->per_hwq) {
		if (g->hwq)
			json_u64(j, "hwq", g->hwq - 1);
		else
			json_null(j, "hwq");
	}
	if (o->per_status)
		json_str(j, "status", blk_status_name(g->status));
	if (o->per_cgroup) {
		json_str(j, "cgroup", cg_name(g));
		json_u64(j, "cgroup_id", g->cg_id);
	}
	if (o->per_proc) {
		json_u64(j, "pid", g->tgid);
		json_str(j, "comm", g->tgid ? g->comm : NULL);
	}
	if (o->per_stack && g->stack && g->stack != IOLENS_STACK_LOST) {
		char sym[512];

		json_u64(j, "stack_id", g->stack - 1);
		json_arr_open(j, "stack");
		for (int i = stack_first(g); i < IOLENS_STACK_DEPTH && g->frames[i]; i++)
			json_str(j, NULL, ksyms_name(g->frames[i], sym, sizeof(sym)));
		json_arr_close(j);
	} else if (o->per_stack) {
		json_null(j, "stack_id");
		json_null(j, "stack");
		json_str(j, "stack_unknown", g->stack ? "not kept" : "not seen submitting");
	}
	json_str(j, "kind", kinds[g->kind].name);
	json_str(j, "unit", kinds[g->kind].unit);
	json_u64(j, "count", hist_count(g->h));
	for (size_t p = 0; p < NPCTS; p++) {
		if (pct_value(g, pcts[p], &v, &over) && !over)
			json_u64(j, pct_names[p], v);
		else
			json_null(j, pct_names[p]);
	}
	json_arr_open(j, "log2");
	for (__u32 i = 0; i < HIST_BUCKETS; i++)
		rows[row_of(i)] += g->h[i];
	for (int r = 0; r < ROWS; r++) {
		if (!rows[r])
			continue;
		json_obj_open(j, NULL);
		json_u64(j, "from", row_lower(r));
		if (r < ROWS - 1)
			json_u64(j, "to", row_lower(r + 1));
		else
			json_null(j, "to");
		json_u64(j, "count", rows[r]);
		json_obj_close(j);
	}
	json_arr_close(j);
	/* Fine buckets: values v with from <= v < to. */
	json_arr_open(j, "buckets");
	for (__u32 i = 0; i < HIST_BUCKETS; i++) {
		if (!g->h[i])
			continue;
		json_obj_open(j, NULL);
		json_u64(j, "from", hist_lower(i));
		if (i < HIST_OVERFLOW)
			json_u64(j, "to", hist_lower(i) + hist_width(i));
		else
			json_null(j, "to");
		json_u64(j, "count", g->h[i]);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

/* Groups print by disk, then process, op, flags, queue, status, cgroup,
 * histogram kind: the first key that differs orders them. */
#define KEY_ORDER(f)							\
	if (x->f != y->f)						\
		return x->f < y->f ? -1 : 1

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = *(struct group *const *)a;
	const struct group *y = *(struct group *const *)b;

	KEY_ORDER(dev);
	KEY_ORDER(tgid);
	KEY_ORDER(sg);
	KEY_ORDER(kflags);
	KEY_ORDER(hwq);
	KEY_ORDER(status);
	KEY_ORDER(cg_hier);
	KEY_ORDER(cg_id);
	KEY_ORDER(kind);
#undef KEY_ORDER
	/* Stacks: the busiest first. */
	if (x->stack != y->stack && hist_count(x->h) != hist_count(y->h))
		return hist_count(x->h) > hist_count(y->h) ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* Adds histogram `h` to the group `proto` describes, created if new. */
static int group_add(struct groups *gs, const struct group *proto,
		     const __u64 *h)
{
	struct group *g = NULL, **v;

	for (int i = 0; i < gs->n && !g; i++) {
		struct group *c = gs->v[i];

		if (c->dev == proto->dev && c->sg == proto->sg &&
		    c->kflags == proto->kflags && c->tgid == proto->tgid &&
		    c->hwq == proto->hwq && c->status == proto->status &&
		    c->cg_hier == proto->cg_hier && c->cg_id == proto->cg_id &&
		    c->stack == proto->stack && c->kind == proto->kind)
			g = c;
	}
	if (!g) {
		g = calloc(1, sizeof(*g));
		v = realloc(gs->v, (gs->n + 1) * sizeof(*v));
		if (!g || !v) {
			free(g);
			if (v)
				gs->v = v;
			return -ENOMEM;
		}
		gs->v = v;
		gs->v[gs->n++] = g;
		memcpy(g, proto, offsetof(struct group, h));
	}
	/* A pid's comm as it last submitted. */
	memcpy(g->comm, proto->comm, sizeof(g->comm));
	hist_add(g->h, h);
	return 0;
}

/* Folds what the kernel kept into the histograms the options ask for. */
static int build_groups(void *arg, const struct agg_trace *st)
{
	struct groups *gs = arg;
	const struct lat_opts *o = gs->o;
	struct group proto = { .sg = -1 };
	int err = 0;

	for (int i = 0; i < gs->n; i++)
		memset(gs->v[i]->h, 0, sizeof(gs->v[i]->h));
	if (o->per_proc || o->per_flags || o->per_hwq || o->per_status || o->per_cgroup ||
	    o->per_stack) {
		for (int i = 0; i < agg_trace_nkeyed(st) && !err; i++) {
			const struct agg_keyed *k = agg_trace_keyed(st, i);

			proto.dev = o->per_disk ? k->dev : 0;
			proto.sg = o->per_flags ? k->key.sg : -1;
			proto.kflags = k->key.flags;
			proto.tgid = k->key.tgid;
			proto.kind = k->key.kind;
			proto.hwq = k->key.hwq;
			proto.status = k->key.status;
			proto.cg_hier = o->per_cgroup ? k->key.io_hier : 0;
			proto.cg_id = o->per_cgroup ? k->key.io_cgroup : 0;
			proto.stack = o->per_stack ? k->key.stack : 0;
			memcpy(proto.frames, k->stack, sizeof(proto.frames));
			memcpy(proto.comm, k->comm, sizeof(proto.comm));
			err = group_add(gs, &proto, k->hist);
		}
	} else {
		for (int s = 0; s < agg_trace_nslots(st) && !err; s++) {
			const struct agg_dev *d = agg_trace_dev(st, s);

			if (!d)
				continue;
			proto.dev = o->per_disk ? d->dev : 0;
			for (int g = 0; g < IOLENS_SG_NR && !err; g++) {
				for (int k = 0; k < IOLENS_H_NR && !err; k++) {
					if (!(o->kinds & (1U << k)) ||
					    !d->hist_n[g][k])
						continue;
					proto.kind = k;
					err = group_add(gs, &proto, d->hist[g][k]);
				}
			}
		}
	}
	vec_sort(gs->v, gs->n, sizeof(*gs->v), group_cmp);
	return err;
}

/*
 * Failed requests of the interval, apart from the histograms: a failure's
 * latency is not a success's.  By disk, op, status and with -P submitter;
 * their time is the one lat measures (bpf fail_ns()): from the start with
 * the total histogram, else from issue.
 */
static bool failures(const struct agg_trace *st, const struct lat_opts *o,
		     struct json *j)
{
	const char *time = o->kinds & (1U << IOLENS_H_TOTAL) ? "total" : "device";
	bool first = true;
	char avg[32];

	if (j)
		json_arr_open(j, "failed");
	for (int i = 0; i < agg_trace_nfailures(st); i++) {
		const struct agg_failure *f = agg_trace_failure(st, i);

		if (!f->n.ios)
			continue;
		if (j) {
			json_obj_open(j, NULL);
			json_str(j, "disk", dev_name(f->dev));
			json_str(j, "op", agg_group_names[f->key.sg]);
			json_str(j, "status", blk_status_name(f->key.status));
			if (o->per_proc)
				json_u64(j, "pid", f->key.tgid);
			json_u64(j, "count", f->n.ios);
			json_str(j, "time", time);
			if (f->n.timed)
				json_f64(j, "avg_ns", (double)f->n.ns / f->n.timed, 2);
			else
				json_null(j, "avg_ns");
			json_obj_close(j);
			continue;
		}
		if (first)
			printf("\nfailed requests (in no histogram above):\n");
		first = false;
		printf("  %s %s %s", dev_name(f->dev), agg_group_names[f->key.sg],
		       blk_status_name(f->key.status));
		if (o->per_proc)
			printf(", pid %u", f->key.tgid);
		printf(": %llu", (unsigned long long)f->n.ios);
		if (f->n.timed) {
			fmt_ns(avg, sizeof(avg), (f->n.ns + f->n.timed / 2) / f->n.timed);
			printf(", %s time avg %s", time, avg);
		}
		printf("\n");
	}
	if (j)
		json_arr_close(j);
	return !first;
}

/* What the kernel side could not count, said in both formats: never silent. */
static const struct loss {
	const char *json;
	size_t off;		/* in struct iolens_stat_counters */
	const char *text;	/* after the count */
} losses[] = {
	{ "untracked_device_events", offsetof(struct iolens_stat_counters, no_slot),
	  "events of disks beyond the slot table were not counted" },
	{ "issue_stamps_missing", offsetof(struct iolens_stat_counters, no_stamp),
	  "requests had no issue time: not in queue/device histograms" },
	{ "split_values_dropped", offsetof(struct iolens_stat_counters, no_key),
	  "values were dropped: more than the split table holds" },
	{ "failures_not_by_status", offsetof(struct iolens_stat_counters, no_fail_key),
	  "failed requests were not kept: more statuses and devices than the table of failures holds" },
	{ 0 },
};

static void report(void *arg, const struct agg_trace *st, double secs)
{
	const struct groups *gs = arg;
	const struct lat_opts *o = gs->o;
	struct iolens_stat_counters lost;
	char ts[64];
	time_t now = time(NULL);
	struct tm tm;
	bool any = false;
	__u64 missed = 0;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	agg_trace_losses(st, &lost);
	for (int s = 0; s < agg_trace_nslots(st); s++)
		if (agg_trace_dev(st, s))
			missed += agg_trace_dev(st, s)->missed;
	if (o->a.json) {
		struct json j;

		json_init(&j, stdout);
		json_obj_open(&j, NULL);
		json_str(&j, "timestamp", ts);
		json_f64(&j, "seconds", secs, 6);
		json_arr_open(&j, "histograms");
		for (int i = 0; i < gs->n; i++)
			if (hist_count(gs->v[i]->h))
				json_hist(&j, gs->v[i], o);
		json_arr_close(&j);
		failures(st, o, &j);
		for (const struct loss *l = losses; l->json; l++)
			json_u64(&j, l->json, *(__u64 *)((char *)&lost + l->off));
		if (o->kinds & (1U << IOLENS_H_QD))
			json_u64(&j, "completions_missed", missed);
		json_obj_close(&j);
		json_newline(&j);
		fflush(stdout);
		return;
	}
	printf("--- %s, %.2f s\n", ts, secs);
	for (int i = 0; i < gs->n; i++) {
		if (!hist_count(gs->v[i]->h))
			continue;
		putchar('\n');
		print_title(gs->v[i], o);
		print_hist(gs->v[i], o->fine);
		if (gs->v[i]->kind == IOLENS_H_QUEUE && !o->a.own_clock &&
		    gs->v[i]->h[0] == hist_count(gs->v[i]->h))
			printf("  (all 0: the kernel stamps start and issue from one clock reading cached per plug; --own-clock measures)\n");
		any = true;
	}
	if (!failures(st, o, NULL) && !any)
		printf("no requests\n");
	/* Counts since start: a loss is never silent. */
	for (const struct loss *l = losses; l->json; l++) {
		__u64 n = *(__u64 *)((char *)&lost + l->off);

		if (n)
			printf("(%llu %s)\n", (unsigned long long)n, l->text);
	}
	/* Found only once a disk is idle for an interval (agg_trace_read()). */
	if (missed)
		printf("(%llu completions never reached iolens: queue depths after them were counted too high)\n",
		       (unsigned long long)missed);
	putchar('\n');
	fflush(stdout);
}

static int run(const struct lat_opts *o)
{
	struct agg_trace_opts so = {
		.devs = o->a.devs, .ndev = o->a.ndev, .own_clock = o->a.own_clock,
		.kinds = o->kinds, .lat = true,
		.by_proc = o->per_proc, .by_flags = o->per_flags,
		.key_hwq = o->per_hwq, .key_status = o->per_status, .key_cgroup = o->per_cgroup,
		.key_stack = o->per_stack,
		.proc = &o->a.proc,
	};
	struct groups gs = { .o = o };
	struct agg_trace *st;
	int err;

	if (o->per_flags)
		reqflags_init();
	if (o->per_stack)
		ksyms_load_for(CMD, KSYMS_NO_STACKS);
	st = agg_trace_start(CMD, &so);
	if (!st)
		return 1;
	stop_catch();
	fprintf(stderr, "Tracing block requests (tp_btf)... Ctrl-C to end.\n");
	err = agg_loop(st, o->a.interval_ns, o->a.count, build_groups, report,
		       &gs);
	for (int i = 0; i < gs.n; i++)
		free(gs.v[i]);
	free(gs.v);
	agg_trace_stop(st);
	return err ? 1 : 0;
}

int lat_run(const struct lat_opts *opts)
{
	struct lat_opts o = *opts;

	if (!o.kinds)
		o.kinds = AGG_KINDS_LAT;
	/* One disk asked for: name it. */
	if (o.a.ndev == 1)
		o.per_disk = true;
	return run(&o);
}
