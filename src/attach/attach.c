// SPDX-License-Identifier: GPL-2.0
/*
 * iolens attach: follow a running benchmark (a fio started by hand, a
 * database under test) and sum up what the devices did for it: requests,
 * bytes, sizes, latency split into queue and device time, queue depth,
 * misaligned writes, per process; and the writeback done meanwhile.
 */
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "attach/attach.h"
#include "lib/clock.h"
#include "trace/block_trace.h"
#include "lib/cgroups.h"
#include "lib/devices.h"
#include "lib/hist.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/proctree.h"
#include "trace/reqflags.h"
#include "trace/rqfilter.h"
#include "trace/rqsum.h"
#include "lib/sanitize.h"
#include "lib/stop.h"
#include "lib/units.h"
#include "lib/vec.h"

#define CMD "attach"

/* One op's requests. */
struct opsum {
	struct rqsum r;
	__u64 misaligned;
};

/*
 * A process: the requests it started (and their bytes) from the records;
 * for reads and writes, the bios it submitted and their bytes, counted
 * apart (bpf/block.h, struct iolens_proc_bios), since a bio that merges
 * into a request another process started is in that one's record.
 */
struct proc {
	__u32 tgid;
	char comm[IOLENS_COMM_LEN];
	__u64 requests[IOLENS_OP_NR], bytes[IOLENS_OP_NR];
	struct iolens_proc_bios bios;
};

struct attach {
	const struct attach_opts *o;
	struct proctree tree;	/* of o->roots */
	struct block_trace *bt;
	struct opsum op[IOLENS_OP_NR];
	struct proc *procs;
	int nprocs;
	/* Writes of kernel threads (the flusher) not otherwise matched. */
	__u64 wb_requests, wb_bytes;
};

static struct proc *proc_of(struct attach *a, __u32 tgid, const char *comm)
{
	bool added;
	struct proc *p = vec_get_by(&a->procs, &a->nprocs, tgid, &tgid, &added);

	if (p && added) {
		memcpy(p->comm, comm, IOLENS_COMM_LEN);
		p->comm[IOLENS_COMM_LEN - 1] = 0;
	}
	return p;
}

/*
 * Whether op `op` is counted by bio: reads and writes, unless a filter
 * picks requests by what only their completion tells (-m, -E), which a
 * bio's count cannot follow.
 */
static bool by_bio(const struct attach *a, int op)
{
	return (op == IOLENS_OP_READ || op == IOLENS_OP_WRITE) &&
	       !a->o->filter.min_lat_ns && !a->o->filter.errors;
}

/* Whether process p did any op `op`. */
static bool proc_has(const struct attach *a, const struct proc *p, int op)
{
	return p->requests[op] || (by_bio(a, op) && p->bios.bios[op == IOLENS_OP_WRITE]);
}

/* The bytes of op `op` process p asked for: its bios' if counted, else
 * its requests'. */
static __u64 proc_bytes(const struct attach *a, const struct proc *p, int op)
{
	return by_bio(a, op) ? p->bios.bytes[op == IOLENS_OP_WRITE] : p->bytes[op];
}

static bool misaligned(const struct iolens_rq *rq)
{
	const struct dev_info *d = dev_get(rq->dev);
	__u32 pbs = d->physical_bs;

	return rq->op == IOLENS_OP_WRITE && pbs &&
	       ((rq->sector << 9) % pbs || rq->bytes % pbs);
}

static int on_rq(void *ctx, const struct iolens_rq *rq)
{
	struct attach *a = ctx;
	const char *dev = dev_name(rq->dev);
	const char *cg = cgroup_path(0, rq->cgroup);
	const char *iocg = cgroup_path(rq->io_cgroup_hier, rq->io_cgroup);
	struct opsum *s;
	struct proc *p;

	if (rq->op >= IOLENS_OP_NR || !rqfilter_match(&a->o->filter, rq, dev, cg, iocg))
		return 0;
	if (a->o->nroots && !proctree_has(&a->tree, rq->pid)) {
		/* Writeback: a kernel thread writing dirty pages. */
		if (rq->op == IOLENS_OP_WRITE && rq->ctx == IOLENS_CTX_SUBMIT &&
		    !strncmp(rq->comm, "kworker", 7)) {
			a->wb_requests++;
			a->wb_bytes += rq->bytes;
		}
		return 0;
	}
	s = &a->op[rq->op];
	rqsum_add(&s->r, rq);
	s->misaligned += misaligned(rq);
	p = proc_of(a, rq->pid, rq->comm);
	if (p) {
		p->requests[rq->op]++;
		p->bytes[rq->op] += rq->bytes;
	}
	return 0;
}

