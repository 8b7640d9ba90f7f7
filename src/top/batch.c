// SPDX-License-Identifier: GPL-2.0
/* `iolens top -b` and `-j`: frames as text or as JSON lines. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "lib/cgroups.h"
#include "lib/container.h"
#include "lib/devices.h"
#include "lib/hist.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/sanitize.h"
#include "lib/stop.h"
#include "lib/units.h"
#include "top/top.h"
#include "trace/reqflags.h"

static void print_ms(double ms)
{
	if (isnan(ms))
		printf(" %7s", "-");
	else
		printf(" %7.3f", ms);
}

/* The line a frame has when IO> and SWAPIN cannot be counted. */
const char *top_delay_note(const struct top_frame *f)
{
	if (f->delayacct != DELAYACCT_OFF && f->overcount)
		return "IO> and SWAPIN: - where the kernel counted a thread waiting "
		       "longer than it has lived";
	if (f->delayacct != DELAYACCT_OFF)
		return NULL;
	return "IO> and SWAPIN: delay accounting is off (kernel.task_delayacct=0); "
	       "turn it on with: sysctl kernel.task_delayacct=1";
}

const char *top_unseen_note(const struct top_frame *f, char *buf, size_t len)
{
	if (!f->syscalls || (!f->total.sys.unseen && !f->sys_skipped))
		return NULL;
	if (f->sys_skipped_known)
		snprintf(buf, len, "syscalls: the kernel skipped iolens %llu times (%llu calls half seen), "
			 "not counted", (unsigned long long)f->sys_skipped,
			 (unsigned long long)f->total.sys.unseen);
	else
		snprintf(buf, len, "syscalls: %llu calls half seen, not counted (skipped runs "
			 "uncounted before 6.7)", (unsigned long long)f->total.sys.unseen);
	return buf;
}

const char *top_exits_note(const struct top_frame *f, char *buf, size_t len)
{
	if (!f->exits_lost)
		return NULL;
	snprintf(buf, len, "processes: %llu thread exits came faster than top read them; "
		 "their last moments are not counted", (unsigned long long)f->exits_lost);
	return buf;
}

const char *top_failed_note(const struct top_frame *f, char *buf, size_t len)
{
	char name[SAN_TEXT_MAX(DEV_NAME_LEN) + 1];
	size_t at = 0;

	buf[0] = 0;
	for (int i = 0; i < f->ndev; i++) {
		const struct top_dev *d = &f->devs[i];

		if (!d->failed)
			continue;
		at += snprintf(buf + at, at < len ? len - at : 0, "%s%s %llu (",
			       at ? "; " : "requests FAILED: ",
			       san_text_buf(name, sizeof(name), d->info.name),
			       (unsigned long long)d->failed);
		for (int k = 0; k < d->nfail; k++)
			at += snprintf(buf + at, at < len ? len - at : 0, "%s%s %llu",
				       k ? ", " : "", blk_status_name(d->fail[k].status),
				       (unsigned long long)d->fail[k].n);
		at += snprintf(buf + at, at < len ? len - at : 0, ")");
	}
	return at ? buf : NULL;
}

