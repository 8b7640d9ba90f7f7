// SPDX-License-Identifier: GPL-2.0
/* iolens report: reads a trace file of `iolens record` and hands the
 * requests the filters keep to the chosen format (formats.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib/cgroups.h"
#include "lib/devices.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "lib/sanitize.h"
#include "lib/tracefile.h"
#include "lib/vec.h"
#include "report/compare.h"
#include "report/report_html.h"
#include "report/report_perfetto.h"
#include "report/run.h"
#include "lib/fileid.h"
#include "trace/rqfile.h"
#include "trace/reqflags.h"

#define CMD "report"
/* Disks the first line names. */
#define INTRO_DEVS	16


/* ---- devices ---- */

/* The slot of `dev` in the index (open addressing, a power of two):
 * a trace may name any number of disks, each request one of them. */
static size_t dev_slot(const struct report *r, __u32 dev)
{
	size_t mask = r->dev_idx_cap - 1, i = (dev * 0x9e3779b1U) & mask;

	while (r->dev_idx[i] && r->dev[r->dev_idx[i] - 1].d.dev != dev)
		i = (i + 1) & mask;
	return i;
}

static struct dev_ent *dev_find(struct report *r, __u32 dev)
{
	size_t i;

	if (r->last_dev < r->ndev && r->dev[r->last_dev].d.dev == dev)
		return &r->dev[r->last_dev];
	if (!r->dev_idx_cap)
		return NULL;
	i = dev_slot(r, dev);
	if (!r->dev_idx[i])
		return NULL;
	r->last_dev = r->dev_idx[i] - 1;
	return &r->dev[r->last_dev];
}

/* Room in the index for one more disk, at most half full. */
static int dev_index_grow(struct report *r)
{
	size_t cap = r->dev_idx_cap ? 2 * r->dev_idx_cap : 64;
	__u32 *idx;

	if (2 * (r->ndev + 1) <= r->dev_idx_cap)
		return 0;
	idx = calloc(cap, sizeof(*idx));
	if (!idx)
		return -1;
	free(r->dev_idx);
	r->dev_idx = idx;
	r->dev_idx_cap = cap;
	for (size_t k = 0; k < r->ndev; k++)
		r->dev_idx[dev_slot(r, r->dev[k].d.dev)] = k + 1;
	return 0;
}

/* Adds or updates a disk; a disk named by no DEVICE record gets "MAJ:MIN". */
static struct dev_ent *dev_add(struct report *r, const struct trace_device *d)
{
	struct dev_ent *e = dev_find(r, d->dev);

	if (!e) {
		if (dev_index_grow(r) ||
		    vec_grow(&r->dev, &r->capdev, r->ndev + 1, sizeof(*r->dev), 8))
			return NULL;
		e = &r->dev[r->ndev++];
		e->announced = false;
		e->d.dev = d->dev;
		r->dev_idx[dev_slot(r, d->dev)] = r->ndev;
	}
	e->d = *d;
	if (!e->d.name[0])
		snprintf(e->d.name, sizeof(e->d.name), "%u:%u",
			 kdev_major(d->dev), kdev_minor(d->dev));
	return e;
}

static const char *dev_label(struct report *r, __u32 dev)
{
	struct dev_ent *e = dev_find(r, dev);
	struct trace_device d = { .dev = dev };

	/* The charts' and Perfetto's sum of the disks past their first. */
	if (dev == REPORT_OTHER_DEVS)
		return "(other disks)";
	if (!e)
		e = dev_add(r, &d);
	return e ? e->d.name : "?";
}

const char *report_dev_label(void *ctx, __u32 dev)
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
	/* Names from a file are anyone's: lib/sanitize escapes them. */
	san_fputs_text(r->out, d->name);
	fprintf(r->out, " (%u:%u, logical %s, physical %s)",
		kdev_major(d->dev), kdev_minor(d->dev), lbs, pbs);
}

/* Seconds from the trace's time 0 (signed: a trigger's span may begin
 * before the recording's own). */
static double rel_s(const struct report *r, __u64 t)
{
	return ((double)t - (double)r->hdr.mono_ns) / 1e9;
}

