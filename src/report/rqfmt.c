// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>
#include "lib/devices.h"
#include "lib/json.h"
#include "trace/reqflags.h"
#include "report/rqfmt.h"

static const char *const ctx_names[] = {
	[IOLENS_CTX_NONE] = "none",
	[IOLENS_CTX_SUBMIT] = "submit",
	[IOLENS_CTX_INSERT] = "insert",
	[IOLENS_CTX_ISSUE] = "issue",
};

/* Latencies of one request; -1 where an endpoint was not seen. */
struct rq_lat {
	long long queue, device, total;
};

static struct rq_lat rq_lat(const struct iolens_rq *rq)
{
	struct rq_lat l = { -1, -1, -1 };

	if (rq->ts_start && rq->ts_issue)
		l.queue = rq->ts_issue - rq->ts_start;
	if (rq->ts_issue && rq->ts_complete)
		l.device = rq->ts_complete - rq->ts_issue;
	if (rq->ts_start && rq->ts_complete)
		l.total = rq->ts_complete - rq->ts_start;
	return l;
}

/* The last event seen: the completion, unless it never reached us. */
static __u64 rq_time(const struct iolens_rq *rq)
{
	return rq->ts_complete ? rq->ts_complete :
	       rq->ts_issue ? rq->ts_issue :
	       rq->ts_insert ? rq->ts_insert : rq->ts_start;
}

static const char *status_name(const struct iolens_rq *rq)
{
	return rq->ts_complete ? blk_status_name(rq->status) : "unseen";
}

static const char *ctx_name(unsigned int ctx)
{
	return ctx < sizeof(ctx_names) / sizeof(ctx_names[0]) ? ctx_names[ctx] : "?";
}

static const char *shown_cgroup(const struct rqfmt_names *n)
{
	/* The owner of the I/O is what a person asks about: for writeback
	 * the flusher's own cgroup is meaningless. */
	return n->io_cgroup ? n->io_cgroup : n->cgroup;
}

void rqfmt_header(FILE *f, enum rqfmt_mode mode)
{
	if (mode == RQFMT_TEXT)
		fprintf(f, "%-11s %-15s %7s %7s %-8s %-7s %-6s %-10s %12s %8s %10s %10s %10s %4s %-7s %s\n",
			"TIME(s)", "COMM", "PID", "TID", "DISK", "MAJ:MIN",
			"OP", "FLAGS", "SECTOR", "BYTES", "QUEUE(us)",
			"DEVICE(us)", "TOTAL(us)", "QD", "STATUS", "CGROUP");
	else if (mode == RQFMT_CSV)
		fprintf(f, "time_s,comm,pid,tid,ctx,dev,major,minor,op,flags,rwbs,sector,bytes,"
			"queue_ns,device_ns,total_ns,qd,status,requeues,cgroup,io_cgroup,"
			"ts_start,ts_insert,ts_issue,ts_complete\n");
}

static void us_col(char *buf, size_t len, long long ns)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld.%03lld", ns / 1000, ns % 1000);
}

static void print_text(FILE *f, const struct iolens_rq *rq,
		       const struct rqfmt_names *n, double t,
		       const struct rq_lat *l, const char *flags)
{
	char q[24], d[24], tot[24], pid[12] = "-", tid[12] = "-", qd[8] = "-";
	char majmin[16];
	const char *cg = shown_cgroup(n);

	us_col(q, sizeof(q), l->queue);
	us_col(d, sizeof(d), l->device);
	us_col(tot, sizeof(tot), l->total);
	if (rq->ctx != IOLENS_CTX_NONE) {
		snprintf(pid, sizeof(pid), "%u", rq->pid);
		snprintf(tid, sizeof(tid), "%u", rq->tid);
	}
	if (rq->qd)
		snprintf(qd, sizeof(qd), "%u", rq->qd);
	snprintf(majmin, sizeof(majmin), "%u:%u", kdev_major(rq->dev),
		 kdev_minor(rq->dev));
	fprintf(f, "%-11.6f %-15.15s %7s %7s %-8s %-7s %-6s %-10s %12" PRIu64 " %8u %10s %10s %10s %4s %-7s %s\n",
		t, rq->ctx == IOLENS_CTX_NONE ? "?" : rq->comm, pid, tid,
		n->dev, majmin, op_name(rq->op), *flags ? flags : "-",
		(uint64_t)rq->sector, rq->bytes, q, d, tot, qd,
		status_name(rq), cg ? cg : "-");
}

static void json_lat(struct json *j, const char *key, long long ns)
{
	if (ns < 0)
		json_null(j, key);
	else
		json_i64(j, key, ns);
}

