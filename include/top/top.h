/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `iolens top`: a frame (devices, processes, totals) built by cmd_top.c
 * from the task scan and the aggregation core, shown by it in batch and
 * JSON and by top_tui.c on the terminal.
 */
#ifndef IOLENS_TOP_H
#define IOLENS_TOP_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "lib/devices.h"
#include "bpf/tasks.h"
#include "top/proctable.h"

/* Below this many file bytes read in a frame a hit ratio says nothing. */
#define TOP_HIT_MIN_BYTES (64 * 1024)

struct top_opts {
	bool batch, json, threads, only_active, accumulated;
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
	int sort;			/* enum top_col */
	bool reverse;
};

enum top_col {
	TC_PID, TC_USER, TC_READ, TC_WRITE, TC_FREAD, TC_HIT, TC_RCHAR,
	TC_WCHAR, TC_SYSCR, TC_SYSCW, TC_FSYNC, TC_BLK_IOS, TC_BLK_LAT,
	TC_RMW, TC_MISALIGN, TC_COMM, TC_NR,
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
	double aqu_sz, util;
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

/* "blkio:/x" or "/x.slice", or the id when the cgroup is gone. */
void top_wb_name(char *buf, size_t len, const struct top_wb *w);

/* Names of enum iolens_sys_class in JSON and on screen. */
extern const char *const top_sc_names[IOLENS_SC_NR];

/* Column titles, for the table and the sort-key display. */
const char *top_col_title(int col);
/* Text of one cell, `accumulated` or as a rate over `secs`. */
void top_cell(char *buf, size_t len, const struct top_row *r, int col,
	      double secs, bool accumulated);
int top_col_width(int col);
/* Re-filters and re-sorts `f` after a change of o->sort, o->filter... */
void top_arrange(struct top_frame *f, const struct top_opts *o);

/* Interactive screen: returns the exit code.  `collect` builds the next
 * frame (0 or -errno). */
int top_tui_run(struct top_opts *o, struct top_frame *f,
		int (*collect)(struct top_frame *f, void *arg), void *arg);

#endif
