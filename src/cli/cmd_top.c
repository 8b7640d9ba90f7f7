// SPDX-License-Identifier: GPL-2.0
/*
 * iolens top: per-process I/O at the syscall, page-cache and block level,
 * with the devices on top.  Task I/O comes from one task-iterator pass per
 * frame (task_trace.c), block requests per submitter and per device from
 * the aggregation core (stat_trace.c).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "trace/block_trace.h"
#include "lib/cgroups.h"
#include "cli/commands.h"
#include "lib/hist.h"
#include "lib/json.h"
#include "lib/proctree.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "lib/opts.h"
#include "trace/stat_trace.h"
#include "trace/task_trace.h"
#include "top/top.h"
#include "lib/units.h"

#define CMD "top"

struct top_state {
	struct top_opts *o;
	struct task_trace *tt;
	struct stat_trace *st;
	struct proctable *pt;
	__u64 *sys_prev[IOLENS_SC_NR];	/* syscall histograms at last frame */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iolens top [OPTIONS]\n"
		"\n"
		"Live I/O per process: disk bytes (as /proc/PID/io), bytes read and\n"
		"written through syscalls on files and on pipes/sockets, the page-cache\n"
		"hit ratio of file reads, fsyncs, and the block requests each process\n"
		"submitted; the disks on top.  Keys: h.\n"
		"\n"
		"options:\n"
		"  -b, --batch        plain text frames, no terminal control\n"
		"  -j, --json         one JSON object per frame (counts over the frame)\n"
		"  -n, --iter N       N frames, then exit\n"
		"  -d, --delay SECS   time between frames (default 1; 500ms works)\n"
		"  -o, --only         only processes with I/O in the frame\n"
		"  -t, --threads      a row per thread, not per process\n"
		"  -a, --accumulated  totals since start instead of rates\n"
		"  -p, --pid PID      only this process and its children; repeatable\n"
		"  -u, --user USER    only this user's processes\n"
		"  -c, --comm TEXT    only commands whose name contains TEXT\n"
		"      --cgroup PATH  only tasks in this cgroup (v2 path)\n"
		"  -h, --help         this help\n"
		"\n"
		"examples:\n"
		"  iolens top\n"
		"  iolens top -b -o -n 5\n");
}

/* --- columns ------------------------------------------------------------ */

enum fmt { F_NUM, F_TEXT, F_BYTES, F_COUNT, F_PCT, F_NS };

static const struct {
	const char *title;
	int width;
	enum fmt fmt;
} cols[TC_NR] = {
	[TC_PID] = { "PID", 7, F_NUM },
	[TC_USER] = { "USER", 8, F_TEXT },
	[TC_READ] = { "DISK READ", 10, F_BYTES },
	[TC_WRITE] = { "DISK WRITE", 10, F_BYTES },
	[TC_FREAD] = { "FILE READ", 10, F_BYTES },
	[TC_HIT] = { "HIT%", 5, F_PCT },
	[TC_RCHAR] = { "RCHAR", 10, F_BYTES },
	[TC_WCHAR] = { "WCHAR", 10, F_BYTES },
	[TC_SYSCR] = { "SYSCR", 7, F_COUNT },
	[TC_SYSCW] = { "SYSCW", 7, F_COUNT },
	[TC_FSYNC] = { "FSYNC", 6, F_COUNT },
	[TC_BLK_IOS] = { "BLK IO", 7, F_COUNT },
	[TC_BLK_LAT] = { "BLK LAT", 7, F_NS },
	[TC_RMW] = { "RMW", 6, F_COUNT },
	[TC_MISALIGN] = { "MISALIGN", 8, F_COUNT },
	[TC_COMM] = { "COMMAND", 16, F_TEXT },
};

const char *top_col_title(int col)
{
	return cols[col].title;
}

int top_col_width(int col)
{
	return cols[col].width;
}

