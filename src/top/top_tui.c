// SPDX-License-Identifier: GPL-2.0
/*
 * The terminal of `iolens top`: this file alone owns it.  The terminal is
 * restored however the program ends: q, SIGINT/SIGTERM, an error, or a
 * crash (the fatal-signal handler ends curses before dying).
 */
#include <math.h>
#include <ncurses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/clock.h"
#include "lib/hist.h"
#include "lib/stop.h"
#include "top/top.h"
#include "lib/units.h"

#define PANE_ROWS 8	/* latency histogram of the focused device */
#define BAR_MAX 40

enum { CP_TITLE = 1, CP_HEAD, CP_SORT, CP_BAR };

static bool curses_on;

static void tui_end(void)
{
	if (curses_on) {
		curses_on = false;
		endwin();
	}
}

static void on_fatal(int sig)
{
	tui_end();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void tui_begin(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa = { .sa_handler = on_fatal };

	initscr();
	curses_on = true;
	atexit(tui_end);
	stop_catch();
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	/* https://no-color.org: any value turns colors off. */
	if (has_colors() && !getenv("NO_COLOR")) {
		start_color();
		use_default_colors();
		init_pair(CP_TITLE, COLOR_BLACK, COLOR_CYAN);
		init_pair(CP_HEAD, COLOR_BLACK, COLOR_GREEN);
		init_pair(CP_SORT, COLOR_BLACK, COLOR_YELLOW);
		init_pair(CP_BAR, COLOR_CYAN, -1);
	}
}

static void attr(int pair, bool on)
{
	int a = has_colors() && !getenv("NO_COLOR") ? COLOR_PAIR(pair) : A_REVERSE;

	if (on)
		attron(a);
	else
		attroff(a);
}

/* What the pane shows: the focused device, or a syscall class. */
static const int pane_sc[] = { -1, IOLENS_SC_FILE_READ, IOLENS_SC_FILE_WRITE,
			       IOLENS_SC_SYNC };
#define NPANES (int)(sizeof(pane_sc) / sizeof(pane_sc[0]))

struct view {
	int focus;		/* device index */
	int pane;		/* index into pane_sc */
	int top;		/* first row shown */
	bool frozen, help;
	char filter[64];
};

static void draw_devices(const struct top_frame *f, const struct view *v,
			 int *y)
{
	attr(CP_HEAD, true);
	mvprintw((*y)++, 0, "%-11s %9s %9s %9s %9s %8s %8s %8s %8s %7s %6s", "Device",
		 "r/s", "rkB/s", "w/s", "wkB/s", "await", "queue", "device", "p99",
		 "aqu-sz", "%util");
	clrtoeol();
	attr(CP_HEAD, false);
	for (int i = 0; i < f->ndev && *y < LINES - 4; i++) {
		const struct top_dev *d = &f->devs[i];
		double ms[3] = { d->await_ms, d->queue_ms, d->device_ms };
		char t[3][16], p99[16] = "-", name[DEV_NAME_LEN + 8];

		/* ms with three decimals, or "-" when nothing was timed. */
		for (int k = 0; k < 3; k++)
			snprintf(t[k], sizeof(t[k]), isnan(ms[k]) ? "-" : "%.3f", ms[k]);
		if (d->p99_ns)
			fmt_ns(p99, sizeof(p99), d->p99_ns);
		mvprintw((*y)++, 0, "%c%-10s %9.1f %9.1f %9.1f %9.1f %8s %8s %8s %8s %7.2f %6.1f",
			 i == v->focus ? '>' : ' ', top_dev_label(d, name, sizeof(name)), d->r_s, d->rkb_s,
			 d->w_s, d->wkb_s, t[0], t[1], t[2], p99, d->aqu_sz, d->util);
		clrtoeol();
	}
}

static void draw_total(const struct top_frame *f, const struct top_opts *o,
		       int y)
{
	struct proc_ent none = { .flags = f->syscalls ? IOLENS_TASK_SYS : 0 };
	struct top_row t = { .e = &none, .d = f->total, .user = "" };
	char cell[32];
	int x;

	t.hit = NAN;
	mvprintw(y, 0, "Total of %d %s:", f->nrows, o->threads ? "threads" : "processes");
	/* No hit ratio: a total's says little and the line is short. */
	for (int c = 0; c < top_ncols; c++) {
		if (!top_cols[c].total || top_cols[c].fmt == TOP_PCT)
			continue;
		top_cell(cell, sizeof(cell), &t, c, f->secs, o->accumulated);
		getyx(stdscr, y, x);
		if (x + (int)strlen(top_cols[c].title) + (int)strlen(cell) + 3 >= COLS)
			break;
		printw(" %s %s", top_cols[c].title, cell);
	}
	clrtoeol();
}

static void draw_table(const struct top_frame *f, const struct top_opts *o,
		       struct view *v, int y, int last)
{
	char cell[64];
	int x = 0;

	move(y, 0);
	attr(CP_HEAD, true);
	for (int c = 0; c < top_ncols; c++) {
		if (c == o->sort) {
			attr(CP_HEAD, false);
			attr(CP_SORT, true);
		}
		printw(c == top_ncols - 1 ? "%-*s" : "%*s", top_cols[c].width,
		       top_cols[c].title);
		if (c == o->sort) {
			attr(CP_SORT, false);
			attr(CP_HEAD, true);
		}
		printw(" ");
	}
	getyx(stdscr, y, x);
	for (; x < COLS; x++)
		addch(' ');
	attr(CP_HEAD, false);
	y++;
	if (v->top > f->nrows - 1)
		v->top = f->nrows > 0 ? f->nrows - 1 : 0;
	for (int i = v->top; i < f->nrows && y < last; i++, y++) {
		move(y, 0);
		for (int c = 0; c < top_ncols; c++) {
			top_cell(cell, sizeof(cell), f->rows[i], c, f->secs, o->accumulated);
			printw(c == top_ncols - 1 ? "%-*s " : "%*s ", top_cols[c].width, cell);
		}
		clrtoeol();
	}
	for (; y < last; y++) {
		move(y, 0);
		clrtoeol();
	}
}

/* A latency histogram of the frame as log2 rows with bars: the focused
 * device's requests, or a class of syscalls (key l). */
static void draw_pane(const struct top_frame *f, const struct view *v, int y)
{
	__u64 rows[64] = {}, max = 0, p50, p99;
	int first = 64, last = -1, n = 0, sc = pane_sc[v->pane];
	const __u64 *h = NULL;
	char lo[16], hi[16], what[64];
	bool over;

	move(y, 0);
	clrtoeol();
	if (sc >= 0 && f->syscalls) {
		h = f->sys_hist[sc];
		snprintf(what, sizeof(what), "%s syscall latency (all tasks)",
			 top_sc_names[sc]);
	} else if (sc < 0 && f->ndev) {
		h = f->devs[v->focus].hist;
		snprintf(what, sizeof(what), "%s request latency (start to end)",
			 f->devs[v->focus].info.name);
	}
	for (n = 1; n < PANE_ROWS; n++) {
		move(y + n, 0);
		clrtoeol();
	}
	n = 0;
	move(y, 0);
	if (!h) {
		printw(sc < 0 ? "(no disk has had requests yet)" :
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
		printw("%s: none in this frame", what);
		return;
	}
	fmt_ns(lo, sizeof(lo), p50);
	fmt_ns(hi, sizeof(hi), p99);
	printw("%s: p50 %s  p99 %s   (l: next histogram)", what, lo, hi);
	/* The busiest rows that fit, around the peak. */
	for (int r = first; r <= last; r++)
		max = rows[r] > max ? rows[r] : max;
	while (last - first + 1 > PANE_ROWS - 1)
		rows[first] <= rows[last] ? first++ : last--;
	for (int r = first; r <= last; r++, n++) {
		int w = max ? (int)((rows[r] * BAR_MAX + max - 1) / max) : 0;

		fmt_ns(lo, sizeof(lo), 1ULL << r);
		fmt_ns(hi, sizeof(hi), 2ULL << r);
		mvprintw(y + 1 + n, 0, "%8s - %-8s %9llu ", lo, hi,
			 (unsigned long long)rows[r]);
		attr(CP_BAR, true);
		for (int k = 0; k < w; k++)
			addch('*');
		attr(CP_BAR, false);
	}
}

static void draw_help(void)
{
	static const char *const lines[] = {
		"iolens top keys",
		"",
		"  < > or left/right   sort by the previous/next column",
		"  r                   reverse the sort",
		"  o                   only processes with I/O in the frame",
		"  p                   processes / threads",
		"  a                   rates / totals since start",
		"  f or /              filter by pid, name or user (empty: none)",
		"  d                   next device for the histogram pane",
		"  l                   pane: device latency, file read, file write,",
		"                      fsync syscall latency",
		"  space               freeze / resume",
		"  up/down, pgup/pgdn  scroll",
		"  h or ?              this help",
		"  q                   quit",
		"",
		"DISK READ/WRITE: bytes the task made the disk move (/proc/PID/io",
		"read_bytes, write_bytes); FILE READ: bytes read from files by",
		"syscalls; HIT%: file reads served by the page cache; RCHAR/WCHAR,",
		"SYSCR/SYSCW: all read/write syscalls; BLK IO/LAT: block requests",
		"the process submitted and their average latency; RMW: data reads",
		"its writes to files made (read-modify-write of a page not in the",
		"cache); MISALIGN: its writes not aligned to the physical block.",
		"",
		"any key to go back",
	};
	int y = 2;

	erase();
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]) && y < LINES; i++)
		mvprintw(y++, 2, "%s", lines[i]);
}