/* Why a `record --ring` file was saved, a line of text. */
static void print_trigger(struct report *r)
{
	const struct trace_trigger *t = &r->trigger;
	__u64 real = r->hdr.real_ns + (t->mono_ns - r->hdr.mono_ns);
	time_t secs = real / 1000000000ULL;
	char when[32] = "?";
	struct tm tm;

	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fputs("# saved when ", r->out);
	san_fputs_text(r->out, t->what);
	fputs(" fired (", r->out);
	san_fputs_text(r->out, t->value);
	if (t->dev) {
		fputs(" on ", r->out);
		san_fputs_text(r->out, dev_label(r, t->dev));
	}
	if (t->pid)
		fprintf(r->out, ", pid %u", t->pid);
	fprintf(r->out, ") at %s.%03u, +%.3f s: the file holds every request that ended from %+.3f s to %+.3f s",
		when, (unsigned int)(real / 1000000 % 1000), rel_s(r, t->mono_ns),
		rel_s(r, t->from_ns), rel_s(r, t->to_ns));
	if (t->asked_ns && t->from_ns + t->asked_ns > t->mono_ns + 1000000)
		fprintf(r->out, " (the ring held %.3f s of the %.3f s asked)",
			((double)t->mono_ns - (double)t->from_ns) / 1e9, t->asked_ns / 1e9);
	fputc('\n', r->out);
	r->trigger_shown = true;
}

static void print_intro(struct report *r)
{
	time_t secs = r->hdr.real_ns / 1000000000ULL;
	char when[64] = "?";
	struct tm tm;

	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
	fputs("# iolens trace of host ", r->out);
	san_fputs_text(r->out, r->hdr.host);
	fputs(", kernel ", r->out);
	san_fputs_text(r->out, r->hdr.kernel);
	fprintf(r->out, ", started %s, by ", when);
	san_fputs_text(r->out, r->hdr.tool);
	fputs("; devices: ", r->out);
	if (!r->prescanned)
		fputs("see the '# device' lines", r->out);
	else if (!r->ndev)
		fputs("none named", r->out);
	/* A line, not a book: the others get their '# device' line before
	 * their first request. */
	for (size_t i = 0; i < r->ndev && i < INTRO_DEVS; i++) {
		if (i)
			fputs(", ", r->out);
		print_dev(r, &r->dev[i].d);
		r->dev[i].announced = true;
	}
	if (r->ndev > INTRO_DEVS)
		fprintf(r->out, " and %zu more", r->ndev - INTRO_DEVS);
	fputc('\n', r->out);
	if (r->triggered)
		print_trigger(r);
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
		if (it.type == TRACE_REC_TRIGGER) {
			r->trigger = it.trigger;
			r->triggered = true;
		}
	}
	trace_close(tr);
}

static double duration_s(const struct report *r)
{
	if (r->end.mono_ns < r->hdr.mono_ns)
		return 0;
	return (r->end.mono_ns - r->hdr.mono_ns) / 1e9;
}

/* The trigger that saved the file, times from its time 0. */
static void json_trigger(struct report *r, struct json *j)
{
	const struct trace_trigger *t = &r->trigger;

	json_obj_open(j, "trigger");
	json_str(j, "what", t->what);
	json_str(j, "value", t->value);
	if (t->dev)
		json_str(j, "device", dev_label(r, t->dev));
	else
		json_null(j, "device");
	json_u64(j, "pid", t->pid);
	json_f64(j, "at_s", rel_s(r, t->mono_ns), 6);
	json_f64(j, "from_s", rel_s(r, t->from_ns), 6);
	json_f64(j, "to_s", rel_s(r, t->to_ns), 6);
	json_f64(j, "asked_before_s", t->asked_ns / 1e9, 6);
	json_u64(j, "monotonic_ns", t->mono_ns);
	json_u64(j, "from_monotonic_ns", t->from_ns);
	json_u64(j, "to_monotonic_ns", t->to_ns);
	json_obj_close(j);
}