static void print_batch(const struct top_frame *f, const struct top_opts *o)
{
	char cell[256];
	struct proc_ent none = { .flags = f->total_known };
	struct top_row tot = { .e = &none, .user = "" };
	struct top_cellfmt cf = { .secs = f->secs, .at = f->at,
				  .accumulated = o->accumulated };
	char name[256];
	const char *note = top_delay_note(f);
	char failed[512];

	printf("iolens top - %s, %.2f s, %s, task I/O from %s\n", f->when, f->secs,
	       o->accumulated ? "totals since start" : "rates", f->source);
	if (top_failed_note(f, failed, sizeof(failed)))
		printf("%s\n", failed);
	for (int i = 0; i < f->ndev; i++)
		if (f->devs[i].stuck[0])
			printf("%s\n", f->devs[i].stuck);
	if (note)
		printf("%s\n", note);
	if (top_unseen_note(f, failed, sizeof(failed)))
		printf("%s\n", failed);
	if (top_exits_note(f, failed, sizeof(failed)))
		printf("%s\n", failed);
	if (f->wb_note)
		printf("%s\n", f->wb_note);
	printf("%-10s %9s %9s %9s %9s %7s %7s %7s %7s %7s %6s\n", "Device", "r/s",
	       "rkB/s", "w/s", "wkB/s", "await", "queue", "device", "p99", "aqu-sz",
	       "%util");
	for (int i = 0; i < f->ndev; i++) {
		const struct top_dev *d = &f->devs[i];

		printf("%-10s %9.1f %9.1f %9.1f %9.1f", top_dev_label(d, name, sizeof(name)), d->r_s, d->rkb_s,
		       d->w_s, d->wkb_s);
		print_ms(d->await_ms);
		print_ms(d->queue_ms);
		print_ms(d->device_ms);
		print_ms(d->p99_ns ? d->p99_ns / 1e6 : NAN);
		printf(" %7.2f %6.2f\n", d->aqu_sz, d->util);
	}
	tot.d = f->total;
	tot.hit = top_hit_ratio(&f->total, f->total_known & IOLENS_TASK_SYS);
	printf("Total of %d rows:", f->nrows);
	for (int c = 0, sep = 0; c < top_ncols; c++) {
		if (!top_cols[c].total)
			continue;
		top_cell(cell, sizeof(cell), &tot, c, &cf);
		printf("%s %s %s", sep++ ? "," : "", top_cols[c].title, cell);
	}
	putchar('\n');
	for (int i = 0; i < f->nwb; i++) {
		top_wb_name(name, sizeof(name), &f->wb[i]);
		printf("%s %s: %.1f writes/s, ", i ? "," : "Writeback charged to",
		       san_text_buf(cell, sizeof(cell), name), f->wb[i].ios / f->secs);
		fmt_bytes(cell, sizeof(cell), f->wb[i].bytes / f->secs);
		printf("%s/s%s", cell, i == f->nwb - 1 ? "\n" : "");
	}
	/* The chosen columns, all of them: no terminal to fit.  COMMAND is
	 * last, its width free. */
	for (int i = 0; i < o->ncols; i++) {
		const char *t = top_col_title(o->cols[i], o->group != TOP_GROUP_PID);

		if (i == o->ncols - 1)
			printf("%s", t);
		else
			printf("%*s ", top_cols[o->cols[i]].width, t);
	}
	putchar('\n');
	for (int r = 0; r < f->nrows; r++) {
		for (int i = 0; i < o->ncols; i++) {
			cf.width = top_cols[o->cols[i]].width;
			top_cell(cell, sizeof(cell), f->rows[r], o->cols[i], &cf);
			if (i == o->ncols - 1)
				printf("%s", cell);
			else
				printf("%*s ", cf.width, cell);
		}
		putchar('\n');
	}
	if (o->files && f->nfiles == TOP_FILES_PARTIAL)
		printf("Files: from the next frame (the block tracer attached in this one)\n");
	else if (o->files && f->nfiles >= 0)
		printf("Files:\n");
	if (o->files && f->nfiles >= 0) {
		char note[128];

		top_files_print(stdout, f->files, f->nfiles, f->secs > 0 ? f->secs : 1);
		if (*top_files_unjudged(note, sizeof(note), f->files_unjudged))
			printf("%s\n", note);
	}
	putchar('\n');
	fflush(stdout);
}

/* The devices a stacked one is built on, by kernel name, if any. */
static void members(struct json *j, __u32 dev)
{
	__u32 m[8];
	int n = dev_members(dev, m, 8);

	if (!n)
		return;
	json_arr_open(j, "members");
	for (int i = 0; i < n; i++)
		json_str(j, NULL, dev_name(m[i]));
	json_arr_close(j);
}

