// SPDX-License-Identifier: GPL-2.0
/*
 * The screen of `iolens top`, drawn whole each time: title, the devices
 * with the last minute of each, totals, the process table laid out to the
 * terminal's width (top/layout.c), the histogram pane and the keys.  No
 * line is wider than the terminal, so nothing wraps at any size.
 */
#include <math.h>
#include <ncurses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/clock.h"
#include "lib/hist.h"
#include "lib/sanitize.h"
#include "lib/units.h"
#include "top/tui.h"

#define PANE_ROWS	8	/* latency histogram of the focused device */
#define BAR_MAX		40
#define MSG_NS		(4 * 1000000000ULL)
#define DEV_GRAPH_MIN	8	/* a device's history, if this much is left */

const int tui_panes[] = { -1, IOLENS_SC_FILE_READ, IOLENS_SC_FILE_WRITE,
			  IOLENS_SC_SYNC };
const int tui_npanes = sizeof(tui_panes) / sizeof(tui_panes[0]);

void tui_attr(int pair, bool on)
{
	int a = has_colors() && !getenv("NO_COLOR") ? COLOR_PAIR(pair) : A_REVERSE;

	if (on)
		attron(a);
	else
		attroff(a);
}

void tui_message(struct view *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->msg, sizeof(v->msg), fmt, ap);
	va_end(ap);
	v->msg_until = mono_ns() + MSG_NS;
}

/* Text at (y, x), at most to the right edge: nothing wraps. */
static void put(int y, int x, const char *s)
{
	if (x < COLS)
		mvaddnstr(y, x, s, COLS - x);
}

/* A line of its own, cleared to its end. */
static void line(int y, const char *s)
{
	move(y, 0);
	clrtoeol();
	put(y, 0, s);
}

/* A bar across the screen in `pair`: a header or the title. */
static void bar(int y, int pair)
{
	move(y, 0);
	clrtoeol();
	tui_attr(pair, true);
	for (int x = 0; x < COLS; x++)
		mvaddch(y, x, ' ');
	tui_attr(pair, false);
}

/* Text on a bar, in the bar's pair. */
static void bar_put(int y, int x, int pair, const char *s)
{
	tui_attr(pair, true);
	put(y, x, s);
	tui_attr(pair, false);
}

/* ---- devices ---- */

enum { D_NAME, D_RS, D_RKB, D_WS, D_WKB, D_AWAIT, D_QUEUE, D_DEVICE, D_P99,
       D_AQU, D_UTIL, D_NR };

/* The device table's columns: what fits by prio, the name always. */
static const struct {
	const char *title;
	int width, prio;
} devcols[D_NR] = {
	[D_NAME] = { "Device", 11, 0 }, [D_RS] = { "r/s", 8, 1 },
	[D_RKB] = { "rkB/s", 9, 3 }, [D_WS] = { "w/s", 8, 2 },
	[D_WKB] = { "wkB/s", 9, 4 }, [D_AWAIT] = { "await", 8, 5 },
	[D_QUEUE] = { "queue", 8, 8 }, [D_DEVICE] = { "device", 8, 9 },
	[D_P99] = { "p99", 8, 7 }, [D_AQU] = { "aqu-sz", 7, 10 },
	[D_UTIL] = { "%util", 6, 6 },
};

static void dev_cell(char *b, size_t n, const struct top_dev *d, int c, bool sel)
{
	char name[DEV_NAME_LEN + 8];

	switch (c) {
	case D_NAME:
		snprintf(b, n, "%c%s", sel ? '>' : ' ', top_dev_label(d, name, sizeof(name)));
		break;
	case D_RS: snprintf(b, n, "%.1f", d->r_s); break;
	case D_RKB: snprintf(b, n, "%.1f", d->rkb_s); break;
	case D_WS: snprintf(b, n, "%.1f", d->w_s); break;
	case D_WKB: snprintf(b, n, "%.1f", d->wkb_s); break;
	case D_AWAIT: case D_QUEUE: case D_DEVICE: {
		double ms = c == D_AWAIT ? d->await_ms : c == D_QUEUE ? d->queue_ms : d->device_ms;

		/* ms with three decimals, or "-" when nothing was timed. */
		snprintf(b, n, isnan(ms) ? "-" : "%.3f", ms);
		break;
	}
	case D_P99:
		if (d->p99_ns)
			fmt_ns(b, n, d->p99_ns);
		else
			snprintf(b, n, "-");
		break;
	case D_AQU: snprintf(b, n, "%.2f", d->aqu_sz); break;
	case D_UTIL: snprintf(b, n, "%.1f", d->util); break;
	}
}

