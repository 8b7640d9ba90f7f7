// SPDX-License-Identifier: GPL-2.0
/*
 * A run of iolens load: every safety check of every job (load_target.c),
 * then the job threads (load_job.c) under the monitor (load_monitor.c),
 * and fio's report (load_report.c) or the results handed to `iolens bench`;
 * or, with --sweep, the sweep of load_sweep.c.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "load/buf.h"
#include "load/engine.h"
#include "load/files.h"
#include "load/iolog.h"
#include "load/job.h"
#include "load/load.h"
#include "lib/log.h"
#include "load/monitor.h"
#include "load/opts.h"
#include "load/report.h"
#include "lib/stop.h"
#include "load/steady.h"
#include "load/sweep.h"
#include "load/target.h"

static void print_header(FILE *f, const struct load_jobs *js, unsigned int nthreads)
{
	for (int i = 0; i < js->n; i++) {
		const struct load_job_opts *o = &js->v[i];

		/* fio's one line a job, its other threads as "...". */
		if (o->clone) {
			if (o->clone == 1)
				fprintf(f, "...\n");
			continue;
		}
		fprintf(f, "%s: (g=%d): rw=%s, bs=(R) %lluB-%lluB, (W) %lluB-%lluB, (T) %lluB-%lluB, ioengine=%s, iodepth=%u\n",
			log_name(o->name), o->groupid, load_rw_name(o->rw),
			(unsigned long long)o->bsz[LOAD_READ].min,
			(unsigned long long)o->bsz[LOAD_READ].max,
			(unsigned long long)o->bsz[LOAD_WRITE].min,
			(unsigned long long)o->bsz[LOAD_WRITE].max,
			(unsigned long long)o->bsz[LOAD_TRIM].min,
			(unsigned long long)o->bsz[LOAD_TRIM].max,
			o->ioengine->name,
			o->ioengine->sync ? 1 : o->iodepth);
	}
	fprintf(f, "iolens-%s\nStarting %u thread%s\n\n", IOLENS_VERSION, nthreads,
		nthreads == 1 ? "" : "s");
	fflush(f);
}

/* Claims each block device written to, once: a second O_EXCL open of
 * the same device would fail against our own first one. */
static int claim(const struct load_job_opts *o, const struct load_target *t,
		 int *fds, dev_t *devs, int *nclaimed)
{
	struct stat st;
	int fd, rc;

	if (!t->is_blkdev || !t->writes || stat(o->filename, &st))
		return 0;
	for (int i = 0; i < *nclaimed; i++) {
		if (devs[i] == st.st_rdev)
			return 0;
	}
	rc = load_target_claim(o, t, &fd);
	if (rc)
		return rc;
	fds[*nclaimed] = fd;
	devs[(*nclaimed)++] = st.st_rdev;
	return 0;
}

/* Whether job i (one thread, reading, no size) reads the file a job of
 * an earlier wave fills (fill_device): its size is known only once that
 * has run, so it is taken when job i starts, as fio sizes each job's
 * files then. */
static bool fills_before(const struct load_jobs *js, int i)
{
	const struct load_job_opts *o = &js->v[i];
	bool wall = false;

	if (o->size || o->numjobs != 1 || !o->filename || load_dir_used(o, LOAD_WRITE))
		return false;
	for (int k = i - 1; k >= 0; k--) {
		wall |= js->v[k + 1].stonewall;
		if (wall && js->v[k].fill_device && js->v[k].filename &&
		    !strcmp(js->v[k].filename, o->filename))
			return true;
	}
	return false;
}

/* The jobs and their targets, for the gate's call as a thread starts. */
struct run_ctx {
	struct load_jobs *js;
	struct load_target *targets;
};

/* The targets of job i: one per file, after those of the jobs before. */
static struct load_target *targets_of(const struct load_jobs *js,
				      struct load_target *tg, ptrdiff_t i)
{
	for (ptrdiff_t k = 0; k < i; k++)
		tg += load_nfiles(&js->v[k]);
	return tg;
}

