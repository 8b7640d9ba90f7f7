// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/devices.h"
#include "lib/sanitize.h"
#include "trace/block_trace.h"
#include "trace/reqflags.h"
#include "trace/rqfile.h"
#include "trace/rqfmt.h"

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

void rqfmt_header(FILE *f, enum rqfmt_mode mode, bool files, bool stacks)
{
	if (mode == RQFMT_TEXT)
		fprintf(f, "%-11s %-15s %7s %7s %-8s %-7s %-6s %-10s %12s %8s %10s %10s %10s %4s %-7s %s%s\n",
			"TIME(s)", "COMM", "PID", "TID", "DISK", "MAJ:MIN",
			"OP", "FLAGS", "SECTOR", "BYTES", "QUEUE(us)",
			"DEVICE(us)", "TOTAL(us)", "QD", "STATUS", "CGROUP",
			files ? " FILE" : "");
	else if (mode == RQFMT_CSV)
		fprintf(f, "time_s,comm,pid,tid,ctx,dev,major,minor,op,flags,rwbs,sector,bytes,"
			"queue_ns,device_ns,total_ns,qd,status,requeues,cgroup,io_cgroup,"
			"ts_start,ts_insert,ts_issue,ts_complete%s%s\n",
			files ? ",file_kind,file_dev,file_ino,file" : "", stacks ? ",stack" : "");
}

/* Why the request has no stack: never NULL (a stack id the map no longer
 * held, which cannot happen while it lives, is "not found"). */
static const char *stack_why(const struct iolens_rq *rq)
{
	const char *why = kstack_unknown(rq->stack);

	return why ? why : "not found";
}

/*
 * A line is built in memory, then written with one call: snoop -j writes
 * hundreds of thousands a second, and a stdio call per field was most of
 * its cost.  JSON is byte for byte lib/json's.  rqfmt_bound() gives room
 * for the worst case, so nothing below checks: fixed parts (keys, numbers,
 * short names) fit in LINE_FIXED, and a name of n bytes takes at most
 * 6n + 2 (lib/sanitize's bound for JSON with its quotes; text takes 4n,
 * a CSV field 4n + 3).
 *
 * Each helper takes where to write and returns where it ended, and most
 * are inlined: with the position kept in memory behind a pointer, reloaded
 * after every call, and numbers in 64-bit pairs, a JSON line took 240 ns
 * here; now 120.
 */
#define LINE_FIXED	1024
#define INLINE		static inline __attribute__((always_inline))

INLINE char *put_lit(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static const char digits2[] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The last `n` digits of v < 10^n, leading zeros too, ending at q: in
 * pairs, and in 32 bits (a 64-bit division by a constant costs twice). */
INLINE void put_digits32(char *q, __u32 v, unsigned int n)
{
	for (; n >= 2; n -= 2, v /= 100) {
		q -= 2;
		memcpy(q, digits2 + 2 * (v % 100), 2);
	}
	if (n)
		q[-1] = '0' + v % 10;
}

/* Digits of v (at least one), from the bit length: 1233/4096 is log10(2). */
INLINE unsigned int ndigits32(__u32 v)
{
	static const __u32 pow10[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
		100000000, 1000000000,
	};
	unsigned int t = ((32 - __builtin_clz(v | 1)) * 1233) >> 12;

	return t + 1 - ((v | 1) < pow10[t]);
}

INLINE char *put_u32(char *p, __u32 v)
{
	unsigned int n = ndigits32(v);

	put_digits32(p + n, v, n);
	return p + n;
}

/* Nanosecond timestamps have 14 digits and more: eight at a time. */
static char *put_u64(char *p, unsigned long long v)
{
	if (v <= UINT32_MAX)
		return put_u32(p, v);
	if (v < 10000000000000000ULL) {
		p = put_u32(p, v / 100000000);
	} else {
		p = put_u32(p, v / 10000000000000000ULL);
		v %= 10000000000000000ULL;
		put_digits32(p + 8, v / 100000000, 8);
		p += 8;
	}
	put_digits32(p + 8, v % 100000000, 8);
	return p + 8;
}

/* printf() of bounded output (floats, padded text columns). */
static char *__attribute__((format(printf, 2, 3)))
put_fmt(char *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	p += vsprintf(p, fmt, ap);
	va_end(ap);
	return p;
}

static size_t str_len(const char *s)
{
	return s ? strlen(s) : 0;
}

/* A comm from a trace file may fill its array with no NUL. */
static size_t comm_len(const struct iolens_rq *rq)
{
	return strnlen(rq->comm, IOLENS_COMM_LEN);
}

/* A name of others (comm, device, cgroup): null, or quoted and made safe
 * by lib/sanitize (valid UTF-8, controls escaped). */
static char *put_strn(char *p, const char *s, size_t n)
{
	*p++ = '"';
	p += san_json(p, s, n);
	*p++ = '"';
	return p;
}

static char *put_str(char *p, const char *s)
{
	return s ? put_strn(p, s, strlen(s)) : put_lit(p, "null", 4);
}

/* A string of ours that needs no escapes (names from tables, flags). */
INLINE char *put_name(char *p, const char *s)
{
	*p++ = '"';
	p = put_lit(p, s, strlen(s));
	*p++ = '"';
	return p;
}

INLINE char *put_lat(char *p, long long ns)
{
	return ns < 0 ? put_lit(p, "null", 4) : put_u64(p, ns);
}

/* Seconds with 9 decimals, as json_ns_as_s(). */
INLINE char *put_secs(char *p, long long ns)
{
	unsigned long long a = ns < 0 ? -(unsigned long long)ns : (unsigned long long)ns;
	__u32 frac;

	if (ns < 0)
		*p++ = '-';
	p = put_u64(p, a / 1000000000);
	frac = a % 1000000000;
	*p = '.';
	p[1] = '0' + frac / 100000000;
	put_digits32(p + 10, frac % 100000000, 8);
	return p + 10;
}

static void us_col(char *buf, size_t len, long long ns)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld.%03lld", ns / 1000, ns % 1000);
}

