/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `iolens top`: a frame (devices, processes, totals) that collect.c builds
 * from the task scan and the aggregation core, frame.c filters and sorts,
 * and batch.c (text, JSON) or top_tui.c (the terminal) shows, cell by cell
 * through the column table of columns.c.
 */
#ifndef IOLENS_TOP_H
#define IOLENS_TOP_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "lib/devices.h"
#include "lib/proctree.h"
#include "bpf/tasks.h"
#include "top/proctable.h"

/* Below this many file bytes read in a frame a hit ratio says nothing. */
#define TOP_HIT_MIN_BYTES (64 * 1024)

struct top_opts {
	bool batch, json, threads, only_active, accumulated;
	bool names;			/* -N: devices by stable names */
	unsigned long frames;		/* -n; 0 = until quit */
	unsigned long long delay_ns;	/* -d */
	__u32 pids[16];
	int npids;
	bool by_uid;
	uid_t uid;
	const char *comm;		/* substring of the command name */
	bool by_cgroup;
	__u64 cgroup;
	const char *filter;		/* interactive: pid, name or user */
	struct proctree *tree;		/* -p's processes and descendants */
	int sort;			/* index in top_cols */
	bool reverse;
};

/* One process or thread over the frame (or since start, accumulated). */
struct top_row {
	struct proc_ent *e;
	struct proc_io d;
	double hit;		/* file-read page-cache hit ratio; NaN: none */
	const char *user;
};

struct top_dev {
	struct dev_info info;
	double r_s, w_s, rkb_s, wkb_s;
	double await_ms;	/* NaN: no request */
	double queue_ms, device_ms;	/* NaN: split unknown */
	__u64 p99_ns;		/* 0: none */
	double aqu_sz;
	double util;		/* iostat's: the kernel's io_ticks */
	double busy;		/* iolens's exact busy time; NaN: unknown */
	bool bio_based;		/* counts the kernel's, latency of bios */
	int depth;		/* under how many stacked devices shown */
	__u64 *hist;		/* total latency, this frame */
};

/* Writes kernel threads submitted for a cgroup (writeback), this frame. */
struct top_wb {
	unsigned int hier;	/* 0 = cgroup2, else a v1 hierarchy */
	__u64 cgroup;
	__u64 ios, bytes;
};

struct top_frame {
	double secs;		/* length of the frame */
	char when[32];		/* UTC */
	const char *source;	/* "iter/task" or "/proc" */
	struct top_dev *devs;
	int ndev;
	struct top_row *all;	/* every process (or thread) */
	int nall;
	struct top_row **rows;	/* of all: filtered and sorted */
	int nrows;
	struct proc_io total;	/* sum over rows */
	bool syscalls;		/* syscall-level counts known */
	__u64 *sys_hist[IOLENS_SC_NR];	/* syscall latency, this frame */
	struct top_wb *wb;
	int nwb, wb_cap;
};

/* ---- frame.c ---- */

/* Allocates the frame's histograms; -ENOMEM. */
int top_frame_init(struct top_frame *f);
void top_frame_free(struct top_frame *f);

/* A device's name for the table: indented two spaces a level under the
 * stacked device it is part of.  Written to buf, which is returned. */
const char *top_dev_label(const struct top_dev *d, char *buf, size_t len);

/* Re-filters and re-sorts `f` after a change of o->sort, o->filter... */
void top_arrange(struct top_frame *f, const struct top_opts *o);

/* Hit ratio of file reads: 1 - disk reads / file bytes read; NaN when
 * syscalls are not counted or too few bytes were read. */
double top_hit_ratio(const struct proc_io *d, bool syscalls);

/* The user name of `uid`, or its number. */
const char *top_user_name(uid_t uid);

/* "blkio:/x" or "/x.slice", or the id when the cgroup is gone. */
void top_wb_name(char *buf, size_t len, const struct top_wb *w);

/* Names of enum iolens_sys_class in JSON and on screen. */
extern const char *const top_sc_names[IOLENS_SC_NR];

/* ---- columns.c: the process table's columns, one row each ---- */

enum top_fmt { TOP_NUM, TOP_TEXT, TOP_BYTES, TOP_COUNT, TOP_PCT, TOP_NS };

struct top_column {
	const char *title;
	int width;
	enum top_fmt fmt;
	bool total;		/* summed in the "Total" line */
	bool sys;		/* counted by the syscall hooks: "-" for a task
				 * whose syscalls nobody counted */
	bool ascending;		/* sorts smallest first */
	/* The value, one of: a __u64 of struct proc_io at `off` (when
	 * `field`), `value` (negative: unknown, shown as "-"), or `text`. */
	bool field;
	size_t off;
	double (*value)(const struct top_row *r);
	const char *(*text)(const struct top_row *r);
	const char *help;
};

extern const struct top_column top_cols[];
extern const int top_ncols;

/* Index of the column titled `title`, or -1. */
int top_col_find(const char *title);
/* Text of one cell, `accumulated` or as a rate over `secs`. */
void top_cell(char *buf, size_t len, const struct top_row *r, int col,
	      double secs, bool accumulated);
/* Order of two rows by column `col`, biggest first (then by id). */
int top_col_cmp(const struct top_row *x, const struct top_row *y, int col);

/* ---- collect.c: the frame from the task scan and the aggregation ---- */

struct top_collector;

/* Loads and attaches what top reads; NULL after printing one line. */
struct top_collector *top_collect_start(const char *cmd, struct top_opts *o);
/* Builds the next frame: 0 or -errno (fits top_tui_run()'s callback). */
int top_collect(struct top_frame *f, void *collector);
/* When the aggregation was last read: the time base of the frames. */
__u64 top_collect_read_ns(const struct top_collector *c);
void top_collect_stop(struct top_collector *c);

/* ---- batch.c ---- */

/* Frames as text (-b) or JSON lines (-j) until -n or Ctrl-C; exit code. */
int top_batch_run(struct top_opts *o, struct top_frame *f,
		  struct top_collector *c);

/* ---- top_tui.c ---- */

/* Interactive screen: returns the exit code.  `collect` builds the next
 * frame (0 or -errno). */
int top_tui_run(struct top_opts *o, struct top_frame *f,
		int (*collect)(struct top_frame *f, void *arg), void *arg);

#endif
