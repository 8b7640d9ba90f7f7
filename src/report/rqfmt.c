// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/devices.h"
#include "trace/block_trace.h"
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

/*
 * A line is built in memory, then written with one call: snoop -j writes
 * hundreds of thousands a second, and a stdio call per field was most of
 * its cost.  JSON is byte for byte lib/json's.  rqfmt_bound() gives room
 * for the worst case, so nothing below checks: fixed parts (keys, numbers,
 * short names) fit in LINE_FIXED, and a string of n bytes takes at most
 * 6n + 2 (JSON's \u00XX escapes).
 */
#define LINE_FIXED	1024

struct line {
	char *p;
};

static inline __attribute__((always_inline)) void
line_lit(struct line *l, const char *s, size_t n)
{
	memcpy(l->p, s, n);
	l->p += n;
}

static const char digits2[] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Digits written in place from the last: a copy of a variable length is a
 * call to memcpy(), which cost more than the digits. */
static void line_u64(struct line *l, unsigned long long v)
{
	static const unsigned long long pow10[] = {
		1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
		1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 10000000000000000000ULL,
	};
	unsigned int n = 1;
	char *q;

	while (n < 20 && v >= pow10[n - 1])
		n++;
	q = l->p += n;
	while (v >= 100) {
		q -= 2;
		memcpy(q, digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, digits2 + 2 * v, 2);
	} else {
		*--q = '0' + v;
	}
}

/* printf() of bounded output (floats, padded text columns). */
static void __attribute__((format(printf, 2, 3)))
line_fmt(struct line *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	l->p += vsprintf(l->p, fmt, ap);
	va_end(ap);
}

/* As json_write_string(): null, or the string quoted and escaped. */
static void line_str(struct line *l, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		line_lit(l, "null", 4);
		return;
	}
	*l->p++ = '"';
	for (; *p; p++) {
		if (*p >= 0x20 && *p != '"' && *p != '\\' && *p != 0x7f) {
			*l->p++ = *p;
			continue;
		}
		*l->p++ = '\\';
		switch (*p) {
		case '"': *l->p++ = '"'; break;
		case '\\': *l->p++ = '\\'; break;
		case '\n': *l->p++ = 'n'; break;
		case '\r': *l->p++ = 'r'; break;
		case '\t': *l->p++ = 't'; break;
		default:
			line_lit(l, "u00", 3);
			*l->p++ = hex[*p >> 4];
			*l->p++ = hex[*p & 15];
		}
	}
	*l->p++ = '"';
}

static void line_lat(struct line *l, long long ns)
{
	if (ns < 0)
		line_lit(l, "null", 4);
	else
		line_u64(l, ns);
}

/* Seconds with 9 decimals, as json_ns_as_s(). */
static void line_secs(struct line *l, long long ns)
{
	unsigned long long a = ns < 0 ? -(unsigned long long)ns : (unsigned long long)ns;
	char frac[10];

	if (ns < 0)
		line_lit(l, "-", 1);
	line_u64(l, a / 1000000000);
	a %= 1000000000;
	frac[0] = '.';
	for (int i = 9; i >= 1; i--, a /= 10)
		frac[i] = '0' + a % 10;
	line_lit(l, frac, sizeof(frac));
}

static void us_col(char *buf, size_t len, long long ns)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld.%03lld", ns / 1000, ns % 1000);
}

static void format_text(struct line *l, const struct iolens_rq *rq,
			const struct rqfmt_names *n, double t,
			const struct rq_lat *lat, const char *flags)
{
	char q[24], d[24], tot[24], pid[12] = "-", tid[12] = "-", qd[8] = "-";
	char majmin[16];
	const char *cg = shown_cgroup(n);

	us_col(q, sizeof(q), lat->queue);
	us_col(d, sizeof(d), lat->device);
	us_col(tot, sizeof(tot), lat->total);
	if (rq->ctx != IOLENS_CTX_NONE) {
		snprintf(pid, sizeof(pid), "%u", rq->pid);
		snprintf(tid, sizeof(tid), "%u", rq->tid);
	}
	if (rq->qd)
		snprintf(qd, sizeof(qd), "%u", rq->qd);
	snprintf(majmin, sizeof(majmin), "%u:%u", kdev_major(rq->dev),
		 kdev_minor(rq->dev));
	line_fmt(l, "%-11.6f %-15.15s %7s %7s %-8s %-7s %-6s %-10s %12" PRIu64 " %8u %10s %10s %10s %4s %-7s %s\n",
		 t, rq->ctx == IOLENS_CTX_NONE ? "?" : rq->comm, pid, tid,
		 n->dev, majmin, op_name(rq->op), *flags ? flags : "-",
		 (uint64_t)rq->sector, rq->bytes, q, d, tot, qd,
		 status_name(rq), cg ? cg : "-");
}

#define KEY(l, k) line_lit(l, ",\"" k "\":", sizeof(",\"" k "\":") - 1)

