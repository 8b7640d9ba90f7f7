// SPDX-License-Identifier: GPL-2.0
/*
 * The columns of top's process table.  A column is one row of top_cols:
 * the screen, batch output and its JSON, sorting, --columns, the chooser,
 * --help and the man page's FIELDS read nothing else, so a new column is a
 * new row (and, for a new counter, its field in struct proc_io).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "lib/sanitize.h"
#include "lib/units.h"
#include "top/top.h"

#define IO(f)	.field = true, .off = offsetof(struct proc_io, f)

/* A group's: how many processes it has. */
static double pid_of(const struct top_row *r)
{
	return r->g ? (double)r->g->nprocs : r->e->id;
}

static double hit_of(const struct top_row *r)
{
	return isnan(r->hit) ? -1 : r->hit;
}

static double blk_lat_of(const struct top_row *r)
{
	return r->d.blk_timed ? (double)r->d.blk_ns / r->d.blk_timed : -1;
}

/* GRAPH sorts by what the row moved in the frame, as DISK READ + WRITE. */
static double disk_of(const struct top_row *r)
{
	return r->d.io.read_bytes + r->d.io.write_bytes;
}

static const char *user_of(const struct top_row *r)
{
	return r->user;
}

static const char *comm_of(const struct top_row *r)
{
	if (r->g)
		return r->g->name;
	return r->cmdline ? r->cmdline : r->e->comm;
}

const struct top_column top_cols[] = {
	{ "pid", "PID", NULL, 7, 1, true, TOP_NUM, .value = pid_of, .ascending = true,
	  .help = "process id (thread id with -t); a group's processes", .group_title = "PROCS" },
	{ "user", "USER", NULL, 8, 2, true, TOP_TEXT, .text = user_of,
	  .help = "effective user" },
	{ "disk_read", "DISK READ", "read_bytes", 10, 3, true, TOP_BYTES, IO(io.read_bytes),
	  .total = true, .help = "bytes read from disk (read_bytes of /proc/PID/io)" },
	{ "disk_write", "DISK WRITE", "write_bytes", 10, 4, true, TOP_BYTES, IO(io.write_bytes),
	  .total = true, .help = "bytes written to disk or dirtied (write_bytes)" },
	{ "file_read", "FILE READ", "file_read_bytes", 10, 7, true, TOP_BYTES,
	  IO(sys.bytes[IOLENS_SC_FILE_READ]), .total = true, .needs = IOLENS_TASK_SYS,
	  .help = "bytes read by syscalls from files and block devices" },
	{ "hit", "HIT%", "hit_ratio", 5, 5, true, TOP_PCT, .value = hit_of, .total = true,
	  .help = "page-cache hit ratio of file reads; - below 64 KiB read" },
	{ "io", "IO>", "blkio_delay_ns", 6, 6, true, TOP_SHARE, IO(delay.blkio_ns), .total = true,
	  .needs = IOLENS_TASK_BLKIO,
	  .help = "share of the frame waiting for block I/O, summed over a\n"
		  "process's threads as iotop does; a wait counts as it ends" },
	{ "swapin", "SWAPIN", "swapin_delay_ns", 6, 8, true, TOP_SHARE, IO(delay.swapin_ns), .total = true,
	  .needs = IOLENS_TASK_SWAPIN,
	  .help = "share of the frame waiting for pages swapped in" },
	{ "graph", "GRAPH", NULL, 12, 11, true, TOP_GRAPH, .value = disk_of,
	  .help = "disk bytes read and written, the last minute" },
	{ "rchar", "RCHAR", "rchar", 10, 15, true, TOP_BYTES, IO(io.rchar), .total = true,
	  .help = "bytes read by any syscall (rchar)" },
	{ "wchar", "WCHAR", "wchar", 10, 16, true, TOP_BYTES, IO(io.wchar), .total = true,
	  .help = "bytes written by any syscall (wchar)" },
	{ "syscr", "SYSCR", "syscr", 7, 17, true, TOP_COUNT, IO(io.syscr), .total = true,
	  .help = "read syscalls (syscr)" },
	{ "syscw", "SYSCW", "syscw", 7, 18, true, TOP_COUNT, IO(io.syscw), .total = true,
	  .help = "write syscalls (syscw)" },
	{ "fsync", "FSYNC", "sync_calls", 6, 12, true, TOP_COUNT, IO(sys.calls[IOLENS_SC_SYNC]),
	  .total = true, .needs = IOLENS_TASK_SYS, .help = "fsync and fdatasync calls" },
	{ "blk_io", "BLK IO", "block_requests", 7, 10, true, TOP_COUNT, IO(blk_ios), .total = true,
	  .help = "block requests it submitted" },
	{ "blk_read", "BLK READ", "block_read_bytes", 10, 20, false, TOP_BYTES, IO(blk_rbytes),
	  .total = true, .help = "bytes of the read requests it submitted" },
	{ "blk_write", "BLK WRITE", "block_write_bytes", 10, 21, false, TOP_BYTES, IO(blk_wbytes),
	  .total = true,
	  .help = "bytes of the write requests it submitted; a cgroup's or\n"
		  "container's include the writeback the kernel charged to it" },
	{ "blk_lat", "BLK LAT", "block_avg_ns", 7, 9, true, TOP_NS, .value = blk_lat_of, .total = true,
	  .help = "mean latency of those requests that succeeded" },
	{ "blk_err", "BLK ERR", "block_failed", 7, 19, false, TOP_COUNT, IO(blk_failed), .total = true,
	  .help = "of those requests, the ones that failed (I/O error,\ntimeout, ...); the header names the disk" },
	{ "rmw", "RMW", "rmw_reads", 6, 13, true, TOP_COUNT, IO(sys.rmw_reads), .total = true,
	  .needs = IOLENS_TASK_SYS,
	  .help = "disk reads inside buffered writes: read-modify-write" },
	{ "misalign", "MISALIGN", "misaligned_writes", 8, 14, true, TOP_COUNT, IO(misaligned), .total = true,
	  .help = "writes misaligned to the disk's physical block" },
	{ "command", "COMMAND", NULL, 20, 0, true, TOP_TEXT, .text = comm_of,
	  .help = "command name or line (key c), indented in the tree; a\n"
		  "group's user, cgroup, container or unit", .group_title = "GROUP" },
};