void report_summary(struct report *r)
{
	struct json j;

	if (r->fmt->mode == RQFMT_TEXT) {
		if (r->triggered && !r->trigger_shown)
			print_trigger(r);
		if (r->triggered && r->end.mono_ns < r->trigger.to_ns)
			fprintf(r->out, "# the recording ended at %+.3f s, before the saved span did\n",
				rel_s(r, r->end.mono_ns));
		fprintf(r->out, "# %llu of %llu requests shown, duration %.3f s, ",
			(unsigned long long)r->shown,
			(unsigned long long)r->total, duration_s(r));
		if (r->failed)
			fprintf(r->out, "%llu of them FAILED, ", (unsigned long long)r->failed);
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
	} else if (r->fmt->mode == RQFMT_JSON) {
		json_init(&j, r->out);
		json_obj_open(&j, NULL);
		json_obj_open(&j, "summary");
		json_u64(&j, "requests_shown", r->shown);
		json_u64(&j, "requests_total", r->total);
		json_f64(&j, "duration_s", duration_s(r), 6);
		json_u64(&j, "lost", r->end.lost);
		json_u64(&j, "untracked", r->end.untracked);
		json_u64(&j, "unseen", r->unseen);
		json_u64(&j, "failed", r->failed);
		if (r->triggered)
			json_trigger(r, &j);
		json_obj_close(&j);
		json_obj_close(&j);
		json_newline(&j);
	}
}

void report_intro(struct report *r)
{
	prescan_devices(r);
	print_intro(r);
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
	names->stacks = r->stacks;
	names->stack = r->stacks ? kstacks_get(r->ks, rq->stack) : NULL;
	names->files = r->files;
	names->file_kind = r->files ? rqfile_kind(rq) : NULL;
	names->file = r->files ? rqfile_path(rq) : NULL;
	if (!rqfilter_match(&r->filt, rq, names->dev, names->cgroup,
			    names->io_cgroup))
		return false;
	return true;
}

static int handle_rq(struct report *r, struct iolens_rq *rq)
{
	struct rqfmt_names names;

	r->total++;
	if (!selected(r, rq, &names))
		return 0;
	r->shown++;
	if (!rq->ts_complete)
		r->unseen++;
	else if (rq->status)
		r->failed++;
	return r->fmt->add(r, rq, &names);
}

int report_second_pass(struct report *r, int (*fn)(struct report *r,
						    struct iolens_rq *rq))
{
	struct rqfmt_names names;
	struct trace_header h;
	struct trace_reader *tr = trace_open(r->path, &h, NULL, 0);
	struct trace_item it;
	int ret = 0;