static void draw(const struct top_frame *f, const struct top_opts *o,
		 struct view *v)
{
	int y = 0, pane = LINES >= 24 ? PANE_ROWS : 0, bottom = LINES - 1 - pane;
	char when[16];
	time_t t = time(NULL);

	if (v->help) {
		draw_help();
		refresh();
		return;
	}
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	attr(CP_TITLE, true);
	mvprintw(y++, 0, "iolens top  %s  %s%s  sort %s%s  %s%s%s", when,
		 o->accumulated ? "totals since start" : "rates per second",
		 v->frozen ? " (frozen)" : "", top_cols[o->sort].title,
		 o->reverse ? " (reversed)" : "", o->only_active ? "only active  " : "",
		 *v->filter ? "filter: " : "", v->filter);
	clrtoeol();
	attr(CP_TITLE, false);
	draw_devices(f, v, &y);
	draw_total(f, o, y++);
	if (f->nwb) {
		char name[128], rate[32];

		move(y++, 0);
		printw("Writeback charged to");
		for (int i = 0; i < f->nwb; i++) {
			top_wb_name(name, sizeof(name), &f->wb[i]);
			fmt_bytes(rate, sizeof(rate), f->wb[i].bytes / f->secs);
			printw("%s %s %s/s", i ? "," : "", name, rate);
		}
		clrtoeol();
	}
	draw_table(f, o, v, y, bottom);
	if (pane)
		draw_pane(f, v, bottom);
	mvprintw(LINES - 1, 0, "h help  q quit  </> sort  r reverse  o active  p threads  a totals  f filter  d device  l pane  space freeze");
	clrtoeol();
	refresh();
}