const int top_ncols = sizeof(top_cols) / sizeof(top_cols[0]);
const int top_col_command = sizeof(top_cols) / sizeof(top_cols[0]) - 1;

_Static_assert(sizeof(top_cols) / sizeof(top_cols[0]) <= TOP_MAX_COLS,
	       "TOP_MAX_COLS");

const char *top_col_title(int c, bool grouped)
{
	return grouped && top_cols[c].group_title ? top_cols[c].group_title :
	       top_cols[c].title;
}

int top_col_find(const char *title)
{
	for (int c = 0; c < top_ncols; c++)
		if (!strcmp(top_cols[c].title, title))
			return c;
	return -1;
}

int top_col_by_key(const char *key)
{
	for (int c = 0; c < top_ncols; c++)
		if (!strcmp(top_cols[c].key, key))
			return c;
	return -1;
}

int top_cols_default(int *cols)
{
	int n = 0;

	for (int c = 0; c < top_ncols; c++)
		if (top_cols[c].dflt && c != top_col_command)
			cols[n++] = c;
	cols[n++] = top_col_command;
	return n;
}

int top_cols_parse(const char *list, int *cols, char *bad, size_t badlen)
{
	bool seen[TOP_MAX_COLS] = { false };
	const char *p = list;
	char key[32];
	int n = 0;

	while (*p) {
		size_t k = strcspn(p, ",");
		int c;

		snprintf(key, sizeof(key), "%.*s", (int)(k < sizeof(key) ? k : sizeof(key) - 1), p);
		c = k < sizeof(key) ? top_col_by_key(key) : -1;
		if (c < 0 || seen[c]) {
			snprintf(bad, badlen, "%.*s", (int)k, p);
			return -1;
		}
		seen[c] = true;
		if (c != top_col_command)
			cols[n++] = c;
		p += k + (p[k] == ',');
	}
	cols[n++] = top_col_command;
	return n;
}

void top_cols_format(char *buf, size_t len, const int *cols, int n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && o < len; i++)
		o += snprintf(buf + o, len - o, "%s%s", i ? "," : "", top_cols[cols[i]].key);
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
	      const struct top_cellfmt *cf)
{
	const struct top_column *c = &top_cols[col];
	double v, per = cf->accumulated || cf->secs <= 0 ? 1 : cf->secs;
	char t[32];

	if ((r->e->flags & c->needs) != c->needs) {
		snprintf(buf, len, "-");
		return;
	}
	if (c->fmt == TOP_TEXT) {
		const char *s = c->text(r);
		size_t in = 0, n = strlen(s);

		/* The tree's indentation, as ps f and htop draw it. */
		if (r->depth && col == top_col_command)
			in = snprintf(buf, len, "%*s`- ", 3 * (r->depth - 1), "");
		if (r->g && cf->fit && cf->width > 3 && n > (size_t)cf->width) {
			s += n - (cf->width - 3);
			while ((*s & 0xc0) == 0x80)	/* not inside a character */
				s++;
			in += snprintf(buf + in, len - in, "...");
		}
		/* Names are their owners' choice: escaped by lib/sanitize. */
		if (in < len)
			san_text_buf(buf + in, len - in, s);
		return;
	}
	if (c->fmt == TOP_GRAPH) {
		graph_draw(buf, len, r->e->graph, cf->at, cf->width, cf->utf8);
		return;
	}
	v = col_value(r, col);
	switch (c->fmt) {
	case TOP_NUM:
		snprintf(buf, len, "%.0f", v);
		break;
	case TOP_BYTES:
		fmt_bytes(t, sizeof(t), v / per);
		snprintf(buf, len, "%s%s", t, cf->accumulated ? "" : "/s");
		break;
	case TOP_COUNT:
		snprintf(buf, len, cf->accumulated ? "%.0f" : "%.1f", v / per);
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
	case TOP_SHARE:
		/* A process's threads can wait at once: more than 100%. */
		if (cf->accumulated)
			fmt_ns(buf, len, (__u64)v);
		else
			snprintf(buf, len, "%.1f%%", 100 * v / 1e9 / per);
		break;
	case TOP_TEXT:
	case TOP_GRAPH:
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