/* The number a column sorts by. */
static double col_value(const struct top_row *r, int col)
{
	const struct proc_io *d = &r->d;

	switch (col) {
	case TC_PID: return r->e->id;
	case TC_READ: return d->io.read_bytes;
	case TC_WRITE: return d->io.write_bytes;
	case TC_FREAD: return d->sys.bytes[IOLENS_SC_FILE_READ];
	case TC_HIT: return isnan(r->hit) ? -1 : r->hit;
	case TC_RCHAR: return d->io.rchar;
	case TC_WCHAR: return d->io.wchar;
	case TC_SYSCR: return d->io.syscr;
	case TC_SYSCW: return d->io.syscw;
	case TC_FSYNC: return d->sys.calls[IOLENS_SC_SYNC];
	case TC_BLK_IOS: return d->blk_ios;
	case TC_BLK_LAT: return d->blk_timed ? (double)d->blk_ns / d->blk_timed : -1;
	case TC_RMW: return d->sys.rmw_reads;
	case TC_MISALIGN: return d->misaligned;
	default: return 0;
	}
}

void top_cell(char *buf, size_t len, const struct top_row *r, int col,
	      double secs, bool accumulated)
{
	double v = col_value(r, col), per = accumulated || secs <= 0 ? 1 : secs;
	char t[32];

	/* Syscall-level columns of a task nobody counted syscalls for. */
	if ((col == TC_FREAD || col == TC_FSYNC || col == TC_RMW) &&
	    !(r->e->flags & IOLENS_TASK_SYS)) {
		snprintf(buf, len, "-");
		return;
	}

	switch (cols[col].fmt) {
	case F_NUM:
		snprintf(buf, len, "%.0f", v);
		break;
	case F_TEXT:
		snprintf(buf, len, "%s", col == TC_USER ? r->user : r->e->comm);
		break;
	case F_BYTES:
		fmt_bytes(t, sizeof(t), v / per);
		snprintf(buf, len, "%s%s", t, accumulated ? "" : "/s");
		break;
	case F_COUNT:
		snprintf(buf, len, accumulated ? "%.0f" : "%.1f", v / per);
		break;
	case F_PCT:
		if (v < 0)
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%.0f%%", 100 * v);
		break;
	case F_NS:
		if (v < 0)
			snprintf(buf, len, "-");
		else
			fmt_ns(buf, len, (__u64)v);
		break;
	}
}

/* --- frames ------------------------------------------------------------- */

static const char *user_name(uid_t uid)
{
	static struct { uid_t uid; char name[32]; } cache[64];
	static int n;
	struct passwd *pw;

	for (int i = 0; i < n; i++)
		if (cache[i].uid == uid)
			return cache[i].name;
	if (n == (int)(sizeof(cache) / sizeof(cache[0])))
		n = 0;	/* crude, and rare: many users at once */
	cache[n].uid = uid;
	pw = getpwuid(uid);
	if (pw)
		snprintf(cache[n].name, sizeof(cache[n].name), "%s", pw->pw_name);
	else
		snprintf(cache[n].name, sizeof(cache[n].name), "%u", uid);
	return cache[n++].name;
}

static bool active(const struct proc_io *d)
{
	const __u64 *x = (const __u64 *)d;

	for (size_t i = 0; i < sizeof(*d) / sizeof(__u64); i++)
		if (x[i])
			return true;
	return false;
}

/* -p's processes and their descendants (pids of int for proctree). */
static int roots[16];
static struct proctree tree;

static bool wanted(const struct top_row *r, const struct top_opts *o)
{
	const struct proc_ent *e = r->e;
	char pid[16];
	bool ok = !o->npids;

	for (int i = 0; i < o->npids; i++)
		ok |= o->pids[i] == e->id;
	ok = ok || (o->npids && proctree_has(&tree, e->tgid));
	if (!ok || (o->by_uid && e->uid != o->uid) ||
	    (o->comm && !strstr(e->comm, o->comm)) ||
	    (o->by_cgroup && e->cgroup != o->cgroup) ||
	    (o->only_active && !active(&r->d)))
		return false;
	if (!o->filter || !*o->filter)
		return true;
	snprintf(pid, sizeof(pid), "%u", e->id);
	return !strcmp(pid, o->filter) || strstr(e->comm, o->filter) ||
	       strstr(r->user, o->filter);
}