static char *format_text(char *p, const struct iolens_rq *rq,
			 const struct rqfmt_names *n, double t,
			 const struct rq_lat *lat, const char *flags)
{
	char q[24], d[24], tot[24], pid[12] = "-", tid[12] = "-", qd[8] = "-";
	char majmin[16], comm[SAN_TEXT_MAX(IOLENS_COMM_LEN) + 1] = "?";
	const char *cg = shown_cgroup(n);
	char *dev;

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
	/* Names are others': escaped by lib/sanitize, and a comm is shown
	 * whole (its escapes widen the column rather than being cut). */
	if (rq->ctx != IOLENS_CTX_NONE)
		comm[san_text(comm, rq->comm, comm_len(rq))] = '\0';
	p = put_fmt(p, "%-11.6f %-15s %7s %7s ", t, comm, pid, tid);
	/* The device name, padded to 8 as %-8s would. */
	dev = p;
	p += san_text(p, n->dev, str_len(n->dev));
	while (p - dev < 8)
		*p++ = ' ';
	p = put_fmt(p, " %-7s %-6s %-10s %12" PRIu64 " %8u %10s %10s %10s %4s %-7s ",
		    majmin, op_name(rq->op), *flags ? flags : "-",
		    (uint64_t)rq->sector, rq->bytes, q, d, tot, qd, status_name(rq));
	if (cg)
		p += san_text(p, cg, strlen(cg));
	else
		*p++ = '-';
	/* The file last: a path, else what is known of it. */
	if (n->files && n->file) {
		*p++ = ' ';
		p += san_text(p, n->file, strlen(n->file));
	} else if (n->files) {
		char what[64];

		p = put_fmt(p, " %s", rqfile_unnamed(rq, n->file_kind, what, sizeof(what)));
	}
	*p++ = '\n';
	/* The stack below, a frame a line, innermost first, as biostacks
	 * and perf show one. */
	if (n->stacks && n->stack) {
		for (__u32 i = 0; i < n->stack->n; i++) {
			p = put_lit(p, "    ", 4);
			p += san_text(p, n->stack->frame[i], str_len(n->stack->frame[i]));
			*p++ = '\n';
		}
	} else if (n->stacks) {
		p = put_fmt(p, "    (stack %s)\n", stack_why(rq));
	}
	return p;
}

#define KEY(p, k) put_lit(p, ",\"" k "\":", sizeof(",\"" k "\":") - 1)

