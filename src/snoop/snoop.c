// SPDX-License-Identifier: GPL-2.0
/* iolens snoop: one line per completed block request. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include "lib/cgroups.h"
#include "lib/clock.h"
#include "lib/devices.h"
#include "lib/fdwrite.h"
#include "lib/json.h"
#include "lib/ksyms.h"
#include "lib/proctree.h"
#include "lib/sanitize.h"
#include "lib/vec.h"
#include "snoop/snoop.h"
#include "trace/block_trace.h"
#include "trace/reqflags.h"
#include "trace/rqfile.h"
#include "trace/rqfmt.h"

struct snoop {
	struct rqfilter filter;
	enum rqfmt_mode mode;
	__u64 t0;
	unsigned long long shown, max;
	struct block_trace *bt;
	__u64 dropped_reported;
	/* -p, live: the processes, their children and threads; looked up
	 * by every consumer. */
	int roots[RQFILTER_MAX];
	struct proctree tree;
	pthread_mutex_t tree_lock;
	int write_err;		/* errno of a failed write of the lines */
	__u64 stuck_ns;		/* --stuck; 0: no warnings */
	/* Requests warned of as stuck, while they stay in flight: by
	 * address and start, and the scan that last saw them. */
	struct stuck { __u64 key, start; unsigned int gen; } *stuck;
	int nstuck;
	unsigned int gen;
	struct kstacks *stacks;	/* --stacks: named as requests show them */
	bool files;		/* --files */
};

/* Whether `rq` passes filter f and, live, -p's processes (a consumer's
 * or the stuck scan's thread: the tree is shared). */
static bool wanted(struct snoop *s, const struct rqfilter *f,
		   const struct iolens_rq *rq, const struct rqfmt_names *n)
{
	bool in;

	if (!rqfilter_match(f, rq, n->dev, n->cgroup, n->io_cgroup))
		return false;
	if (!s->tree.nroots)
		return true;
	pthread_mutex_lock(&s->tree_lock);
	in = proctree_has(&s->tree, rq->pid);
	pthread_mutex_unlock(&s->tree_lock);
	return in;
}

/* A request's names, as the filters and the line want them. */
static struct rqfmt_names names_of(const struct iolens_rq *rq)
{
	return (struct rqfmt_names){
		.dev = dev_name(rq->dev),
		.cgroup = cgroup_path(0, rq->cgroup),
		.io_cgroup = cgroup_path(rq->io_cgroup_hier, rq->io_cgroup),
	};
}

/* --files: named once the request is to be shown (a path may cost the
 * kernel a lookup, the first time). */
static void name_file(struct rqfmt_names *n, const struct iolens_rq *rq)
{
	n->files = true;
	n->file_kind = rqfile_kind(rq);
	n->file = rqfile_path(rq);
}

/* In a consumer thread: the line of a request that passes the filters,
 * made where it is written out from. */
static size_t format_rq(void *ctx, const struct iolens_rq *rq,
			struct block_trace_out *o)
{
	struct snoop *s = ctx;
	struct rqfmt_names n = names_of(rq);
	char *buf;

	if (!wanted(s, &s->filter, rq, &n))
		return 0;
	if (s->stacks) {
		n.stacks = true;
		n.stack = kstacks_get(s->stacks, rq->stack);
	}
	if (s->files)
		name_file(&n, rq);
	buf = block_trace_room(o, rqfmt_bound(&n));
	if (!buf)
		return SIZE_MAX;
	return rqfmt_format(buf, s->mode, rq, &n, s->t0);
}

/* The lines in time order, from one thread, written from where they were
 * made: at 500k lines a second, copying them into stdio's buffer first
 * was a fifth of this thread's time. */
static int emit_lines(void *ctx, struct iovec *iov, int n)
{
	struct snoop *s = ctx;
	int stop = 0;

	if (s->max && s->shown + n >= s->max) {
		n = s->max - s->shown;
		stop = 1;
	}
	if (fd_writev_all(STDOUT_FILENO, iov, n)) {
		s->write_err = errno;
		return 1;
	}
	s->shown += n;
	return stop;
}

/* A request in flight past --stuck: one line on stderr (stdout keeps its
 * format) the first time a scan finds it, if the filters would show it. */
static void on_stuck(void *ctx, __u64 key, const struct iolens_rq *rq, __u64 age_ns)
{
	struct snoop *s = ctx;
	struct rqfilter f = s->filter;
	char dev[SAN_TEXT_MAX(DEV_NAME_LEN) + 1], comm[SAN_TEXT_MAX(IOLENS_COMM_LEN) + 1];
	struct rqfmt_names n = names_of(rq);
	struct stuck *e;

	/* What it is, not how it ended: it has not. */
	f.min_lat_ns = 0;
	f.errors = false;
	if (!wanted(s, &f, rq, &n))
		return;
	for (int i = 0; i < s->nstuck; i++) {
		if (s->stuck[i].key == key && s->stuck[i].start == rq->ts_start) {
			s->stuck[i].gen = s->gen;
			return;
		}
	}
	e = vec_add(&s->stuck, &s->nstuck, sizeof(*e));
	if (e)
		*e = (struct stuck){ .key = key, .start = rq->ts_start, .gen = s->gen };
	fprintf(stderr, "iolens snoop: STUCK: %s: %s of %u bytes at sector %llu, by pid %u (%s), in flight for %.1f s\n",
		san_text_buf(dev, sizeof(dev), n.dev), op_name(rq->op), rq->bytes,
		(unsigned long long)rq->sector, rq->pid,
		san_text_buf(comm, sizeof(comm), rq->comm), age_ns / 1e9);
}