static const struct top_opts *sort_opts;

static int row_cmp(const void *a, const void *b)
{
	const struct top_row *x = *(struct top_row *const *)a;
	const struct top_row *y = *(struct top_row *const *)b;
	int col = sort_opts->sort, c = 0;
	double u, v;

	if (cols[col].fmt == F_TEXT) {
		c = strcmp(col == TC_USER ? x->user : x->e->comm,
			   col == TC_USER ? y->user : y->e->comm);
	} else {
		u = col_value(x, col);
		v = col_value(y, col);
		/* Biggest first: what a person looks for. */
		c = u < v ? 1 : u > v ? -1 : 0;
		if (col == TC_PID)
			c = -c;
	}
	if (!c)		/* stable between frames */
		c = x->e->id < y->e->id ? -1 : x->e->id > y->e->id;
	return sort_opts->reverse ? -c : c;
}

/* Hit ratio of file reads: 1 - disk reads / file bytes read.  Readahead
 * can read more than was asked for; that is still no hit. */
static double hit_ratio(const struct proc_io *d, bool syscalls)
{
	double fb = d->sys.bytes[IOLENS_SC_FILE_READ];

	if (!syscalls || fb < TOP_HIT_MIN_BYTES)
		return NAN;
	return d->io.read_bytes >= fb ? 0 : 1 - d->io.read_bytes / fb;
}

void top_arrange(struct top_frame *f, const struct top_opts *o)
{
	f->nrows = 0;
	memset(&f->total, 0, sizeof(f->total));
	for (int i = 0; i < f->nall; i++) {
		struct top_row *r = &f->all[i];

		proc_io_sub(&r->d, &r->e->cur,
			    o->accumulated ? &r->e->base : &r->e->prev);
		r->hit = hit_ratio(&r->d, r->e->flags & IOLENS_TASK_SYS);

		if (!wanted(r, o))
			continue;
		f->rows[f->nrows++] = r;
		for (size_t k = 0; k < sizeof(r->d) / sizeof(__u64); k++)
			((__u64 *)&f->total)[k] += ((const __u64 *)&r->d)[k];
	}
	sort_opts = o;
	qsort(f->rows, f->nrows, sizeof(*f->rows), row_cmp);
}

void top_wb_name(char *buf, size_t len, const struct top_wb *w)
{
	const char *p = cgroup_path(w->hier, w->cgroup);

	if (p)
		snprintf(buf, len, "%s", p);
	else
		snprintf(buf, len, "cgroup %llu", (unsigned long long)w->cgroup);
}