/* A process's bios so far: kept if it is one of ours and passes the
 * filter (-d is the kernel's; -c, -G and -O apply here). */
static void on_proc_bios(void *ctx, __u32 tgid, const struct iolens_proc_bios *b)
{
	struct attach *a = ctx;
	struct rqfilter f = a->o->filter;
	struct iolens_rq rq = { .pid = tgid, .cgroup = b->cgroup };
	const char *cg = cgroup_path(0, b->cgroup);
	struct iolens_proc_bios kept = *b;
	struct proc *p;

	if (!by_bio(a, IOLENS_OP_READ) ||
	    (a->o->nroots && !proctree_has_gone(&a->tree, tgid, b->ppid)))
		return;
	memcpy(rq.comm, b->comm, IOLENS_COMM_LEN);
	f.ndev = 0;
	for (int d = 0; d < 2; d++) {
		rq.op = d ? IOLENS_OP_WRITE : IOLENS_OP_READ;
		if (!rqfilter_match(&f, &rq, NULL, cg, NULL))
			kept.bios[d] = kept.bytes[d] = 0;
	}
	if (!kept.bios[0] && !kept.bios[1])
		return;
	p = proc_of(a, tgid, b->comm);
	if (p)
		p->bios = kept;
}

static void on_tick(void *ctx)
{
	struct attach *a = ctx;

	/* While they run: a process is placed in the tree by /proc. */
	block_trace_proc_bios(a->bt, on_proc_bios, a);
	if (a->o->nroots && !proctree_alive(&a->tree))
		stop_request();
}

static const double pcts[] = { 50, 90, 99, 99.9, 100 };
static const char *const pct_keys[] = { "p50", "p90", "p99", "p99.9", "max" };

static void show_text(const struct attach *a, double secs,
		      const struct block_trace_stats *bs)
{
	char sz[32], v[32], comm[SAN_TEXT_MAX(IOLENS_COMM_LEN) + 1];

	printf("iolens attach: %.1f s", secs);
	if (a->o->nroots) {
		printf(", pid");
		for (int i = 0; i < a->o->nroots; i++)
			printf(" %d", a->o->roots[i]);
		printf(" with children and threads");
	}
	printf("\n\n%-8s %10s %10s %10s %9s %8s %11s\n", "op", "requests", "IOPS",
	       "MiB/s", "avg size", "qd avg", "misaligned");
	for (int o = 0; o < IOLENS_OP_NR; o++) {
		const struct rqsum *s = &a->op[o].r;

		if (!s->requests)
			continue;
		fmt_bytes(sz, sizeof(sz), (double)s->bytes / s->requests);
		printf("%-8s %10llu %10.1f %10.2f %9s %8.2f %11llu\n", op_name(o),
		       (unsigned long long)s->requests, s->requests / secs,
		       s->bytes / secs / (1 << 20), sz,
		       s->qd_n ? (double)s->qd_sum / s->qd_n : 0.0,
		       (unsigned long long)a->op[o].misaligned);
		for (int k = 0; k < RQSUM_LAT_NR; k++) {
			printf("  %-7s", rqsum_lat_names[k]);
			if (!s->lat_n[k]) {
				printf(" unknown\n");
				continue;
			}
			for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
				__u64 ns;
				bool over;

				hist_percentile(s->lat[k], pcts[i], &ns, &over);
				fmt_ns(v, sizeof(v), ns);
				printf("  %s %s%s", pct_keys[i], over ? ">" : "", v);
			}
			printf("\n");
		}
	}
	if (a->nprocs) {
		/* A process's bios may have joined requests another started:
		 * bios and bytes are its own, requests those it started. */
		printf("\nby process:\n  %-8s %-15s %-8s %9s %9s %10s\n", "pid", "comm",
		       "op", "bios", "requests", "bytes");
		for (int i = 0; i < a->nprocs; i++) {
			const struct proc *p = &a->procs[i];

			san_text_buf(comm, sizeof(comm), p->comm);
			for (int o = 0; o < IOLENS_OP_NR; o++) {
				if (!proc_has(a, p, o))
					continue;
				fmt_bytes(sz, sizeof(sz), proc_bytes(a, p, o));
				if (by_bio(a, o))
					snprintf(v, sizeof(v), "%llu",
						 (unsigned long long)p->bios.bios[o == IOLENS_OP_WRITE]);
				else
					snprintf(v, sizeof(v), "-");
				printf("  %-8u %-15s %-8s %9s %9llu %10s\n", p->tgid, comm,
				       op_name(o), v, (unsigned long long)p->requests[o], sz);
			}
		}
	}
	if (a->o->nroots) {
		fmt_bytes(sz, sizeof(sz), a->wb_bytes);
		printf("\nwriteback meanwhile (kernel flusher threads, owner not known here): %llu write requests, %s\n",
		       (unsigned long long)a->wb_requests, sz);
	}
	if (block_trace_dropped(bs))
		printf("LOST: %llu request records (ring buffer full or hook skipped): counts are short\n",
		       (unsigned long long)block_trace_dropped(bs));
	if (bs->bios_untracked)
		printf("LOST: %llu bios of processes beyond %d (process table full): not in \"by process\"\n",
		       (unsigned long long)bs->bios_untracked, IOLENS_PROC_BIOS_MAX);
}