static void draw_devices(const struct top_frame *f, const struct view *v, int *y,
			 int last)
{
	int width[D_NR], prio[D_NR], room, x, gw;
	bool take[D_NR];
	char cell[64], g[3 * GRAPH_SECS + 1];

	for (int c = 0; c < D_NR; c++) {
		width[c] = devcols[c].width;
		prio[c] = devcols[c].prio;
	}
	room = top_fit(width, prio, D_NR, COLS, take);
	/* The rest is the last minute, as much of it as fits. */
	gw = room - 1 >= DEV_GRAPH_MIN ? room - 1 : 0;
	gw = gw > GRAPH_SECS ? GRAPH_SECS : gw;
	bar(*y, CP_HEAD);
	x = 0;
	for (int c = 0; c < D_NR; c++) {
		if (!take[c])
			continue;
		snprintf(cell, sizeof(cell), c == D_NAME ? "%-*s" : "%*s", width[c],
			 devcols[c].title);
		bar_put(*y, x, CP_HEAD, cell);
		x += width[c] + 1;
	}
	if (gw)
		bar_put(*y, COLS - room, CP_HEAD, gw >= 20 ? "r+w, the last minute" : "last min");
	(*y)++;
	for (int i = 0; i < f->ndev && *y < last; i++, (*y)++) {
		const struct top_dev *d = &f->devs[i];

		move(*y, 0);
		clrtoeol();
		x = 0;
		for (int c = 0; c < D_NR; c++) {
			char fmt[16];

			if (!take[c])
				continue;
			dev_cell(cell, sizeof(cell), d, c, i == v->focus);
			snprintf(fmt, sizeof(fmt), c == D_NAME ? "%%-%d.%ds " : "%%%ds ",
				 width[c], width[c]);
			mvprintw(*y, x, fmt, cell);
			x += width[c] + 1;
		}
		if (gw) {
			/* gw characters, however many bytes. */
			graph_draw(g, sizeof(g), d->graph, f->at, gw, v->utf8);
			tui_attr(CP_BAR, true);
			mvaddstr(*y, COLS - room, g);
			tui_attr(CP_BAR, false);
		}
	}
}

/* ---- totals, writeback ---- */

static void draw_total(const struct top_frame *f, const struct top_opts *o, int y)
{
	struct proc_ent none = { .flags = f->total_known };
	struct top_row t = { .e = &none, .d = f->total, .user = "" };
	struct top_cellfmt cf = { .secs = f->secs, .at = f->at,
				  .accumulated = o->accumulated };
	char cell[64], item[96];
	int x;

	t.hit = NAN;
	snprintf(item, sizeof(item), "Total of %d %s:", f->ngroups ? f->ngroups : f->nrows,
		 f->ngroups ? "groups" : o->threads ? "threads" : "processes");
	line(y, item);
	x = strlen(item);
	/* No hit ratio: a total's says little and the line is short. */
	for (int c = 0; c < top_ncols; c++) {
		if (!top_cols[c].total || top_cols[c].fmt == TOP_PCT)
			continue;
		top_cell(cell, sizeof(cell), &t, c, &cf);
		snprintf(item, sizeof(item), " %s %s", top_cols[c].title, cell);
		if (x + (int)strlen(item) > COLS)
			break;
		put(y, x, item);
		x += strlen(item);
	}
}

static void draw_writeback(const struct top_frame *f, int y)
{
	char name[128], shown[256], rate[32], buf[512];
	size_t n = snprintf(buf, sizeof(buf), "Writeback charged to");

	for (int i = 0; i < f->nwb && n < sizeof(buf); i++) {
		top_wb_name(name, sizeof(name), &f->wb[i]);
		fmt_bytes(rate, sizeof(rate), f->wb[i].bytes / f->secs);
		n += snprintf(buf + n, sizeof(buf) - n, "%s %s %s/s", i ? "," : "",
			      san_text_buf(shown, sizeof(shown), name), rate);
	}
	line(y, buf);
}