static int thread_starting(void *ctx, struct load_thread *t)
{
	struct run_ctx *r = ctx;
	ptrdiff_t i = t->o - r->js->v;
	struct load_target *tg = targets_of(r->js, r->targets, i);
	int rc = 0;

	for (unsigned int k = 0; k < t->nfiles && !rc; k++) {
		if (tg[k].create_at_open && t->files[k].fd < 0)
			rc = load_target_create(load_file_opts(&r->js->v[i], k), &tg[k],
						&t->files[k].fd);
	}
	if (rc || !t->o->size_at_start)
		return rc;
	/* One file (fills_before): its range is the job's. */
	rc = load_target_resize(&r->js->v[i], tg, t->files[0].fd);
	t->files[0].size = t->o->size;
	return rc;
}

/* The thread's files, each opened (but one of create_on_open, made as
 * the thread starts): 0, or 1 after one line. */
static int thread_files(struct load_thread *t, struct load_job_opts *o,
			struct load_target *tg)
{
	char why[200];

	t->nfiles = load_nfiles(o);
	t->files = calloc(t->nfiles, sizeof(*t->files));
	if (!t->files) {
		pr_err("out of memory");
		return 1;
	}
	for (unsigned int k = 0; k < t->nfiles; k++) {
		struct load_file *f = &t->files[k];
		const struct load_job_opts *fo = load_file_opts(o, k);

		f->target = &tg[k];
		f->size = fo->size;
		f->fd = -1;
		if (t->eng->diskless || tg[k].create_at_open)
			continue;
		f->fd = load_target_open(fo, &tg[k], why, sizeof(why));
		if (f->fd < 0) {
			pr_err("%s: %s", log_name(fo->filename), why);
			return 1;
		}
	}
	return 0;
}