static char *format_json(char *p, const struct iolens_rq *rq,
			 const struct rqfmt_names *n, long long t_ns,
			 const struct rq_lat *lat, const char *flags,
			 const char *rwbs)
{
	p = put_lit(p, "{\"time_s\":", sizeof("{\"time_s\":") - 1);
	p = put_secs(p, t_ns);
	if (rq->ctx == IOLENS_CTX_NONE) {
		p = put_lit(p, ",\"comm\":null,\"pid\":null,\"tid\":null",
			    sizeof(",\"comm\":null,\"pid\":null,\"tid\":null") - 1);
	} else {
		p = put_strn(KEY(p, "comm"), rq->comm, comm_len(rq));
		p = put_u32(KEY(p, "pid"), rq->pid);
		p = put_u32(KEY(p, "tid"), rq->tid);
	}
	p = put_name(KEY(p, "ctx"), ctx_name(rq->ctx));
	p = put_str(KEY(p, "dev"), n->dev);
	p = put_u32(KEY(p, "major"), kdev_major(rq->dev));
	p = put_u32(KEY(p, "minor"), kdev_minor(rq->dev));
	p = put_name(KEY(p, "op"), op_name(rq->op));
	p = put_name(KEY(p, "flags"), flags);
	p = put_name(KEY(p, "rwbs"), rwbs);
	p = put_u64(KEY(p, "sector"), rq->sector);
	p = put_u32(KEY(p, "bytes"), rq->bytes);
	p = put_lat(KEY(p, "queue_ns"), lat->queue);
	p = put_lat(KEY(p, "device_ns"), lat->device);
	p = put_lat(KEY(p, "total_ns"), lat->total);
	p = KEY(p, "qd");
	p = rq->qd ? put_u32(p, rq->qd) : put_lit(p, "null", 4);
	p = put_name(KEY(p, "status"), status_name(rq));
	p = put_u32(KEY(p, "requeues"), rq->requeues);
	p = put_str(KEY(p, "cgroup"), n->cgroup);
	p = put_u64(KEY(p, "cgroup_id"), rq->cgroup);
	p = put_str(KEY(p, "io_cgroup"), n->io_cgroup);
	p = put_u64(KEY(p, "io_cgroup_id"), rq->io_cgroup);
	p = put_u64(KEY(p, "ts_start"), rq->ts_start);
	p = put_u64(KEY(p, "ts_insert"), rq->ts_insert);
	p = put_u64(KEY(p, "ts_issue"), rq->ts_issue);
	p = put_u64(KEY(p, "ts_complete"), rq->ts_complete);
	if (n->files) {
		p = put_name(KEY(p, "file_kind"), n->file_kind);
		p = KEY(p, "file_dev");
		if (rq->fkind != IOLENS_FK_NONE)
			p = put_fmt(p, "\"%u:%u\"", kdev_major(rq->fdev), kdev_minor(rq->fdev));
		else
			p = put_lit(p, "null", 4);
		p = KEY(p, "file_ino");
		p = rqfile_has_inode(rq) ? put_u64(p, rq->ino) : put_lit(p, "null", 4);
		p = put_str(KEY(p, "file"), n->file);
	}
	if (n->stacks && n->stack) {
		p = put_lit(KEY(p, "stack"), "[", 1);
		for (__u32 i = 0; i < n->stack->n; i++) {
			if (i)
				*p++ = ',';
			p = put_str(p, n->stack->frame[i]);
		}
		*p++ = ']';
	} else if (n->stacks) {
		p = put_lit(KEY(p, "stack"), "null", 4);
		p = put_name(KEY(p, "stack_unknown"), stack_why(rq));
	}
	return put_lit(p, "}\n", 2);
}

/* A name of others: always quoted, escaped and kept from being read as a
 * formula by lib/sanitize; a missing one is an empty field. */
static char *csv_name(char *p, const char *s, size_t n)
{
	return s ? p + san_csv(p, s, n) : p;
}

/* One of ours (flags): RFC 4180, quoted where it holds a separator. */
static char *csv_str(char *p, const char *s)
{
	if (!s)
		return p;
	if (!strpbrk(s, ",\"\n"))
		return put_lit(p, s, strlen(s));
	*p++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = *s;
	}
	*p++ = '"';
	return p;
}

static char *csv_lat(char *p, long long ns)
{
	if (ns >= 0)
		p = put_u64(p, ns);
	*p++ = ',';
	return p;
}