/* ---- the process table ---- */

static void draw_table(const struct top_frame *f, const struct top_opts *o,
		       struct view *v, int y, int last)
{
	struct top_cellfmt cf = { .secs = f->secs, .at = f->at,
				  .accumulated = o->accumulated, .utf8 = v->utf8, .fit = true };
	struct top_layout l;
	char cell[512], fmt[16];
	int x = 0;

	top_layout(&l, o->cols, o->ncols, COLS, v->skip);
	v->hidden_right = l.hidden_right;
	bar(y, CP_HEAD);
	for (int i = 0; i < l.n; i++) {
		int pair = l.col[i] == o->sort ? CP_SORT : CP_HEAD;

		snprintf(cell, sizeof(cell), i == l.n - 1 ? "%-*s" : "%*s", l.width[i],
			 top_col_title(l.col[i], o->group != TOP_GROUP_PID));
		bar_put(y, x, pair, cell);
		x += l.width[i] + 1;
	}
	/* Columns out of view: "<" at the left, "+N>" at the right. */
	if (l.hidden_left)
		bar_put(y, 0, CP_HEAD, "<");
	if (l.hidden_right) {
		snprintf(cell, sizeof(cell), " +%d>", l.hidden_right);
		bar_put(y, COLS - (int)strlen(cell), CP_HEAD, cell);
	}
	y++;
	if (v->sel >= f->nrows)
		v->sel = f->nrows ? f->nrows - 1 : 0;
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + (last - y))
		v->top = v->sel - (last - y) + 1;
	if (v->top < 0)
		v->top = 0;
	for (int r = v->top; r < f->nrows && y < last; r++, y++) {
		move(y, 0);
		clrtoeol();
		x = 0;
		for (int i = 0; i < l.n; i++) {
			bool last_col = i == l.n - 1;

			cf.width = l.width[i];
			top_cell(cell, sizeof(cell), f->rows[r], l.col[i], &cf);
			if (last_col)
				snprintf(fmt, sizeof(fmt), "%%-%d.%ds", l.width[i], l.width[i]);
			else
				snprintf(fmt, sizeof(fmt), "%%%ds ", l.width[i]);
			/* A graph's width is in characters, not bytes. */
			if (top_cols[l.col[i]].fmt == TOP_GRAPH)
				snprintf(fmt, sizeof(fmt), "%%s%*s ",
					 l.width[i] - (cf.width < GRAPH_SECS ? cf.width : GRAPH_SECS), "");
			/* So is a name's (escaped by top_cell()): cut and
			 * padded by the columns it takes, never inside a
			 * character. */
			if (top_cols[l.col[i]].fmt == TOP_TEXT) {
				int w;

				int pad;

				cell[san_cols(cell, last_col ? l.width[i] : (int)sizeof(cell), &w)] = '\0';
				pad = w < l.width[i] ? l.width[i] - w : 0;
				if (last_col)
					mvprintw(y, x, "%s%*s", cell, pad, "");
				else
					mvprintw(y, x, "%*s%s ", pad, "", cell);
			} else {
				mvprintw(y, x, fmt, cell);
			}
			x += l.width[i] + 1;
		}
		/* The cursor's row, across the whole line. */
		if (r == v->sel) {
			bool color = has_colors() && !getenv("NO_COLOR");

			mvchgat(y, 0, -1, color ? A_NORMAL : A_REVERSE,
				color ? CP_SEL : 0, NULL);
		}
	}
	for (; y < last; y++) {
		move(y, 0);
		clrtoeol();
	}
}

/* The files view (key F): the frame's files, most bytes first, each line
 * cut to the terminal's width (its names escaped by top_files_row()). */