/* A column's value under its row's key: absent where nobody counted
 * syscalls (the whole syscall level is), null where else unknown. */
static void json_col(struct json *j, const struct top_column *c,
		     const struct top_row *r, __u32 known)
{
	double v;

	if (c->needs & ~known) {
		if (!(c->needs & IOLENS_TASK_SYS))
			json_null(j, c->json);
		return;
	}
	if (c->field) {
		json_u64(j, c->json, *(const __u64 *)((const char *)&r->d + c->off));
		return;
	}
	v = c->value(r);
	if (v < 0)
		json_null(j, c->json);
	else if (c->fmt == TOP_PCT)
		json_f64(j, c->json, v, 4);
	else
		json_u64(j, c->json, (__u64)v);
}

static bool col_has_key(const char *key)
{
	for (int c = 0; c < top_ncols; c++)
		if (top_cols[c].json && !strcmp(top_cols[c].json, key))
			return true;
	return false;
}

/* What a process did: each column's value, then the counters no column
 * shows. */
static void json_io(struct json *j, const struct proc_io *d, __u32 known)
{
	bool syscalls = known & IOLENS_TASK_SYS;
	struct top_row r = { .d = *d, .hit = top_hit_ratio(d, syscalls) };
	char key[40];

	for (int c = 0; c < top_ncols; c++)
		if (top_cols[c].json)
			json_col(j, &top_cols[c], &r, known);
	json_u64(j, "cancelled_write_bytes", d->io.cancelled_write_bytes);
	for (int c = 0; c < IOLENS_SC_NR && syscalls; c++) {
		snprintf(key, sizeof(key), "%s_calls", top_sc_names[c]);
		if (!col_has_key(key))
			json_u64(j, key, d->sys.calls[c]);
		snprintf(key, sizeof(key), "%s_bytes", top_sc_names[c]);
		if (c != IOLENS_SC_SYNC && !col_has_key(key))
			json_u64(j, key, d->sys.bytes[c]);
		snprintf(key, sizeof(key), "%s_ns", top_sc_names[c]);
		json_u64(j, key, d->sys.ns[c]);
	}
	if (syscalls) {
		json_u64(j, "rmw_bytes", d->sys.rmw_bytes);
		json_u64(j, "syscalls_unseen", d->sys.unseen);
	}
	json_u64(j, "block_bytes", d->blk_bytes);
	json_u64(j, "misaligned_bytes", d->misaligned_bytes);
}

/* A group: who it is, its processes, what they did (with the writeback
 * the kernel charged to it). */