/* Writes a kernel thread submitted for cgroup (hier, id): writeback. */
static int add_wb(struct top_frame *f, const struct iolens_lat_key *k,
		  __u64 ios, __u64 bytes)
{
	struct top_wb *w = NULL;

	for (int i = 0; i < f->nwb && !w; i++)
		if (f->wb[i].hier == k->io_hier && f->wb[i].cgroup == k->io_cgroup)
			w = &f->wb[i];
	if (!w) {
		if (f->nwb == f->wb_cap) {
			int cap = f->wb_cap ? 2 * f->wb_cap : 8;
			struct top_wb *v = realloc(f->wb, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			f->wb = v;
			f->wb_cap = cap;
		}
		w = &f->wb[f->nwb++];
		*w = (struct top_wb){ .hier = k->io_hier, .cgroup = k->io_cgroup };
	}
	w->ios += ios;
	w->bytes += bytes;
	return 0;
}

static int fold_block(struct top_state *s, struct top_frame *f)
{
	f->nwb = 0;
	for (int i = 0; i < stat_trace_nkeyed(s->st); i++) {
		const struct stat_keyed *k = stat_trace_keyed(s->st, i);
		__u64 n = hist_count(k->hist);

		if (!n)
			continue;
		if (k->key.io_cgroup && k->key.kind == IOLENS_H_SIZE &&
		    k->key.sg == IOLENS_SG_WRITE && add_wb(f, &k->key, n, k->sum))
			return -ENOMEM;
		if (k->key.kind == IOLENS_H_TOTAL) {
			proctable_add_block(s->pt, k->key.tgid, &(struct proc_io){
				.blk_ios = n, .blk_ns = k->sum, .blk_timed = n });
			for (int d = 0; d < f->ndev; d++)
				if (f->devs[d].info.dev == k->dev)
					hist_add(f->devs[d].hist, k->hist);
		} else if (k->key.kind == IOLENS_H_SIZE) {
			proctable_add_block(s->pt, k->key.tgid, &(struct proc_io){
				.blk_bytes = k->sum });
		} else if (k->key.kind == IOLENS_H_MISALIGNED) {
			proctable_add_block(s->pt, k->key.tgid, &(struct proc_io){
				.misaligned = n, .misaligned_bytes = k->sum });
		}
	}
	return 0;
}

static double div_or_nan(double a, double b)
{
	return b ? a / b : NAN;
}

static int build_devs(struct top_state *s, struct top_frame *f, double secs)
{
	int n = 0;

	for (int i = 0; i < stat_trace_nslots(s->st); i++)
		n += stat_trace_dev(s->st, i) != NULL;
	if (n > f->ndev) {
		struct top_dev *v = realloc(f->devs, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + f->ndev, 0, (n - f->ndev) * sizeof(*v));
		f->devs = v;
		for (int i = f->ndev; i < n; i++) {
			f->devs[i].hist = calloc(HIST_BUCKETS, sizeof(__u64));
			if (!f->devs[i].hist)
				return -ENOMEM;
		}
	}
	n = 0;
	for (int i = 0; i < stat_trace_nslots(s->st); i++) {
		const struct stat_dev *d = stat_trace_dev(s->st, i);
		const struct iolens_stat *r, *w;
		struct top_dev *t;
		__u64 *h;

		if (!d)
			continue;
		t = &f->devs[n++];
		h = t->hist;
		memset(t, 0, sizeof(*t));
		t->hist = h;
		memset(h, 0, HIST_BUCKETS * sizeof(*h));
		dev_lookup(d->dev, &t->info);
		r = &d->op[IOLENS_SG_READ];
		w = &d->op[IOLENS_SG_WRITE];
		t->r_s = r->ios / secs;
		t->w_s = w->ios / secs;
		t->rkb_s = r->bytes / 1024.0 / secs;
		t->wkb_s = w->bytes / 1024.0 / secs;
		t->await_ms = div_or_nan(r->total_ns + w->total_ns, 1e6 * (r->timed + w->timed));
		t->queue_ms = div_or_nan(r->queue_ns + w->queue_ns, 1e6 * (r->split + w->split));
		t->device_ms = div_or_nan(r->device_ns + w->device_ns, 1e6 * (r->split + w->split));
		for (int g = 0; g < IOLENS_SG_NR; g++)
			t->aqu_sz += d->op[g].total_ns / 1e9 / secs;
		t->util = 100.0 * (stat_dev_busy_unknown(d) ? d->io_ticks_ns :
				   d->busy_ns) / 1e9 / secs;
	}
	f->ndev = n;
	return 0;
}

static int collect(struct top_frame *f, void *arg)
{
	struct top_state *s = arg;
	int err, n;
	time_t t = time(NULL);
	struct tm tm;

	/* Processes <-> threads: a new table, whose first frame is empty. */
	if (s->o->threads != proctable_threads(s->pt)) {
		proctable_free(s->pt);
		s->pt = proctable_new(s->o->threads);
		if (!s->pt)
			return -ENOMEM;
	}
	proctable_begin(s->pt);
	err = task_trace_scan(s->tt, proctable_add, s->pt);
	if (err)
		return err;
	proctable_end(s->pt);
	err = stat_trace_read(s->st);
	if (err)
		return err;
	f->secs = stat_trace_interval_s(s->st);
	err = build_devs(s, f, f->secs > 0 ? f->secs : 1);
	if (err)
		return err;
	err = fold_block(s, f);
	if (err)
		return err;
	for (int d = 0; d < f->ndev; d++) {
		bool over;

		if (!hist_percentile(f->devs[d].hist, 99, &f->devs[d].p99_ns, &over))
			f->devs[d].p99_ns = 0;
	}
	n = proctable_count(s->pt);
	if (n > f->nall) {
		struct top_row *all = realloc(f->all, n * sizeof(*all));
		struct top_row **rows = all ? realloc(f->rows, n * sizeof(*rows)) : NULL;

		if (all)
			f->all = all;
		if (!rows)
			return -ENOMEM;
		f->rows = rows;
	}
	f->nall = n;
	for (int i = 0; i < n; i++) {
		struct top_row *r = &f->all[i];

		r->e = proctable_get(s->pt, i);
		r->user = user_name(r->e->uid);
	}
	for (int c = 0; c < IOLENS_SC_NR; c++) {
		task_trace_sys_hist(s->tt, c, f->sys_hist[c]);
		for (__u32 b = 0; b < HIST_BUCKETS; b++) {
			__u64 v = f->sys_hist[c][b];

			f->sys_hist[c][b] = v - s->sys_prev[c][b];
			s->sys_prev[c][b] = v;
		}
	}
	f->syscalls = task_trace_syscalls(s->tt);
	f->source = task_trace_source(s->tt);
	gmtime_r(&t, &tm);
	strftime(f->when, sizeof(f->when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	top_arrange(f, s->o);
	return 0;
}

/* --- batch and JSON ----------------------------------------------------- */

static void print_ms(double ms)
{
	if (isnan(ms))
		printf(" %7s", "-");
	else
		printf(" %7.3f", ms);
}

static void print_batch(const struct top_frame *f, const struct top_opts *o)
{
	char cell[64];
	struct proc_ent none = { .flags = f->syscalls ? IOLENS_TASK_SYS : 0 };
	struct top_row tot = { .e = &none, .user = "" };

	printf("iolens top - %s, %.2f s, %s, task I/O from %s\n", f->when, f->secs,
	       o->accumulated ? "totals since start" : "rates", f->source);
	printf("%-10s %9s %9s %9s %9s %7s %7s %7s %7s %7s %6s\n", "Device", "r/s",
	       "rkB/s", "w/s", "wkB/s", "await", "queue", "device", "p99", "aqu-sz",
	       "%util");
	for (int i = 0; i < f->ndev; i++) {
		const struct top_dev *d = &f->devs[i];

		printf("%-10s %9.1f %9.1f %9.1f %9.1f", d->info.name, d->r_s, d->rkb_s,
		       d->w_s, d->wkb_s);
		print_ms(d->await_ms);
		print_ms(d->queue_ms);
		print_ms(d->device_ms);
		print_ms(d->p99_ns ? d->p99_ns / 1e6 : NAN);
		printf(" %7.2f %6.2f\n", d->aqu_sz, d->util);
	}
	tot.d = f->total;
	tot.hit = hit_ratio(&f->total, f->syscalls);
	printf("Total of %d rows:", f->nrows);
	for (int c = TC_READ; c <= TC_MISALIGN; c++) {
		top_cell(cell, sizeof(cell), &tot, c, f->secs, o->accumulated);
		printf(" %s %s%s", top_col_title(c), cell, c < TC_MISALIGN ? "," : "\n");
	}
	for (int i = 0; i < f->nwb; i++) {
		top_wb_name(cell, sizeof(cell), &f->wb[i]);
		printf("%s %s: %.1f writes/s, ", i ? "," : "Writeback charged to", cell,
		       f->wb[i].ios / f->secs);
		fmt_bytes(cell, sizeof(cell), f->wb[i].bytes / f->secs);
		printf("%s/s%s", cell, i == f->nwb - 1 ? "\n" : "");
	}
	for (int c = 0; c < TC_NR; c++)
		printf(c == TC_COMM ? "%-*s" : "%*s ", cols[c].width, cols[c].title);
	putchar('\n');
	for (int i = 0; i < f->nrows; i++) {
		for (int c = 0; c < TC_NR; c++) {
			top_cell(cell, sizeof(cell), f->rows[i], c, f->secs, o->accumulated);
			printf(c == TC_COMM ? "%-*s" : "%*s ", cols[c].width, cell);
		}
		putchar('\n');
	}
	putchar('\n');
	fflush(stdout);
}

const char *const top_sc_names[IOLENS_SC_NR] = {
	"file_read", "file_write", "other_read", "other_write", "sync",
};

static void json_io(struct json *j, const struct proc_io *d, bool syscalls)
{
	char key[40];
	double hit = hit_ratio(d, syscalls);

	json_u64(j, "rchar", d->io.rchar);
	json_u64(j, "wchar", d->io.wchar);
	json_u64(j, "syscr", d->io.syscr);
	json_u64(j, "syscw", d->io.syscw);
	json_u64(j, "read_bytes", d->io.read_bytes);
	json_u64(j, "write_bytes", d->io.write_bytes);
	json_u64(j, "cancelled_write_bytes", d->io.cancelled_write_bytes);
	for (int c = 0; c < IOLENS_SC_NR && syscalls; c++) {
		snprintf(key, sizeof(key), "%s_calls", top_sc_names[c]);
		json_u64(j, key, d->sys.calls[c]);
		if (c != IOLENS_SC_SYNC) {
			snprintf(key, sizeof(key), "%s_bytes", top_sc_names[c]);
			json_u64(j, key, d->sys.bytes[c]);
		}
		snprintf(key, sizeof(key), "%s_ns", top_sc_names[c]);
		json_u64(j, key, d->sys.ns[c]);
	}
	if (syscalls) {
		json_u64(j, "rmw_reads", d->sys.rmw_reads);
		json_u64(j, "rmw_bytes", d->sys.rmw_bytes);
	}
	if (isnan(hit))
		json_null(j, "hit_ratio");
	else
		json_f64(j, "hit_ratio", hit, 4);
	json_u64(j, "block_requests", d->blk_ios);
	json_u64(j, "block_bytes", d->blk_bytes);
	if (d->blk_timed)
		json_u64(j, "block_avg_ns", d->blk_ns / d->blk_timed);
	else
		json_null(j, "block_avg_ns");
	json_u64(j, "misaligned_writes", d->misaligned);
	json_u64(j, "misaligned_bytes", d->misaligned_bytes);
}

static void print_json(const struct top_frame *f, const struct top_opts *o)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_open(&j, NULL);
	json_str(&j, "timestamp", f->when);
	json_f64(&j, "seconds", f->secs, 6);
	json_str(&j, "counts", o->accumulated ? "since start" : "frame");
	json_str(&j, "task_source", f->source);
	json_arr_open(&j, "devices");
	for (int i = 0; i < f->ndev; i++) {
		const struct top_dev *d = &f->devs[i];

		json_obj_open(&j, NULL);
		json_str(&j, "disk_device", d->info.name);
		json_f64(&j, "r/s", d->r_s, 2);
		json_f64(&j, "rkB/s", d->rkb_s, 2);
		json_f64(&j, "w/s", d->w_s, 2);
		json_f64(&j, "wkB/s", d->wkb_s, 2);
		json_f64(&j, "await", d->await_ms, 3);
		json_f64(&j, "queue_ms", d->queue_ms, 3);
		json_f64(&j, "device_ms", d->device_ms, 3);
		if (d->p99_ns)
			json_u64(&j, "p99_ns", d->p99_ns);
		else
			json_null(&j, "p99_ns");
		json_f64(&j, "aqu-sz", d->aqu_sz, 2);
		json_f64(&j, "util", d->util, 2);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_open(&j, "total");
	json_io(&j, &f->total, f->syscalls);
	json_obj_close(&j);
	json_arr_open(&j, "writeback");
	for (int i = 0; i < f->nwb; i++) {
		char name[256];

		top_wb_name(name, sizeof(name), &f->wb[i]);
		json_obj_open(&j, NULL);
		json_str(&j, "cgroup", name);
		json_u64(&j, "cgroup_id", f->wb[i].cgroup);
		json_u64(&j, "requests", f->wb[i].ios);
		json_u64(&j, "bytes", f->wb[i].bytes);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	/* All tasks, not only the rows: the kernel keeps one histogram per
	 * class. */
	json_obj_open(&j, "syscall_latency");
	for (int c = 0; c < IOLENS_SC_NR && f->syscalls; c++) {
		static const double p[] = { 50, 90, 99, 100 };
		static const char *const k[] = { "p50_ns", "p90_ns", "p99_ns", "max_ns" };
		__u64 v;
		bool over;

		json_obj_open(&j, top_sc_names[c]);
		json_u64(&j, "calls", hist_count(f->sys_hist[c]));
		for (int i = 0; i < 4; i++) {
			if (hist_percentile(f->sys_hist[c], p[i], &v, &over) && !over)
				json_u64(&j, k[i], v);
			else
				json_null(&j, k[i]);
		}
		json_obj_close(&j);
	}
	json_obj_close(&j);
	json_arr_open(&j, o->threads ? "threads" : "processes");
	for (int i = 0; i < f->nrows; i++) {
		const struct top_row *r = f->rows[i];

		json_obj_open(&j, NULL);
		json_u64(&j, o->threads ? "tid" : "pid", r->e->id);
		if (o->threads)
			json_u64(&j, "pid", r->e->tgid);
		json_str(&j, "user", r->user);
		json_str(&j, "comm", r->e->comm);
		json_bool(&j, "kernel_thread", r->e->flags & IOLENS_TASK_KTHREAD);
		json_io(&j, &r->d, r->e->flags & IOLENS_TASK_SYS);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_newline(&j);
	fflush(stdout);
}

struct batch_ctx {
	struct top_frame *f;
	struct top_state *s;
};

static int batch_frame(void *arg)
{
	struct batch_ctx *c = arg;
	int err = collect(c->f, c->s);

	if (err) {
		pr_err("reading the task and block counters: %s", strerror(-err));
		return err;
	}
	if (c->s->o->json)
		print_json(c->f, c->s->o);
	else
		print_batch(c->f, c->s->o);
	return 0;
}

/* Ctrl-C ends batch mode without a frame of its own, as iotop -b. */
static int run_batch(struct top_opts *o, struct top_frame *f, struct top_state *s)
{
	struct batch_ctx c = { .f = f, .s = s };

	return stop_every(stat_trace_read_ns(s->st), o->delay_ns, o->frames, false,
			  batch_frame, &c) ? 1 : 0;
}

/* --- options ------------------------------------------------------------ */

static int parse_user(struct top_opts *o, const char *s)
{
	struct passwd *pw = getpwnam(s);
	char *end;
	unsigned long v;

	o->by_uid = true;
	if (pw) {
		o->uid = pw->pw_uid;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end)
		return usage_err(CMD, "no user '%s' here", s);
	o->uid = v;
	return 0;
}

static int parse_cgroup(struct top_opts *o, const char *s)
{
	char path[4096];
	struct stat sb;

	/* A cgroup v2 id is the inode number of its directory. */
	snprintf(path, sizeof(path), "%s%s", s[0] == '/' && strncmp(s, "/sys/fs/cgroup", 14) ?
		 "/sys/fs/cgroup" : "", s);
	if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
		return usage_err(CMD, "no cgroup '%s' (a path under /sys/fs/cgroup)", s);
	o->by_cgroup = true;
	o->cgroup = sb.st_ino;
	return 0;
}

static int parse_opts(int argc, char **argv, struct top_opts *o)
{
	enum { OPT_CGROUP = 256 };
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "iter", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "only", no_argument, NULL, 'o' },
		{ "threads", no_argument, NULL, 't' },
		{ "accumulated", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' },
		{ "comm", required_argument, NULL, 'c' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	long long ns;
	char *end;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":bjn:d:otap:u:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o->batch = true; break;
		case 'j': o->json = o->batch = true; break;
		case 'n':
			errno = 0;
			o->frames = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !o->frames || optarg[0] == '-')
				return usage_err(CMD, "-n needs a positive whole number, not '%s'", optarg);
			break;
		case 'd':
			ns = parse_duration_ns(optarg, 1e9);
			if (ns < 10000000)
				return usage_err(CMD, "-d needs a delay of at least 10ms, not '%s'", optarg);
			o->delay_ns = ns;
			break;
		case 'o': o->only_active = true; break;
		case 't': o->threads = true; break;
		case 'a': o->accumulated = true; break;
		case 'p':
			errno = 0;
			if (o->npids == (int)(sizeof(o->pids) / sizeof(o->pids[0])))
				return usage_err(CMD, "at most %zu -p", sizeof(o->pids) / sizeof(o->pids[0]));
			o->pids[o->npids] = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !o->pids[o->npids])
				return usage_err(CMD, "-p needs a process id, not '%s'", optarg);
			o->npids++;
			break;
		case 'u':
			if (parse_user(o, optarg))
				return 2;
			break;
		case 'c': o->comm = optarg; break;
		case OPT_CGROUP:
			if (parse_cgroup(o, optarg))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return opt_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		return usage_err(CMD, "unexpected argument '%s'", argv[optind]);
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = { .delay_ns = 1000000000ULL, .sort = TC_READ };
	struct task_trace_opts to = { .syscalls = true };
	struct stat_trace_opts so = {
		.kinds = 1U << IOLENS_H_TOTAL | 1U << IOLENS_H_SIZE |
			 1U << IOLENS_H_MISALIGNED,
		.by_proc = true,
	};
	struct top_state s = { .o = &o };
	struct top_frame f = {};
	int err = parse_opts(argc, argv, &o), ret = 1;

	if (err)
		return err < 0 ? 0 : err;
	for (int i = 0; i < o.npids; i++)
		roots[i] = (int)o.pids[i];
	proctree_init(&tree, roots, o.npids);
	for (int c = 0; c < IOLENS_SC_NR; c++) {
		f.sys_hist[c] = calloc(HIST_BUCKETS, sizeof(__u64));
		s.sys_prev[c] = calloc(HIST_BUCKETS, sizeof(__u64));
		if (!f.sys_hist[c] || !s.sys_prev[c]) {
			pr_err("out of memory");
			goto out;
		}
	}
	/* Everything that can fail does so before the terminal is touched. */
	s.tt = task_trace_start(CMD, &to);
	if (!s.tt)
		goto out;
	s.st = stat_trace_start(CMD, &so);
	s.pt = proctable_new(o.threads);
	if (!s.st || !s.pt)
		goto out;
	for (int c = 0; c < IOLENS_SC_NR; c++)
		task_trace_sys_hist(s.tt, c, s.sys_prev[c]);
	/* The first frame's differences start here. */
	proctable_begin(s.pt);
	err = task_trace_scan(s.tt, proctable_add, s.pt);
	proctable_end(s.pt);
	if (err) {
		pr_err("scanning tasks: %s", strerror(-err));
		goto out;
	}
	if (o.batch)
		ret = run_batch(&o, &f, &s);
	else
		ret = top_tui_run(&o, &f, collect, &s);
out:
	for (int c = 0; c < IOLENS_SC_NR; c++) {
		free(f.sys_hist[c]);
		free(s.sys_prev[c]);
	}
	for (int i = 0; i < f.ndev; i++)
		free(f.devs[i].hist);
	free(f.devs);
	free(f.wb);
	free(f.all);
	free(f.rows);
	proctable_free(s.pt);
	proctree_free(&tree);
	stat_trace_stop(s.st);
	task_trace_stop(s.tt);
	return ret;
}