/* Reads a filter at the bottom line; Esc cancels. */
static void read_filter(struct view *v)
{
	char buf[sizeof(v->filter)] = "";
	size_t n = 0;
	int ch;

	timeout(-1);
	curs_set(1);
	for (;;) {
		mvprintw(LINES - 1, 0, "filter (pid, name or user): %s", buf);
		clrtoeol();
		refresh();
		ch = getch();
		if (ch == '\n' || ch == KEY_ENTER) {
			memcpy(v->filter, buf, sizeof(buf));
			break;
		}
		if (ch == 27 || stop_requested())
			break;
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
			buf[--n] = 0;
		else if (ch >= 32 && ch < 127 && n < sizeof(buf) - 1)
			buf[n++] = ch, buf[n] = 0;
	}
	curs_set(0);
}

int top_tui_run(struct top_opts *o, struct top_frame *f,
		int (*collect)(struct top_frame *f, void *arg), void *arg)
{
	struct view v = {};
	__u64 next = mono_ns();
	int err = 0, ch;

	tui_begin();
	o->filter = v.filter;
	next += o->delay_ns;
	while (!stop_requested()) {
		__u64 now = mono_ns();

		if (now >= next) {
			next += o->delay_ns;
			if (next <= now)	/* we fell behind: no catching up */
				next = now + o->delay_ns;
			if (!v.frozen) {
				err = collect(f, arg);
				if (err)
					break;
				if (v.focus >= f->ndev)
					v.focus = 0;
			}
		}
		draw(f, o, &v);
		timeout((int)((next - now) / 1000000) + 1);
		ch = getch();
		if (ch == ERR)
			continue;
		if (v.help) {
			v.help = false;
			continue;
		}
		switch (ch) {
		case 'q': case 'Q':
			stop_request();
			break;
		case '<': case KEY_LEFT:
			o->sort = (o->sort + top_ncols - 1) % top_ncols;
			break;
		case '>': case KEY_RIGHT:
			o->sort = (o->sort + 1) % top_ncols;
			break;
		case 'r': o->reverse = !o->reverse; break;
		case 'o': o->only_active = !o->only_active; break;
		case 'a': o->accumulated = !o->accumulated; break;
		case 'p':
			o->threads = !o->threads;
			next = now;	/* a new table: collect now */
			break;
		case 'f': case '/':
			read_filter(&v);
			break;
		case 'd':
			if (f->ndev)
				v.focus = (v.focus + 1) % f->ndev;
			break;
		case 'l': v.pane = (v.pane + 1) % NPANES; break;
		case ' ': v.frozen = !v.frozen; break;
		case 'h': case '?': v.help = true; break;
		case KEY_UP: v.top -= v.top > 0; break;
		case KEY_DOWN: v.top++; break;
		case KEY_PPAGE: v.top = v.top > LINES / 2 ? v.top - LINES / 2 : 0; break;
		case KEY_NPAGE: v.top += LINES / 2; break;
		case KEY_RESIZE: clear(); break;
		}
		top_arrange(f, o);
	}
	tui_end();
	if (err) {
		fprintf(stderr, "iolens top: reading the task and block counters: %s\n",
			strerror(-err));
		return 1;
	}
	return 0;
}