/* Warns of requests in flight past --stuck; forgets those that ended. */
static void scan_stuck(struct snoop *s)
{
	int k = 0;

	s->gen++;
	if (block_trace_inflight(s->bt, s->stuck_ns, on_stuck, s))
		return;
	for (int i = 0; i < s->nstuck; i++)
		if (s->stuck[i].gen == s->gen)
			s->stuck[k++] = s->stuck[i];
	s->nstuck = k;
}

static void on_tick(void *ctx)
{
	struct snoop *s = ctx;
	struct block_trace_stats c;

	if (s->stuck_ns)
		scan_stuck(s);
	if (s->tree.nroots) {
		pthread_mutex_lock(&s->tree_lock);
		proctree_forget_gone(&s->tree);
		pthread_mutex_unlock(&s->tree_lock);
	}
	block_trace_stats(s->bt, &c);
	if (block_trace_dropped(&c) > s->dropped_reported) {
		fprintf(stderr, "iolens snoop: lost %llu request records: ring buffer full (output too slow?) or hook skipped by the kernel\n",
			(unsigned long long)(block_trace_dropped(&c) - s->dropped_reported));
		s->dropped_reported = block_trace_dropped(&c);
	}
}

static void summary(struct snoop *s, double secs)
{
	struct block_trace_stats c;
	struct json j;

	block_trace_stats(s->bt, &c);
	if (s->mode == RQFMT_JSON) {
		json_init(&j, stdout);
		json_obj_open(&j, NULL);
		json_obj_open(&j, "summary");
		json_u64(&j, "requests", s->shown);
		json_f64(&j, "duration_s", secs, 3);
		json_u64(&j, "lost", c.lost);
		json_u64(&j, "missed", c.missed);
		json_u64(&j, "rescued", c.rescued);
		json_u64(&j, "untracked", c.untracked);
		json_u64(&j, "unseen", c.unseen);
		json_str(&j, "attach", block_trace_flavour(s->bt));
		json_obj_close(&j);
		json_obj_close(&j);
		json_newline(&j);
	}
	fflush(stdout);
	fprintf(stderr, "iolens snoop: %llu requests shown in %.1f s; ",
		s->shown, secs);
	block_trace_print_stats(stderr, &c);
}

int snoop_run(const struct snoop_opts *o)
{
	struct snoop s = {
		.filter = o->filter, .mode = o->mode, .max = o->max,
		.stuck_ns = o->stuck_ns, .files = o->files,
		.tree_lock = PTHREAD_MUTEX_INITIALIZER,
	};
	__u32 devs[RQFILTER_MAX];
	void *cctx[IOLENS_RINGS_MAX];
	int nc, r;

	if (block_trace_devs("snoop", &s.filter, devs))
		return 2;
	/* Live, -p takes in children too: what a benchmark forks. */
	for (int i = 0; i < s.filter.npid; i++)
		s.roots[i] = (int)s.filter.pid[i];
	proctree_init(&s.tree, s.roots, s.filter.npid);
	for (int i = 0; i < s.filter.npid; i++)
		proctree_has(&s.tree, s.filter.pid[i]);
	s.filter.npid = 0;

	/* Before attaching: no request can complete before time 0. */
	s.t0 = mono_ns();
	nc = block_trace_nconsumers();
	if (o->stacks)
		ksyms_load_for("snoop", KSYMS_NO_STACKS);
	if (o->files)
		ksyms_load_for("snoop", KSYMS_NO_DIO_FILES);
	s.bt = block_trace_start("snoop", devs, s.filter.ndev, nc,
				 (o->stacks ? BLOCK_TRACE_STACKS : 0) |
				 (o->files ? BLOCK_TRACE_FILES : 0));
	if (!s.bt)
		return 1;
	if (o->stacks && !(s.stacks = kstacks_new(block_trace_stacks_fd(s.bt)))) {
		fprintf(stderr, "iolens snoop: out of memory\n");
		block_trace_stop(s.bt);
		return 1;
	}
	/* Also the signal for scripts that the tracer is attached. */
	fprintf(stderr, "Tracing block requests (%s)... Ctrl-C to end.\n",
		block_trace_flavour(s.bt));
	rqfmt_header(stdout, s.mode, o->files, o->stacks);
	/* The lines go out with writev(), after what stdio holds. */
	fflush(stdout);
	for (int i = 0; i < nc; i++)
		cctx[i] = &s;
	r = block_trace_run_par(s.bt, o->duration_ns, format_rq, cctx, emit_lines, on_tick, &s);
	if (s.write_err) {
		fprintf(stderr, "iolens snoop: cannot write the output: %s\n",
			strerror(s.write_err));
		r = 1;
	}
	summary(&s, (mono_ns() - s.t0) / 1e9);
	block_trace_stop(s.bt);
	kstacks_free(s.stacks);
	proctree_free(&s.tree);
	free(s.stuck);
	return r;
}
