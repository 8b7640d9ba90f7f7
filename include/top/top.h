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
#include "lib/delayacct.h"
#include "lib/devices.h"
#include "lib/proctree.h"
#include "bpf/tasks.h"
#include "top/files.h"
#include "top/graph.h"
#include "top/proctable.h"

/* Below this many file bytes read in a frame a hit ratio says nothing. */
#define TOP_HIT_MIN_BYTES (64 * 1024)

/* What a row of the table is (--group, key g): a process (or thread), or
 * the processes of one user, cgroup or container summed. */
enum top_group {
	TOP_GROUP_PID, TOP_GROUP_USER, TOP_GROUP_CGROUP, TOP_GROUP_CONTAINER,
	TOP_GROUP_NR,
};

/* "pid", "user", "cgroup", "container": --group's words, JSON's. */
extern const char *const top_group_names[TOP_GROUP_NR];

/* Columns in the table: the most there are, and the chosen ones. */
#define TOP_MAX_COLS 32

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
	int sort;			/* index in top_cols; -1: DISK READ */
	bool reverse;
	int cols[TOP_MAX_COLS];		/* shown, in order; COMMAND last */
	int ncols;
	const char *columns;		/* --columns: keys, comma-separated */
	bool cols_given;		/* by --columns: toprc is not read */
	bool cmdline;			/* COMMAND: command lines, not names */
	bool tree_view;			/* rows as a tree of processes; in a
					 * group view, each group's processes
					 * under it */
	enum top_group group;
	bool files;			/* the files view (--files, key F) */
	__u64 stuck_ns;			/* a line for a request in flight
					 * this long; 0: none */
};

/* Runs top with these options until quit or -n frames; the exit code. */
int top_run(const struct top_opts *o);

struct top_group_ent;

/* One process or thread over the frame (or since start, accumulated), or
 * a group of them (g). */
struct top_row {
	struct proc_ent *e;
	const struct top_group_ent *g;	/* a group's row, else NULL */
	struct proc_io d;
	double hit;		/* file-read page-cache hit ratio; NaN: none */
	const char *user;
	int depth;		/* in the tree (o->tree), else 0 */
	const char *cmdline;	/* with o->cmdline, else NULL */
};

#define TOP_FAIL_STATUSES 4

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
	/* Requests that failed this frame, and by status the first few
	 * (of `nfail` statuses). */
	__u64 failed;
	struct { unsigned int status; __u64 n; } fail[TOP_FAIL_STATUSES];
	int nfail;
	double oldest_s;	/* the oldest request in flight (a lower
				 * bound); NaN: not known (a bio-based disk) */
	char stuck[256];	/* its line when stuck (agg_dev_stuck()), or "" */
	__u64 *hist;		/* total latency, this frame */
	const struct graph *graph;	/* bytes moved, the last minute */
};

/* Writes kernel threads submitted for a cgroup (writeback), this frame. */
struct top_wb {
	unsigned int hier;	/* 0 = cgroup2, else a v1 hierarchy */
	__u64 cgroup;
	__u64 ios, bytes;
	__u64 ns, timed;	/* their latency, as blk_ns and blk_timed */
};

/* A row of a group view. */
struct top_group_ent {
	char name[512];		/* the identity shown: user, cgroup path,
				 * container or unit (not sanitized) */
	struct proc_ent ent;	/* what the columns read: .id a hash of the
				 * name (the cursor's key), .flags those
				 * all its processes have */
	struct top_row row;
	int nprocs;
	uid_t uid;		/* of its processes, with one_user */
	bool one_user;
	unsigned int hier;	/* the cgroup: 0 = cgroup2 */
	__u64 cgroup;		/* the cgroup (of its first process), 0: none */
	__u64 wb_ios, wb_bytes;	/* writeback the kernel charged to it */
	int first, n;		/* its processes in top_frame.members */
};