static void show_json(const struct attach *a, double secs,
		      const struct block_trace_stats *bs)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_open(&j, NULL);
	json_f64(&j, "seconds", secs, 3);
	json_arr_open(&j, "pids");
	for (int i = 0; i < a->o->nroots; i++)
		json_u64(&j, NULL, a->o->roots[i]);
	json_arr_close(&j);
	json_u64(&j, "lost", block_trace_dropped(bs));
	json_u64(&j, "unseen", bs->unseen);
	json_u64(&j, "bios_untracked", bs->bios_untracked);
	json_obj_open(&j, "ops");
	for (int o = 0; o < IOLENS_OP_NR; o++) {
		const struct rqsum *s = &a->op[o].r;

		if (!s->requests)
			continue;
		json_obj_open(&j, op_name(o));
		json_u64(&j, "requests", s->requests);
		json_u64(&j, "bytes", s->bytes);
		json_f64(&j, "iops", s->requests / secs, 1);
		json_f64(&j, "avg_size", (double)s->bytes / s->requests, 1);
		json_u64(&j, "misaligned", a->op[o].misaligned);
		if (s->qd_n)
			json_f64(&j, "qd_avg", (double)s->qd_sum / s->qd_n, 2);
		else
			json_null(&j, "qd_avg");
		json_u64(&j, "qd_max", s->qd_max);
		rqsum_json_lat(&j, s, pcts, pct_keys, sizeof(pcts) / sizeof(pcts[0]));
		json_obj_close(&j);
	}
	json_obj_close(&j);
	json_arr_open(&j, "processes");
	for (int i = 0; i < a->nprocs; i++) {
		const struct proc *p = &a->procs[i];

		json_obj_open(&j, NULL);
		json_u64(&j, "pid", p->tgid);
		json_str(&j, "comm", p->comm);
		for (int o = 0; o < IOLENS_OP_NR; o++) {
			char key[40];

			if (!proc_has(a, p, o))
				continue;
			snprintf(key, sizeof(key), "%s_requests", op_name(o));
			json_u64(&j, key, p->requests[o]);
			if (by_bio(a, o)) {
				snprintf(key, sizeof(key), "%s_bios", op_name(o));
				json_u64(&j, key, p->bios.bios[o == IOLENS_OP_WRITE]);
			}
			snprintf(key, sizeof(key), "%s_bytes", op_name(o));
			json_u64(&j, key, proc_bytes(a, p, o));
		}
		json_obj_close(&j);
	}
	json_arr_close(&j);
	if (a->o->nroots) {
		json_obj_open(&j, "writeback");
		json_u64(&j, "requests", a->wb_requests);
		json_u64(&j, "bytes", a->wb_bytes);
		json_bool(&j, "attributed", false);
		json_obj_close(&j);
	}
	json_obj_close(&j);
	json_newline(&j);
}

int attach_run(const struct attach_opts *o)
{
	struct attach a = { .o = o };
	struct block_trace_stats bs;
	__u32 devs[RQFILTER_MAX];
	__u64 start;
	double secs;
	int rc;

	rc = block_trace_devs(CMD, &o->filter, devs);
	if (rc)
		return rc;
	proctree_init(&a.tree, o->roots, o->nroots);
	/* The roots are known before the first request is read. */
	for (int i = 0; i < o->nroots; i++)
		proctree_has(&a.tree, o->roots[i]);
	a.bt = block_trace_start(CMD, devs, o->filter.ndev, 0, BLOCK_TRACE_BIOS);
	if (!a.bt)
		return 1;
	fprintf(stderr, "Attached%s... Ctrl-C to end.\n",
		o->nroots ? " (until they exit)" : "");
	start = mono_ns();
	rc = block_trace_run(a.bt, o->duration_ns, on_rq, on_tick, &a);
	secs = (mono_ns() - start) / 1e9;
	block_trace_proc_bios(a.bt, on_proc_bios, &a);
	block_trace_stats(a.bt, &bs);
	block_trace_stop(a.bt);
	if (!rc) {
		if (o->json)
			show_json(&a, secs, &bs);
		else
			show_text(&a, secs, &bs);
	}
	proctree_free(&a.tree);
	free(a.procs);
	return rc;
}