static void print_json(FILE *f, const struct iolens_rq *rq,
		       const struct rqfmt_names *n, long long t_ns,
		       const struct rq_lat *l, const char *flags,
		       const char *rwbs)
{
	struct json j;

	json_init(&j, f);
	json_obj_open(&j, NULL);
	json_ns_as_s(&j, "time_s", t_ns);
	if (rq->ctx == IOLENS_CTX_NONE) {
		json_null(&j, "comm");
		json_null(&j, "pid");
		json_null(&j, "tid");
	} else {
		json_str(&j, "comm", rq->comm);
		json_u64(&j, "pid", rq->pid);
		json_u64(&j, "tid", rq->tid);
	}
	json_str(&j, "ctx", ctx_name(rq->ctx));
	json_str(&j, "dev", n->dev);
	json_u64(&j, "major", kdev_major(rq->dev));
	json_u64(&j, "minor", kdev_minor(rq->dev));
	json_str(&j, "op", op_name(rq->op));
	json_str(&j, "flags", flags);
	json_str(&j, "rwbs", rwbs);
	json_u64(&j, "sector", rq->sector);
	json_u64(&j, "bytes", rq->bytes);
	json_lat(&j, "queue_ns", l->queue);
	json_lat(&j, "device_ns", l->device);
	json_lat(&j, "total_ns", l->total);
	if (rq->qd)
		json_u64(&j, "qd", rq->qd);
	else
		json_null(&j, "qd");
	json_str(&j, "status", status_name(rq));
	json_u64(&j, "requeues", rq->requeues);
	json_str(&j, "cgroup", n->cgroup);
	json_u64(&j, "cgroup_id", rq->cgroup);
	json_str(&j, "io_cgroup", n->io_cgroup);
	json_u64(&j, "io_cgroup_id", rq->io_cgroup);
	json_u64(&j, "ts_start", rq->ts_start);
	json_u64(&j, "ts_insert", rq->ts_insert);
	json_u64(&j, "ts_issue", rq->ts_issue);
	json_u64(&j, "ts_complete", rq->ts_complete);
	json_obj_close(&j);
	json_newline(&j);
}

static void csv_str(FILE *f, const char *s)
{
	/* RFC 4180: quote fields that hold a separator or a quote. */
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_lat(FILE *f, long long ns)
{
	if (ns >= 0)
		fprintf(f, "%lld", ns);
	fputc(',', f);
}

static void print_csv(FILE *f, const struct iolens_rq *rq,
		      const struct rqfmt_names *n, double t,
		      const struct rq_lat *l, const char *flags,
		      const char *rwbs)
{
	fprintf(f, "%.9f,", t);
	if (rq->ctx != IOLENS_CTX_NONE) {
		csv_str(f, rq->comm);
		fprintf(f, ",%u,%u,", rq->pid, rq->tid);
	} else {
		fputs(",,,", f);
	}
	fprintf(f, "%s,", ctx_name(rq->ctx));
	csv_str(f, n->dev);
	fprintf(f, ",%u,%u,%s,", kdev_major(rq->dev), kdev_minor(rq->dev),
		op_name(rq->op));
	csv_str(f, flags);
	fprintf(f, ",%s,%" PRIu64 ",%u,", rwbs, (uint64_t)rq->sector, rq->bytes);
	csv_lat(f, l->queue);
	csv_lat(f, l->device);
	csv_lat(f, l->total);
	if (rq->qd)
		fprintf(f, "%u", rq->qd);
	fprintf(f, ",%s,%u,", status_name(rq), rq->requeues);
	csv_str(f, n->cgroup);
	fputc(',', f);
	csv_str(f, n->io_cgroup);
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
		(uint64_t)rq->ts_start, (uint64_t)rq->ts_insert,
		(uint64_t)rq->ts_issue, (uint64_t)rq->ts_complete);
}

void rqfmt_print(FILE *f, enum rqfmt_mode mode, const struct iolens_rq *rq,
		 const struct rqfmt_names *names, __u64 t0)
{
	struct rq_lat l = rq_lat(rq);
	double t = ((double)rq_time(rq) - (double)t0) / 1e9;
	char flags[96], rwbs[16];

	flags_str(rq->flags, flags, sizeof(flags));
	rq_rwbs(rq, rwbs, sizeof(rwbs));
	switch (mode) {
	case RQFMT_TEXT:
		print_text(f, rq, names, t, &l, flags);
		break;
	case RQFMT_JSON:
		print_json(f, rq, names, (long long)(rq_time(rq) - t0), &l,
			   flags, rwbs);
		break;
	case RQFMT_CSV:
		print_csv(f, rq, names, t, &l, flags, rwbs);
		break;
	}
}