static void format_json(struct line *l, const struct iolens_rq *rq,
			const struct rqfmt_names *n, long long t_ns,
			const struct rq_lat *lat, const char *flags,
			const char *rwbs)
{
	line_lit(l, "{\"time_s\":", sizeof("{\"time_s\":") - 1);
	line_secs(l, t_ns);
	if (rq->ctx == IOLENS_CTX_NONE) {
		KEY(l, "comm");
		line_lit(l, "null", 4);
		KEY(l, "pid");
		line_lit(l, "null", 4);
		KEY(l, "tid");
		line_lit(l, "null", 4);
	} else {
		KEY(l, "comm");
		line_str(l, rq->comm);
		KEY(l, "pid");
		line_u64(l, rq->pid);
		KEY(l, "tid");
		line_u64(l, rq->tid);
	}
	KEY(l, "ctx");
	line_str(l, ctx_name(rq->ctx));
	KEY(l, "dev");
	line_str(l, n->dev);
	KEY(l, "major");
	line_u64(l, kdev_major(rq->dev));
	KEY(l, "minor");
	line_u64(l, kdev_minor(rq->dev));
	KEY(l, "op");
	line_str(l, op_name(rq->op));
	KEY(l, "flags");
	line_str(l, flags);
	KEY(l, "rwbs");
	line_str(l, rwbs);
	KEY(l, "sector");
	line_u64(l, rq->sector);
	KEY(l, "bytes");
	line_u64(l, rq->bytes);
	KEY(l, "queue_ns");
	line_lat(l, lat->queue);
	KEY(l, "device_ns");
	line_lat(l, lat->device);
	KEY(l, "total_ns");
	line_lat(l, lat->total);
	KEY(l, "qd");
	if (rq->qd)
		line_u64(l, rq->qd);
	else
		line_lit(l, "null", 4);
	KEY(l, "status");
	line_str(l, status_name(rq));
	KEY(l, "requeues");
	line_u64(l, rq->requeues);
	KEY(l, "cgroup");
	line_str(l, n->cgroup);
	KEY(l, "cgroup_id");
	line_u64(l, rq->cgroup);
	KEY(l, "io_cgroup");
	line_str(l, n->io_cgroup);
	KEY(l, "io_cgroup_id");
	line_u64(l, rq->io_cgroup);
	KEY(l, "ts_start");
	line_u64(l, rq->ts_start);
	KEY(l, "ts_insert");
	line_u64(l, rq->ts_insert);
	KEY(l, "ts_issue");
	line_u64(l, rq->ts_issue);
	KEY(l, "ts_complete");
	line_u64(l, rq->ts_complete);
	line_lit(l, "}\n", 2);
}

/* RFC 4180: a field that holds a separator or a quote is quoted. */
static void csv_str(struct line *l, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n")) {
		line_lit(l, s, strlen(s));
		return;
	}
	*l->p++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*l->p++ = '"';
		*l->p++ = *s;
	}
	*l->p++ = '"';
}

static void csv_lat(struct line *l, long long ns)
{
	if (ns >= 0)
		line_u64(l, ns);
	*l->p++ = ',';
}

static void format_csv(struct line *l, const struct iolens_rq *rq,
		       const struct rqfmt_names *n, double t,
		       const struct rq_lat *lat, const char *flags,
		       const char *rwbs)
{
	line_fmt(l, "%.9f,", t);
	if (rq->ctx != IOLENS_CTX_NONE) {
		csv_str(l, rq->comm);
		line_fmt(l, ",%u,%u,", rq->pid, rq->tid);
	} else {
		line_lit(l, ",,,", 3);
	}
	line_fmt(l, "%s,", ctx_name(rq->ctx));
	csv_str(l, n->dev);
	line_fmt(l, ",%u,%u,%s,", kdev_major(rq->dev), kdev_minor(rq->dev),
		 op_name(rq->op));
	csv_str(l, flags);
	line_fmt(l, ",%s,%" PRIu64 ",%u,", rwbs, (uint64_t)rq->sector, rq->bytes);
	csv_lat(l, lat->queue);
	csv_lat(l, lat->device);
	csv_lat(l, lat->total);
	if (rq->qd)
		line_u64(l, rq->qd);
	line_fmt(l, ",%s,%u,", status_name(rq), rq->requeues);
	csv_str(l, n->cgroup);
	*l->p++ = ',';
	csv_str(l, n->io_cgroup);
	line_fmt(l, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
		 (uint64_t)rq->ts_start, (uint64_t)rq->ts_insert,
		 (uint64_t)rq->ts_issue, (uint64_t)rq->ts_complete);
}

static size_t str_len(const char *s)
{
	return s ? strlen(s) : 0;
}

size_t rqfmt_bound(const struct rqfmt_names *n)
{
	return LINE_FIXED + 6 * (IOLENS_COMM_LEN + str_len(n->dev) + str_len(n->cgroup) +
				 str_len(n->io_cgroup));
}

size_t rqfmt_format(char *buf, enum rqfmt_mode mode, const struct iolens_rq *rq,
		    const struct rqfmt_names *names, __u64 t0)
{
	struct rq_lat lat = rq_lat(rq);
	double t = ((double)block_rq_time(rq) - (double)t0) / 1e9;
	struct line l = { buf };
	char flags[96], rwbs[16];

	flags_str(rq->flags, flags, sizeof(flags));
	rq_rwbs(rq, rwbs, sizeof(rwbs));
	switch (mode) {
	case RQFMT_TEXT:
		format_text(&l, rq, names, t, &lat, flags);
		break;
	case RQFMT_JSON:
		format_json(&l, rq, names, (long long)(block_rq_time(rq) - t0), &lat,
			    flags, rwbs);
		break;
	case RQFMT_CSV:
		format_csv(&l, rq, names, t, &lat, flags, rwbs);
		break;
	}
	return l.p - buf;
}

void rqfmt_print(FILE *f, enum rqfmt_mode mode, const struct iolens_rq *rq,
		 const struct rqfmt_names *names, __u64 t0)
{
	static char *buf;
	static size_t cap;
	size_t need = rqfmt_bound(names);

	if (need > cap) {
		char *nb = realloc(buf, need);

		if (!nb) {
			fprintf(stderr, "iolens: out of memory for a line of %zu bytes\n", need);
			return;
		}
		buf = nb;
		cap = need;
	}
	fwrite_unlocked(buf, 1, rqfmt_format(buf, mode, rq, names, t0), f);
}
