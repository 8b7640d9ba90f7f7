// SPDX-License-Identifier: GPL-2.0
/*
 * The columns of top's process table.  A column is one row of top_cols:
 * the screen, batch output and sorting read nothing else, so a new column
 * is a new row (and, for a new counter, its field in struct proc_io).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "lib/units.h"
#include "top/top.h"

#define IO(f)	.field = true, .off = offsetof(struct proc_io, f)

static double pid_of(const struct top_row *r)
{
	return r->e->id;
}

static double hit_of(const struct top_row *r)
{
	return isnan(r->hit) ? -1 : r->hit;
}

static double blk_lat_of(const struct top_row *r)
{
	return r->d.blk_timed ? (double)r->d.blk_ns / r->d.blk_timed : -1;
}

static const char *user_of(const struct top_row *r)
{
	return r->user;
}

static const char *comm_of(const struct top_row *r)
{
	return r->e->comm;
}

const struct top_column top_cols[] = {
	{ "PID", 7, TOP_NUM, .value = pid_of, .ascending = true,
	  .help = "process id (thread id with -t)" },
	{ "USER", 8, TOP_TEXT, .text = user_of, .help = "effective user" },
	{ "DISK READ", 10, TOP_BYTES, IO(io.read_bytes), .total = true,
	  .help = "bytes read from disk (read_bytes of /proc/PID/io)" },
	{ "DISK WRITE", 10, TOP_BYTES, IO(io.write_bytes), .total = true,
	  .help = "bytes written to disk or dirtied (write_bytes)" },
	{ "FILE READ", 10, TOP_BYTES, IO(sys.bytes[IOLENS_SC_FILE_READ]),
	  .total = true, .sys = true,
	  .help = "bytes read by syscalls from files and block devices" },
	{ "HIT%", 5, TOP_PCT, .value = hit_of, .total = true,
	  .help = "page-cache hit ratio of file reads" },
	{ "RCHAR", 10, TOP_BYTES, IO(io.rchar), .total = true,
	  .help = "bytes read by any syscall (rchar)" },
	{ "WCHAR", 10, TOP_BYTES, IO(io.wchar), .total = true,
	  .help = "bytes written by any syscall (wchar)" },
	{ "SYSCR", 7, TOP_COUNT, IO(io.syscr), .total = true,
	  .help = "read syscalls (syscr)" },
	{ "SYSCW", 7, TOP_COUNT, IO(io.syscw), .total = true,
	  .help = "write syscalls (syscw)" },
	{ "FSYNC", 6, TOP_COUNT, IO(sys.calls[IOLENS_SC_SYNC]), .total = true,
	  .sys = true, .help = "fsync and fdatasync calls" },
	{ "BLK IO", 7, TOP_COUNT, IO(blk_ios), .total = true,
	  .help = "block requests it submitted" },
	{ "BLK LAT", 7, TOP_NS, .value = blk_lat_of, .total = true,
	  .help = "mean latency of those requests" },
	{ "RMW", 6, TOP_COUNT, IO(sys.rmw_reads), .total = true, .sys = true,
	  .help = "disk reads inside buffered writes: read-modify-write" },
	{ "MISALIGN", 8, TOP_COUNT, IO(misaligned), .total = true,
	  .help = "writes misaligned to the disk's physical block" },
	{ "COMMAND", 16, TOP_TEXT, .text = comm_of, .help = "command name" },
};

const int top_ncols = sizeof(top_cols) / sizeof(top_cols[0]);

int top_col_find(const char *title)
{
	for (int c = 0; c < top_ncols; c++)
		if (!strcmp(top_cols[c].title, title))
			return c;
	return -1;
}

/* The number a column sorts by; negative for unknown. */
static double col_value(const struct top_row *r, int col)
{
	const struct top_column *c = &top_cols[col];

	if (c->field)
		return *(const __u64 *)((const char *)&r->d + c->off);
	return c->value ? c->value(r) : 0;
}

void top_cell(char *buf, size_t len, const struct top_row *r, int col,
	      double secs, bool accumulated)
{
	const struct top_column *c = &top_cols[col];
	double v, per = accumulated || secs <= 0 ? 1 : secs;
	char t[32];

	if (c->sys && !(r->e->flags & IOLENS_TASK_SYS)) {
		snprintf(buf, len, "-");
		return;
	}
	if (c->fmt == TOP_TEXT) {
		snprintf(buf, len, "%s", c->text(r));
		return;
	}
	v = col_value(r, col);
	switch (c->fmt) {
	case TOP_NUM:
		snprintf(buf, len, "%.0f", v);
		break;
	case TOP_BYTES:
		fmt_bytes(t, sizeof(t), v / per);
		snprintf(buf, len, "%s%s", t, accumulated ? "" : "/s");
		break;
	case TOP_COUNT:
		snprintf(buf, len, accumulated ? "%.0f" : "%.1f", v / per);
		break;
	case TOP_PCT:
		if (v < 0)
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%.0f%%", 100 * v);
		break;
	case TOP_NS:
		if (v < 0)
			snprintf(buf, len, "-");
		else
			fmt_ns(buf, len, (__u64)v);
		break;
	case TOP_TEXT:
		break;
	}
}

int top_col_cmp(const struct top_row *x, const struct top_row *y, int col)
{
	const struct top_column *c = &top_cols[col];
	double u, v;
	int d;

	if (c->fmt == TOP_TEXT) {
		d = strcmp(c->text(x), c->text(y));
	} else {
		u = col_value(x, col);
		v = col_value(y, col);
		/* Biggest first: what a person looks for. */
		d = u < v ? 1 : u > v ? -1 : 0;
		if (c->ascending)
			d = -d;
	}
	if (!d)		/* stable between frames */
		d = x->e->id < y->e->id ? -1 : x->e->id > y->e->id;
	return d;
}