static void json_group(struct json *j, const struct top_frame *f,
		       const struct top_opts *o, const struct top_row *r)
{
	const struct top_group_ent *g = r->g;
	const char *path = g->cgroup ? cgroup_path(0, g->cgroup) : NULL;
	struct ctr_ident ci;

	json_obj_open(j, NULL);
	json_str(j, "group", g->name);
	json_u64(j, "processes", g->nprocs);
	json_arr_open(j, "pids");
	for (int k = 0; k < g->n; k++)
		json_u64(j, NULL, f->members[g->first + k]->e->id);
	json_arr_close(j);
	if (o->group == TOP_GROUP_USER) {
		json_u64(j, "uid", g->uid);
		json_str(j, "user", r->user);
	} else {
		json_str(j, "cgroup", path);	/* null when not found */
		json_u64(j, "cgroup_id", g->cgroup);
		json_u64(j, "writeback_requests", g->wb_ios);
		json_u64(j, "writeback_bytes", g->wb_bytes);
	}
	if (o->group == TOP_GROUP_CONTAINER) {
		ctr_ident_of(path, &ci);
		json_str(j, "kind", ctr_kind_name(ci.kind));
		/* Whose claim the kind and names are (lib/container.h). */
		if (ci.delegated)
			json_u64(j, "owner_uid", ci.owner);
		if (ci.id[0])
			json_str(j, "container_id", ci.id);
		if (ci.pod[0])
			json_str(j, "pod_uid", ci.pod);
		if (ci.name[0])
			json_str(j, "name", ci.name);
	}
	json_io(j, &r->d, g->ent.flags);
	json_obj_close(j);
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
	json_str(&j, "delay_accounting", f->delayacct == DELAYACCT_ON ? "on" :
		 f->delayacct == DELAYACCT_OFF ? "off" : "unknown");
	/* Their waits are null: see top_delay_note(). */
	json_u64(&j, "delay_overcounted", f->overcount);
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
		json_f64(&j, "busy", d->busy, 2);
		json_str(&j, "source", d->bio_based ? "bios" : "requests");
		json_f64(&j, "inflight_oldest_s", d->oldest_s, 3);
		json_u64(&j, "failed", d->failed);
		json_obj_open(&j, "failed_by_status");
		for (int k = 0; k < d->nfail; k++)
			json_u64(&j, blk_status_name(d->fail[k].status), d->fail[k].n);
		json_obj_close(&j);
		members(&j, d->info.dev);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_open(&j, "total");
	/* A frame with no row still has every key. */
	json_io(&j, &f->total, f->total_known |
		(f->syscalls ? IOLENS_TASK_SYS : 0));
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
	if (f->exits_known)
		json_u64(&j, "exits_lost", f->exits_lost);
	else
		json_null(&j, "exits_lost");
	if (f->syscalls && f->sys_skipped_known)
		json_u64(&j, "syscall_runs_skipped", f->sys_skipped);
	else if (f->syscalls)
		json_null(&j, "syscall_runs_skipped");
	if (f->wb_note)
		json_str(&j, "writeback_note", f->wb_note);
	if (o->group != TOP_GROUP_PID) {
		json_str(&j, "grouped_by", top_group_names[o->group]);
		json_arr_open(&j, "groups");
		for (int i = 0; i < f->nrows; i++)
			if (f->rows[i]->g)
				json_group(&j, f, o, f->rows[i]);
		json_arr_close(&j);
	}
	/* In a group view, the processes of the groups (the tree's rows or
	 * not). */
	json_arr_open(&j, o->threads ? "threads" : "processes");
	for (int i = 0; i < (f->ngroups ? f->nmembers : f->nrows); i++) {
		const struct top_row *r = f->ngroups ? f->members[i] : f->rows[i];

		json_obj_open(&j, NULL);
		json_u64(&j, o->threads ? "tid" : "pid", r->e->id);
		if (o->threads)
			json_u64(&j, "pid", r->e->tgid);
		json_u64(&j, "ppid", r->e->ppid);
		json_str(&j, "user", r->user);
		json_str(&j, "comm", r->e->comm);
		json_bool(&j, "kernel_thread", r->e->flags & IOLENS_TASK_KTHREAD);
		json_io(&j, &r->d, r->e->flags);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	if (o->files && f->nfiles >= 0)
		top_files_json(&j, f->files, f->nfiles, &f->files_others, f->files_unjudged);
	else if (o->files)
		json_null(&j, "files");
	json_obj_close(&j);
	json_newline(&j);
	fflush(stdout);
}

struct batch_ctx {
	struct top_opts *o;
	struct top_frame *f;
	struct top_collector *s;
};

static int batch_frame(void *arg)
{
	struct batch_ctx *c = arg;
	int err = top_collect(c->f, c->s);

	if (err) {
		pr_err("reading the task and block counters: %s", strerror(-err));
		return err;
	}
	if (c->o->json)
		print_json(c->f, c->o);
	else
		print_batch(c->f, c->o);
	return 0;
}

/* Ctrl-C ends batch mode without a frame of its own, as iotop -b. */
int top_batch_run(struct top_opts *o, struct top_frame *f,
		  struct top_collector *s)
{
	struct batch_ctx c = { .o = o, .f = f, .s = s };

	return stop_every(top_collect_read_ns(s), o->delay_ns, o->frames, false,
			  batch_frame, &c) ? 1 : 0;
}