/* The stack as one field, folded as flame graph tools read it: outermost
 * frame first, ';' between frames; empty where unknown. */
static char *csv_stack(char *p, const struct kstack *k)
{
	char folded[IOLENS_STACK_DEPTH * (KSTACK_NAME + 1)], *f = folded;

	*p++ = ',';
	if (!k || !k->n)
		return p;
	for (int i = k->n - 1; i >= 0; i--) {
		f += snprintf(f, KSTACK_NAME + 1, "%s", k->frame[i]);
		if (i)
			*f++ = ';';
	}
	return csv_name(p, folded, f - folded);
}

static char *format_csv(char *p, const struct iolens_rq *rq,
			const struct rqfmt_names *n, double t,
			const struct rq_lat *lat, const char *flags,
			const char *rwbs)
{
	p = put_fmt(p, "%.9f,", t);
	if (rq->ctx != IOLENS_CTX_NONE) {
		p = csv_name(p, rq->comm, comm_len(rq));
		p = put_fmt(p, ",%u,%u,", rq->pid, rq->tid);
	} else {
		p = put_lit(p, ",,,", 3);
	}
	p = put_fmt(p, "%s,", ctx_name(rq->ctx));
	p = csv_name(p, n->dev, str_len(n->dev));
	p = put_fmt(p, ",%u,%u,%s,", kdev_major(rq->dev), kdev_minor(rq->dev),
		    op_name(rq->op));
	p = csv_str(p, flags);
	p = put_fmt(p, ",%s,%" PRIu64 ",%u,", rwbs, (uint64_t)rq->sector, rq->bytes);
	p = csv_lat(p, lat->queue);
	p = csv_lat(p, lat->device);
	p = csv_lat(p, lat->total);
	if (rq->qd)
		p = put_u32(p, rq->qd);
	p = put_fmt(p, ",%s,%u,", status_name(rq), rq->requeues);
	p = csv_name(p, n->cgroup, str_len(n->cgroup));
	*p++ = ',';
	p = csv_name(p, n->io_cgroup, str_len(n->io_cgroup));
	p = put_fmt(p, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		    (uint64_t)rq->ts_start, (uint64_t)rq->ts_insert,
		    (uint64_t)rq->ts_issue, (uint64_t)rq->ts_complete);
	if (n->files) {
		p = put_fmt(p, ",%s,", n->file_kind);
		if (rq->fkind != IOLENS_FK_NONE)
			p = put_fmt(p, "%u:%u", kdev_major(rq->fdev), kdev_minor(rq->fdev));
		*p++ = ',';
		if (rqfile_has_inode(rq))
			p = put_u64(p, rq->ino);
		*p++ = ',';
		p = csv_name(p, n->file, str_len(n->file));
	}
	if (n->stacks)
		p = csv_stack(p, n->stack);
	*p++ = '\n';
	return p;
}

size_t rqfmt_bound(const struct rqfmt_names *n)
{
	size_t frames = 0;

	/* A frame takes its name and at most 8 bytes around it. */
	for (__u32 i = 0; n->stacks && n->stack && i < n->stack->n; i++)
		frames += str_len(n->stack->frame[i]) + 8;
	return LINE_FIXED + 6 * (IOLENS_COMM_LEN + str_len(n->dev) + str_len(n->cgroup) +
				 str_len(n->io_cgroup) + str_len(n->file) + frames);
}

size_t rqfmt_format(char *buf, enum rqfmt_mode mode, const struct iolens_rq *rq,
		    const struct rqfmt_names *names, __u64 t0)
{
	struct rq_lat lat = rq_lat(rq);
	double t = ((double)block_rq_time(rq) - (double)t0) / 1e9;
	char flags[96], rwbs[16], *p = buf;

	flags_str(rq->flags, flags, sizeof(flags));
	rq_rwbs(rq, rwbs, sizeof(rwbs));
	switch (mode) {
	case RQFMT_TEXT:
		p = format_text(p, rq, names, t, &lat, flags);
		break;
	case RQFMT_JSON:
		p = format_json(p, rq, names, (long long)(block_rq_time(rq) - t0), &lat,
				flags, rwbs);
		break;
	case RQFMT_CSV:
		p = format_csv(p, rq, names, t, &lat, flags, rwbs);
		break;
	}
	return p - buf;
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