static void draw_files(const struct top_frame *f, const char *filter, int y, int last)
{
	char row[TOP_FILES_LINE];
	int w, shown = 0;

	bar(y, CP_HEAD);
	bar_put(y++, 0, CP_HEAD, top_files_header);
	if (f->nfiles == TOP_FILES_FAILED) {
		line(y++, "The block tracer could not start: no files (see iolens doctor).");
	} else if (f->nfiles == TOP_FILES_PARTIAL) {
		line(y++, "Files from the next frame: the block tracer attached in this one.");
	} else if (!f->nfiles) {
		line(y++, "No file had disk I/O in this frame.");
	}
	for (int i = 0; i < f->nfiles && y < last; i++) {
		if (!top_file_matches(&f->files[i], filter))
			continue;
		top_files_row(row, sizeof(row), &f->files[i], f->secs > 0 ? f->secs : 1);
		row[san_cols(row, COLS, &w)] = '\0';
		line(y++, row);
		shown++;
	}
	if (f->nfiles > 0 && !shown && y < last)
		line(y++, "No file of this frame matches the filter.");
	if (y < last && *top_files_unjudged(row, sizeof(row), f->files_unjudged))
		line(y++, row);
	for (; y < last; y++) {
		move(y, 0);
		clrtoeol();
	}
}

/* ---- the pane ---- */

/* A latency histogram of the frame as log2 rows with bars: the focused
 * device's requests, or a class of syscalls (key l). */
static void draw_pane(const struct top_frame *f, const struct view *v, int y)
{
	__u64 rows[64] = {}, max = 0, p50, p99;
	int first = 64, last = -1, n = 0, sc = tui_panes[v->pane];
	const __u64 *h = NULL;
	char lo[16], hi[16], what[64], buf[160];
	bool over;

	if (sc >= 0 && f->syscalls) {
		h = f->sys_hist[sc];
		snprintf(what, sizeof(what), "%s syscall latency (all tasks)",
			 top_sc_names[sc]);
	} else if (sc < 0 && f->ndev) {
		h = f->devs[v->focus].hist;
		snprintf(what, sizeof(what), "%s request latency (start to end)",
			 f->devs[v->focus].info.name);
	}
	for (n = 0; n < PANE_ROWS; n++) {
		move(y + n, 0);
		clrtoeol();
	}
	n = 0;
	if (!h) {
		put(y, 0, sc < 0 ? "(no disk has had requests yet)" :
		    "(no syscall counts: the task iterator did not load)");
		return;
	}
	for (__u32 i = 0; i < HIST_BUCKETS; i++) {
		__u64 lower = hist_lower(i);
		int r = lower ? (int)hist_msb(lower) : 0;

		if (!h[i] || r >= 64)
			continue;
		rows[r] += h[i];
		first = r < first ? r : first;
		last = r > last ? r : last;
	}
	if (last < 0 || !hist_percentile(h, 50, &p50, &over) ||
	    !hist_percentile(h, 99, &p99, &over)) {
		snprintf(buf, sizeof(buf), "%s: none in this frame", what);
		put(y, 0, buf);
		return;
	}
	fmt_ns(lo, sizeof(lo), p50);
	fmt_ns(hi, sizeof(hi), p99);
	snprintf(buf, sizeof(buf), "%s: p50 %s  p99 %s   (l: next histogram)", what, lo, hi);
	put(y, 0, buf);
	/* The busiest rows that fit, around the peak. */
	for (int r = first; r <= last; r++)
		max = rows[r] > max ? rows[r] : max;
	while (last - first + 1 > PANE_ROWS - 1)
		rows[first] <= rows[last] ? first++ : last--;
	for (int r = first; r <= last; r++, n++) {
		int w = max ? (int)((rows[r] * BAR_MAX + max - 1) / max) : 0;
		char bar[BAR_MAX + 1];

		fmt_ns(lo, sizeof(lo), 1ULL << r);
		fmt_ns(hi, sizeof(hi), 2ULL << r);
		snprintf(buf, sizeof(buf), "%8s - %-8s %9llu ", lo, hi,
			 (unsigned long long)rows[r]);
		put(y + 1 + n, 0, buf);
		memset(bar, '*', w);
		bar[w] = '\0';
		tui_attr(CP_BAR, true);
		put(y + 1 + n, strlen(buf), bar);
		tui_attr(CP_BAR, false);
	}
}

/* ---- help, bottom line ---- */