static int run_jobs(struct load_jobs *js, load_done_fn done, void *ctx)
{
	int rc = load_files_name(js), nfiles = 0;
	struct load_target *targets;
	int *claimed, nclaimed = 0;
	dev_t *claimed_dev;
	struct load_thread *th = NULL;
	struct load_result *res = NULL;
	struct load_gate gate = { .starting = thread_starting };
	struct run_ctx rctx = { .js = js };
	struct load_flows flows = {};
	struct load_disks *disks = NULL;
	unsigned int nth = 0, started = 0;
	int nres = 0;
	sigset_t block, old;
	struct outfile of = { .dirfd = -1 };
	FILE *out = stdout;

	for (int i = 0; i < js->n; i++)
		nfiles += load_nfiles(&js->v[i]);
	targets = calloc(nfiles, sizeof(*targets));
	claimed = calloc(nfiles, sizeof(int));
	claimed_dev = calloc(nfiles, sizeof(dev_t));
	if (rc)
		goto out;
	rctx.targets = targets;
	gate.ctx = &rctx;
	if (!targets || !claimed || !claimed_dev) {
		pr_err("out of memory");
		rc = 1;
		goto out;
	}
	/* Every check of every job before any job starts: a refusal must
	 * come before a single byte is written anywhere. */
	for (int i = 0; i < js->n && !rc; i++) {
		js->v[i].size_at_start = fills_before(js, i);
		rc = load_files_prepare(&js->v[i], targets_of(js, targets, i));
		nth += js->v[i].numjobs;
	}
	for (int i = 0; i < js->n && !rc; i++) {
		struct load_target *tg = targets_of(js, targets, i);

		for (unsigned int k = 0; k < load_nfiles(&js->v[i]) && !rc; k++)
			rc = claim(load_file_opts(&js->v[i], k), &tg[k], claimed, claimed_dev,
				   &nclaimed);
	}
	if (rc)
		goto out;
	rc = load_output_open(&js->global, &of);
	if (rc)
		goto out;
	out = of.f;
	th = calloc(nth, sizeof(*th));
	res = calloc(nth, sizeof(*res));
	if (!th || !res) {
		pr_err("out of memory");
		rc = 1;
		goto out;
	}
	nth = 0;
	for (int i = 0, wave = 0, together = 0; i < js->n; i++) {
		/* The job threads of a wave run at once; a stonewall job
		 * starts the next wave. */
		if (!i || js->v[i].stonewall) {
			together = 0;
			for (int j = i; j < js->n && (j == i || !js->v[j].stonewall); j++)
				together += js->v[j].numjobs;
		}
		wave += i && js->v[i].stonewall;
		for (unsigned int k = 0; k < js->v[i].numjobs; k++, nth++) {
			struct load_thread *t = &th[nth];
			struct load_target *tg = targets_of(js, targets, i);

			t->o = &js->v[i];
			t->gate = &gate;
			t->wave = wave;
			t->target = tg;
			t->eng = t->o->ioengine;
			t->job_index = nth;
			t->together = together;
			rc = thread_files(t, &js->v[i], tg);
			if (!rc)
				rc = load_iolog_open(t);
			if (rc) {
				nth++;	/* what it opened is closed at out */
				goto out;
			}
		}
	}
	if (load_gate_init(&gate, th, nth) || load_flows_init(&flows, th, nth) ||
	    load_buf_plan(th, nth)) {
		pr_err("out of memory");
		rc = 1;
		goto out;
	}
	if (!done && (js->global.format & LOAD_FMT_NORMAL))
		print_header(out, js, nth);
	for (int i = 0; i < js->n && !rc; i++)
		rc = load_files_layout(&js->v[i], targets_of(js, targets, i),
				       !done && (js->global.format & LOAD_FMT_NORMAL) ? out : NULL);
	if (rc)
		goto out;
	stop_catch();
	/* Only this thread takes SIGINT, SIGTERM and the like: the jobs
	 * never see a wait cut short, they see the stop flag at their next
	 * batch. */
	stop_signals(&block);
	disks = load_disks_start(js->v, js->n);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	started = load_monitor_start(th, nth);
	if (started < nth)
		rc = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	load_monitor_wait(th, started, &js->global, out);
	load_disks_end(disks);
	for (int i = 0; i < js->n; i++)
		load_files_unlink(&js->v[i], targets_of(js, targets, i));

	for (unsigned int i = 0; i < started; i++) {
		struct load_result *r;

		/* group_reporting: one result per group; the threads of a
		 * group are next to each other. */
		if (!js->global.group_reporting || !nres ||
		    res[nres - 1].groupid != th[i].o->groupid) {
			r = &res[nres++];
			r->o = th[i].o;
			r->global = &js->global;
			r->groupid = th[i].o->groupid;
		} else {
			r = &res[nres - 1];
		}
		r->nthreads++;
		load_stats_merge(&r->st, &th[i].st);
		if (th[i].ss)
			r->ss = th[i].ss;
		if (th[i].st.error)
			rc = 1;
	}
	/* Several formats in fio's order: terse, JSON, normal. */
	if (done)
		done(ctx, res, nres);
	if (!done && (js->global.format & LOAD_FMT_TERSE))
		load_report_terse(out, res, nres, js->global.terse_version, disks);
	if (!done && (js->global.format & LOAD_FMT_JSON))
		load_report_json(out, res, nres, &js->global, disks);
	if (!done && (js->global.format & LOAD_FMT_NORMAL))
		load_report_normal(out, res, nres, disks);
out:
	for (unsigned int i = 0; th && i < nth; i++) {
		for (unsigned int k = 0; th[i].files && k < th[i].nfiles; k++) {
			if (th[i].files[k].fd >= 0)
				close(th[i].files[k].fd);
		}
		load_thread_free(&th[i]);
		free(th[i].files);
		load_stats_free(&th[i].st);
		load_steady_free(th[i].ss);
		load_iolog_close(&th[i], th[i].start_ns);
	}
	for (int i = 0; i < nclaimed; i++)
		close(claimed[i]);
	rc |= load_output_close(&of);
	load_gate_free(&gate);
	load_flows_free(&flows);
	free(th);
	for (int i = 0; res && i < nres; i++)
		load_stats_free(&res[i].st);
	free(res);
	load_disks_free(disks);
	free(targets);
	free(claimed);
	free(claimed_dev);
	return rc;
}

int load_run(struct load_jobs *js, load_done_fn done, void *ctx)
{
	if (js->global.sweep)
		return load_sweep_run(js);
	return run_jobs(js, done, ctx);
}

int load_run_cmdline(int argc, char **argv)
{
	struct load_jobs js = {};
	int rc = load_parse_args(argc, argv, &js);

	if (rc < 0)
		rc = 0;
	else if (!rc)
		rc = load_run(&js, NULL, NULL);
	load_jobs_free(&js);
	return rc;
}