struct top_frame {
	double secs;		/* length of the frame */
	double at;		/* its end, seconds since top started */
	enum delayacct_state delayacct;	/* IO> and SWAPIN are counted */
	int overcount;		/* rows whose waits the kernel overcounted */
	char when[32];		/* UTC */
	const char *source;	/* "iter/task" or "/proc" */
	struct top_dev *devs;
	int ndev;
	struct top_row *all;	/* every process (or thread) */
	int nall;
	struct top_row **rows;	/* of all: filtered and sorted */
	int nrows;
	struct proc_io total;	/* sum over rows */
	__u32 total_known;	/* IOLENS_TASK_* flags every row has */
	bool syscalls;		/* syscall-level counts known */
	__u64 sys_skipped;	/* runs of the syscall programs the kernel
				 * skipped in the frame (task_trace.h) */
	bool sys_skipped_known;	/* the kernel counts them (Linux 6.7) */
	bool exits_known;	/* threads' last records are read */
	__u64 exits_lost;	/* of them, lost in the frame: those
				 * threads' last moments are not counted */
	__u64 *sys_hist[IOLENS_SC_NR];	/* syscall latency, this frame */
	struct top_wb *wb;
	int nwb;
	struct top_wb *wb_all;	/* since start: the totals' */
	int nwb_all;
	size_t rows_cap;	/* of rows */
	/* In a group view: the groups, and the process rows each holds
	 * (sorted), a group's after another's. */
	struct top_group_ent *groups;
	int ngroups;
	size_t groups_cap;
	struct top_row **members;
	int nmembers;
	size_t members_cap;
	/* Where writeback goes to the root cgroup, not its owner: the line
	 * that says why; NULL where the kernel charges the owner. */
	const char *wb_note;
	/* With o->files: the frame's files, most bytes first, and what did
	 * not fit the table; nfiles TOP_FILES_FAILED where the tracer could
	 * not start, TOP_FILES_PARTIAL in the frame it started in. */
	struct top_file *files;
	int nfiles;
	struct top_file files_others;
	/* With -p, -u, -c or --cgroup: requests whose submitter could not
	 * be told (top_files_take()), in no file's row. */
	__u64 files_unjudged;
};

#define TOP_FILES_FAILED	(-1)
#define TOP_FILES_PARTIAL	(-2)

/* ---- frame.c ---- */

/* Allocates the frame's histograms; -ENOMEM. */
int top_frame_init(struct top_frame *f);
void top_frame_free(struct top_frame *f);

/* A device's name for the table: indented two spaces a level under the
 * stacked device it is part of.  Written to buf, which is returned. */
const char *top_dev_label(const struct top_dev *d, char *buf, size_t len);

/* Whether the filter key's text names a process: its pid, or a part of
 * its name. */
bool top_filter_names(__u32 pid, const char *comm, const char *filter);

/* Re-filters and re-sorts `f` after a change of o->sort, o->filter...,
 * and with o->tree_view puts children under their parent. */
void top_arrange(struct top_frame *f, const struct top_opts *o);

/* "blkio:/x" or "/x.slice", or the id when the cgroup is gone. */
void top_wb_name(char *buf, size_t len, const struct top_wb *w);

/* ---- rows.c ---- */

/* Sorts n rows by o->sort (and o->reverse). */
void top_rows_sort(struct top_row **rows, int n, const struct top_opts *o);

/* Room for n rows in f->rows: 0 or -ENOMEM. */
int top_rows_room(struct top_frame *f, size_t n);

/* Hit ratio of file reads: 1 - disk reads / file bytes read; NaN when
 * syscalls are not counted or too few bytes were read. */
double top_hit_ratio(const struct proc_io *d, bool syscalls);

/* The user name of `uid`, or its number. */
const char *top_user_name(uid_t uid);

/* ---- group.c ---- */

/* Makes f->rows the groups of the process rows in it (o->group), each
 * followed by its processes in the tree view; the writeback the kernel
 * charged to a cgroup moves from the flusher's group to that cgroup's. */
void top_group_rows(struct top_frame *f, const struct top_opts *o);

/* Names of enum iolens_sys_class in JSON and on screen. */
extern const char *const top_sc_names[IOLENS_SC_NR];

/* ---- columns.c: the process table's columns, one row each ---- */

enum top_fmt {
	TOP_NUM, TOP_TEXT, TOP_BYTES, TOP_COUNT,
	TOP_PCT,	/* a ratio, as a percentage */
	TOP_NS,		/* a time */
	TOP_SHARE,	/* ns waited: a share of the frame, or the total */
	TOP_GRAPH,	/* the last minute, drawn */
};

struct top_column {
	const char *key;	/* its name in --columns and toprc */
	const char *title;
	/* Its value's key in -j's objects; NULL: none (the graph) or one of
	 * the process's own (pid, user, comm). */
	const char *json;
	int width;		/* the least it takes; COMMAND, last, takes
				 * what the others leave */
	int prio;		/* 1 first: when the terminal is too narrow the
				 * columns of the largest prio go first */
	bool dflt;		/* shown unless the user chose otherwise */
	enum top_fmt fmt;
	bool total;		/* summed in the "Total" line */
	__u32 needs;		/* IOLENS_TASK_* flags a task needs for a
				 * value, else "-" (syscalls nobody counted,
				 * delays unknown) */
	bool ascending;		/* sorts smallest first */
	/* The value, one of: a __u64 of struct proc_io at `off` (when
	 * `field`), `value` (negative: unknown, shown as "-"), or `text`. */
	bool field;
	size_t off;
	double (*value)(const struct top_row *r);
	const char *(*text)(const struct top_row *r);
	const char *help;
	const char *group_title;	/* in a group view, if another */
};