static void draw_help(const struct tui_key *keys, int nkeys)
{
	char buf[256];
	int y = 1;

	erase();
	put(y++, 2, "iolens top: keys");
	for (int i = 0; i < nkeys && y < LINES - 1; i++) {
		snprintf(buf, sizeof(buf), "  %-18s %s", keys[i].name, keys[i].what);
		put(y++, 2, buf);
	}
	if (y < LINES - 1)
		put(y++, 2, "");
	put(y++, 2, "columns (chooser: C)");
	for (int c = 0; c < top_ncols && y < LINES - 1; c++) {
		const char *h = top_cols[c].help, *nl = strchr(h, '\n');

		snprintf(buf, sizeof(buf), "  %-10s %.*s", top_cols[c].title,
			 nl ? (int)(nl - h) : (int)strlen(h), h);
		put(y++, 2, buf);
	}
	put(LINES - 1, 2, "any key to go back");
}

static void draw_bottom(struct view *v, const struct tui_key *keys, int nkeys)
{
	char buf[512];
	size_t n = 0;

	if (v->msg[0] && mono_ns() < v->msg_until) {
		line(LINES - 1, v->msg);
		return;
	}
	v->msg[0] = '\0';
	for (int i = 0; i < nkeys && n < sizeof(buf); i++)
		if (keys[i].hint)
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s %s", n ? "  " : "",
				      keys[i].name, keys[i].hint);
	line(LINES - 1, buf);
}

void tui_draw(const struct top_frame *f, const struct top_opts *o,
	      struct view *v, const struct tui_key *keys, int nkeys)
{
	int y = 0, pane = LINES >= 24 ? PANE_ROWS : 0, bottom = LINES - 1 - pane;
	char when[16], title[256], by[32] = "";
	const char *note = top_delay_note(f);
	char failed[512];
	time_t t = time(NULL);

	if (v->help) {
		draw_help(keys, nkeys);
		refresh();
		return;
	}
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	if (o->group != TOP_GROUP_PID)
		snprintf(by, sizeof(by), "by %s  ", top_group_names[o->group]);
	snprintf(title, sizeof(title), "iolens top  %s  %s%s  %s%s%s  %s%s%s%s%s", when,
		 o->accumulated && !o->files ? "totals since start" : "rates per second",
		 v->frozen ? " (frozen)" : "", o->files ? "files by bytes" : "sort ",
		 o->files ? "" : top_col_title(o->sort, o->group != TOP_GROUP_PID),
		 o->reverse ? " (reversed)" : "", by, o->tree_view ? "tree  " : "",
		 o->only_active ? "only active  " : "", *v->filter ? "filter: " : "",
		 v->filter);
	bar(y, CP_TITLE);
	bar_put(y++, 0, CP_TITLE, title);
	/* A failing disk is the first thing to see: in the title's colours. */
	if (top_failed_note(f, failed, sizeof(failed))) {
		bar(y, CP_TITLE);
		bar_put(y++, 0, CP_TITLE, failed);
	}
	for (int i = 0; i < f->ndev; i++) {
		if (!f->devs[i].stuck[0])
			continue;
		bar(y, CP_TITLE);
		bar_put(y++, 0, CP_TITLE, f->devs[i].stuck);
	}
	if (note && f->delayacct != DELAYACCT_OFF)
		line(y++, COLS >= (int)strlen(note) ? note :
		     "IO> SWAPIN: - where the kernel counted waits longer than a life");
	else if (note)
		line(y++, COLS >= 112 ?
		     "IO> SWAPIN: delay accounting is off (kernel.task_delayacct=0): "
		     "D turns it on, or sysctl kernel.task_delayacct=1" :
		     "IO> SWAPIN: delay accounting is off; D or sysctl kernel.task_delayacct=1");
	if (top_unseen_note(f, failed, sizeof(failed)))
		line(y++, failed);
	if (top_exits_note(f, failed, sizeof(failed)))
		line(y++, failed);
	if (f->wb_note)
		line(y++, f->wb_note);
	draw_devices(f, v, &y, bottom - 3);
	draw_total(f, o, y++);
	if (f->nwb)
		draw_writeback(f, y++);
	if (o->files)
		draw_files(f, v->filter, y, bottom);
	else
		draw_table(f, o, v, y, bottom);
	if (pane)
		draw_pane(f, v, bottom);
	draw_bottom(v, keys, nkeys);
	refresh();
}