	/* Damage was reported by the first pass; this one stops there too. */
	while (tr && !ret && trace_next(tr, &it, NULL, 0) == 1)
		if (it.type == TRACE_REC_RQ && selected(r, &it.rq, &names))
			ret = fn(r, &it.rq);
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
			if (r->fmt->devices && !e->announced) {
				fputs("# device ", r->out);
				print_dev(r, &e->d);
				fputc('\n', r->out);
				e->announced = true;
			}
			break;
		case TRACE_REC_CGROUP:
			if (cgroup_set(it.cg.hier, it.cg.id, it.cg.path))
				goto oom;
			break;
		case TRACE_REC_STACK:
			if (r->ks && kstacks_put(r->ks, it.stack.stack, &it.stack.k))
				goto oom;
			break;
		case TRACE_REC_FILE:
			if (it.file.ino ? fileid_set(it.file.dev, it.file.ino, it.file.gen, it.file.path) :
			    fileid_set_dev(it.file.dev, it.file.flags & TRACE_FILE_MOUNTED))
				goto oom;
			break;
		case TRACE_REC_RQ:
			if (handle_rq(r, &it.rq))
				goto oom;
			break;
		case TRACE_REC_LOST:
			r->lost += it.lost;
			break;
		case TRACE_REC_TRIGGER:
			r->trigger = it.trigger;
			r->triggered = true;
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

/* What the trace held past what report keeps apart (report/report.h,
 * lib/cgroups.h, lib/fileid.h): said, one line each. */
static void say_bounds(const struct report *r)
{
	if ((r->html || r->pf) && r->ndev > REPORT_DEVS)
		fprintf(stderr, "iolens %s: the trace names %zu disks: the charts show the first %d apart and the other %zu summed as \"(other disks)\"\n",
			CMD, r->ndev, REPORT_DEVS, r->ndev - REPORT_DEVS);
	if (cgroup_unnamed())
		fprintf(stderr, "iolens %s: %llu cgroups past the 65,536 (or 8 MiB of names) report keeps are shown unnamed\n",
			CMD, (unsigned long long)cgroup_unnamed());
	if (fileid_unnamed())
		fprintf(stderr, "iolens %s: %llu files past the %d (or 16 MiB of paths) report keeps are shown by inode\n",
			CMD, (unsigned long long)fileid_unnamed(), IOLENS_FILEID_MAX);
}

static void report_free(struct report *r)
{
	free(r->dev);
	free(r->dev_idx);
	kstacks_free(r->ks);
	perfetto_free(r->pf);
	html_free(r->html);
}

int report_run(const struct report_opts *o)
{
	if (o->compare)
		return compare_run(o);
	struct report r = {
		.fmt = o->fmt, .path = o->path, .filt = o->filt,
		.chart = o->chart, .filters = o->filters, .stacks = o->stacks,
		.files = o->files,
	};
	struct trace_reader *tr = NULL;
	const char *outpath = o->outpath;
	const char *inputs[] = { o->path, NULL };
	struct outfile out;
	char err[256] = "";
	bool whole = true;
	int ret, status;

	/* Cgroup and file names come from the file, never from this
	 * machine. */
	cgroup_offline();
	fileid_offline();

	tr = trace_open(r.path, &r.hdr, err, sizeof(err));
	if (!tr) {
		fprintf(stderr, "iolens %s: %s: %s\n", CMD, r.path, err);
		return 1;
	}
	/* Statuses as the recording kernel numbered them. */
	blk_status_kernel(r.hdr.kernel);
	if ((r.stacks || r.files) && !r.fmt->stacks) {
		trace_close(tr);
		return usage_err(CMD, "%s is for -f text, csv and json",
				 r.stacks ? "--stacks" : "--files");
	}
	if (r.stacks && !(r.hdr.flags & TRACE_HDR_STACKS)) {
		trace_close(tr);
		return usage_err(CMD, "%s was recorded without --stacks: no stacks to show",
				 r.path);
	}
	if (r.files && !(r.hdr.flags & TRACE_HDR_FILES)) {
		trace_close(tr);
		return usage_err(CMD, "%s was recorded without --files: no files to show",
				 r.path);
	}
	/* The page shows the stacks whenever the trace has them. */
	if ((r.hdr.flags & TRACE_HDR_STACKS) && !(r.ks = kstacks_new(-1))) {
		trace_close(tr);
		pr_err("out of memory");
		return 1;
	}
	/* Perfetto is written in a second pass: memory holds a window of
	 * the trace, not all of it (report_perfetto.h). */
	if (r.fmt->twice) {
		struct stat st;

		if (stat(r.path, &st) || !S_ISREG(st.st_mode)) {
			trace_close(tr);
			return usage_err(CMD, "-f %s reads the trace twice: give a file, not a pipe",
					 r.fmt->name);
		}
	}

	/* Opened only now, so a bad input leaves no empty output behind. */
	if (outfile_begin(&out, CMD, outpath, inputs)) {
		trace_close(tr);
		/* A path refused (lib/outfile.h) is bad input. */
		return errno == EPERM ? 2 : 1;
	}
	r.out = out.f;

	if (r.fmt->open(&r)) {
		pr_err("out of memory");
		trace_close(tr);
		outfile_end(&out, NULL, false);
		report_free(&r);
		return 1;
	}

	status = read_all(&r, tr, err, sizeof(err));
	trace_close(tr);
	ret = status ? 1 : 0;

	if (status >= 0 && r.fmt->close(&r, status, err)) {
		pr_err("out of memory");
		ret = 1;
		whole = false;
	}

	/* A damaged trace is reported as far as it goes, and said below. */
	if (outfile_end(&out, CMD, whole && status >= 0))
		ret = 1;
	say_bounds(&r);
	/* Last, so it is not lost among the records above it. */
	if (status > 0)
		fprintf(stderr, "iolens %s: %s: %s\n", CMD, r.path, err);
	report_free(&r);
	return ret;
}