extern const struct top_column top_cols[];
extern const int top_ncols;
/* The column every row ends with. */
extern const int top_col_command;

/* How cells are written: rates over a frame of `secs` ending at `at`, or
 * totals since start; a graph `width` points wide, of block characters
 * when `utf8`; with `fit`, a group's name longer than `width` is cut at
 * its start, where a cgroup path says least. */
struct top_cellfmt {
	double secs, at;
	bool accumulated;
	int width;
	bool utf8;
	bool fit;
};

/* The title of column c, in a group view (`grouped`) or not. */
const char *top_col_title(int c, bool grouped);
/* Index of the column titled `title`, or -1. */
int top_col_find(const char *title);
/* Index of the column named `key` (--columns), or -1. */
int top_col_by_key(const char *key);
/* The default set, in order, into cols[TOP_MAX_COLS]; their number. */
int top_cols_default(int *cols);
/* A comma-separated list of keys into cols[TOP_MAX_COLS], COMMAND added
 * last when missing: their number, or -1 with the first unknown name (or
 * a repeated one) copied to bad. */
int top_cols_parse(const char *list, int *cols, char *bad, size_t badlen);
/* "pid,user,..." of cols into buf. */
void top_cols_format(char *buf, size_t len, const int *cols, int n);
/* Text of one cell. */
void top_cell(char *buf, size_t len, const struct top_row *r, int col,
	      const struct top_cellfmt *cf);
/* Order of two rows by column `col`, biggest first (then by id). */
int top_col_cmp(const struct top_row *x, const struct top_row *y, int col);

/* ---- layout.c: which chosen columns fit a terminal ---- */

struct top_layout {
	int col[TOP_MAX_COLS];	/* shown, in order, COMMAND last */
	int width[TOP_MAX_COLS];
	int n;
	int hidden_left;	/* scrolled off to the left */
	int hidden_right;	/* that do not fit after them */
};

/* Of n things of width[i] (each with a space after it) ranked prio[i],
 * those of the smallest prio that fit in `room`, in take[i]: what is left
 * of room. */
int top_fit(const int *width, const int *prio, int n, int room, bool *take);

/* Lays the chosen columns `cols` (n of them, COMMAND last) out in `screen`
 * character cells with `skip` of the others scrolled off to the left:
 * of the rest, those of the smallest prio that fit, in their order, and
 * COMMAND in what is left. */
void top_layout(struct top_layout *l, const int *cols, int n, int screen,
		int skip);

/* ---- toprc.c: the chosen columns, kept between runs ---- */

/* $XDG_CONFIG_HOME/iolens/toprc, or ~/.config/iolens/toprc; NULL when
 * neither variable is set. */
const char *top_rc_path(char *buf, size_t len);
/* Reads the columns from toprc into o, if there is one: 0, or -1 after one
 * line on stderr (an unreadable or bad file, not a regular file or not
 * the home owner's: the defaults stay). */
int top_rc_load(struct top_opts *o);
/* Writes o's columns to toprc: 0 or -errno; -EPERM in another user's
 * home (sudo -E), where nothing is written. */
int top_rc_save(const struct top_opts *o);

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

/* The one line a frame needs when delay accounting is off, or NULL. */
const char *top_delay_note(const struct top_frame *f);

/* The line a frame has when syscalls were only half seen in it (struct
 * iolens_sys's unseen), into buf; NULL when none were. */
const char *top_unseen_note(const struct top_frame *f, char *buf, size_t len);

/* The line a frame has when exit records were lost in it, into buf; NULL
 * when none were. */
const char *top_exits_note(const struct top_frame *f, char *buf, size_t len);

/* The line a frame has when requests failed in it ("requests FAILED:
 * sdb 20 (IOERR 20)"), into buf; NULL when none did. */
const char *top_failed_note(const struct top_frame *f, char *buf, size_t len);

/* Frames as text (-b) or JSON lines (-j) until -n or Ctrl-C; exit code. */
int top_batch_run(struct top_opts *o, struct top_frame *f,
		  struct top_collector *c);

/* ---- top_tui.c ---- */

/* Interactive screen: returns the exit code.  `collect` builds the next
 * frame (0 or -errno). */
int top_tui_run(struct top_opts *o, struct top_frame *f,
		int (*collect)(struct top_frame *f, void *arg), void *arg);

#endif
