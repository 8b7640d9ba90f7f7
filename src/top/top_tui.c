// SPDX-License-Identifier: GPL-2.0
/*
 * The terminal of `iolens top`: this file owns it, and the keys.  The
 * terminal is restored however the program ends: q, SIGINT/SIGTERM, an
 * error, or a crash (the fatal-signal handler ends curses before dying).
 * The keys are a table, as htop's: a key is a row with its help.
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <ncurses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/clock.h"
#include "lib/delayacct.h"
#include "lib/sanitize.h"
#include "lib/stop.h"
#include "top/actions.h"
#include "top/tui.h"

struct tui {
	struct top_opts *o;
	struct top_frame *f;
	struct view v;
	bool collect_now;	/* the table changed: a frame at once */
};

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

static void tui_begin(struct view *v)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa = { .sa_handler = on_fatal };

	/* The locale's character set: block characters in graphs where it
	 * is UTF-8, ASCII elsewhere. */
	setlocale(LC_CTYPE, "");
	v->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
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
		init_pair(CP_SEL, COLOR_BLACK, COLOR_WHITE);
	}
}

/* The row under the cursor, or NULL (with a message) when there is none. */
static const struct top_row *selected(struct tui *t)
{
	/* The files view shows no process: none is acted on unseen. */
	if (t->o->files) {
		tui_message(&t->v, "the files view: F goes back to the processes");
		return NULL;
	}
	if (t->v.sel < t->f->nrows)
		return t->f->rows[t->v.sel];
	tui_message(&t->v, "no process under the cursor");
	return NULL;
}

/* The process under the cursor: not a group, whose processes may be
 * anyone's. */
static const struct top_row *selected_process(struct tui *t)
{
	const struct top_row *r = selected(t);

	if (r && r->g) {
		tui_message(&t->v, "a group, not a process: t lists its processes");
		return NULL;
	}
	return r;
}

/* ---- what the keys do ---- */

static void key_quit(struct tui *t) { (void)t; stop_request(); }

static void key_sort_prev(struct tui *t)
{
	int i = 0;

	/* Through the chosen columns, in their order. */
	while (i < t->o->ncols && t->o->cols[i] != t->o->sort)
		i++;
	t->o->sort = t->o->cols[(i + t->o->ncols - 1) % t->o->ncols];
}

static void key_sort_next(struct tui *t)
{
	int i = 0;

	while (i < t->o->ncols && t->o->cols[i] != t->o->sort)
		i++;
	t->o->sort = t->o->cols[i >= t->o->ncols ? 0 : (i + 1) % t->o->ncols];
}

static void key_scroll_left(struct tui *t) { t->v.skip -= t->v.skip > 0; }
static void key_scroll_right(struct tui *t) { t->v.skip += t->v.hidden_right > 0; }
static void key_reverse(struct tui *t) { t->o->reverse = !t->o->reverse; }
static void key_only_active(struct tui *t) { t->o->only_active = !t->o->only_active; }
static void key_totals(struct tui *t) { t->o->accumulated = !t->o->accumulated; }
static void key_cmdline(struct tui *t) { t->o->cmdline = !t->o->cmdline; }
static void key_tree(struct tui *t) { t->o->tree_view = !t->o->tree_view; }
static void key_group(struct tui *t) { t->o->group = (t->o->group + 1) % TOP_GROUP_NR; }
static void key_files(struct tui *t) { t->o->files = !t->o->files; }
static void key_freeze(struct tui *t) { t->v.frozen = !t->v.frozen; }
static void key_help(struct tui *t) { t->v.help = true; }
static void key_next_pane(struct tui *t) { t->v.pane = (t->v.pane + 1) % tui_npanes; }

static void key_threads(struct tui *t)
{
	t->o->threads = !t->o->threads;
	t->collect_now = true;	/* a new table */
}

static void key_filter(struct tui *t)
{
	tui_read_line(t->o->files ? "filter (pid, name or path): " :
		      "filter (pid, name or user): ", t->v.filter, sizeof(t->v.filter));
}

static void key_next_dev(struct tui *t)
{
	if (t->f->ndev)
		t->v.focus = (t->v.focus + 1) % t->f->ndev;
}

static void key_up(struct tui *t) { t->v.sel -= t->v.sel > 0; }
static void key_down(struct tui *t) { t->v.sel += t->v.sel < t->f->nrows - 1; }

static void key_page_up(struct tui *t)
{
	t->v.sel = t->v.sel > LINES / 2 ? t->v.sel - LINES / 2 : 0;
}

static void key_page_down(struct tui *t)
{
	t->v.sel += LINES / 2;
	if (t->v.sel >= t->f->nrows)
		t->v.sel = t->f->nrows ? t->f->nrows - 1 : 0;
}

static void key_columns(struct tui *t)
{
	char path[4096];
	int err;

	if (!tui_choose_columns(t->o))
		return;
	t->v.skip = 0;
	err = top_rc_save(t->o);
	if (err == -EPERM)
		tui_message(&t->v, "columns not kept: %s is in another user's home (sudo -E?), not written as you",
			    top_rc_path(path, sizeof(path)));
	else if (err)
		tui_message(&t->v, "columns not kept: %s: %s",
			    top_rc_path(path, sizeof(path)) ?: "no HOME", strerror(-err));
	else
		tui_message(&t->v, "columns kept in %s", top_rc_path(path, sizeof(path)));
}

static void key_delays_on(struct tui *t)
{
	int err = delayacct_enable();

	if (err)
		tui_message(&t->v, "cannot turn delay accounting on (%s): %s%s", DELAYACCT_SYSCTL,
			    strerror(-err), err == -EACCES || err == -EPERM ? "; root can" : "");
	else
		tui_message(&t->v, "delay accounting on: IO> and SWAPIN count from now");
}

static void key_ioprio(struct tui *t)
{
	const struct top_row *r = selected_process(t);
	char q[160], ans[32] = "", name[SAN_TEXT_MAX(IOLENS_COMM_LEN) + 1];
	int class, level, err;

	if (!r)
		return;
	snprintf(q, sizeof(q), "I/O priority of %s %u (%s): be/0-7, rt/0-7, idle, none: ",
		 t->o->threads ? "thread" : "process", r->e->id,
		 san_text_buf(name, sizeof(name), r->e->comm));
	if (!tui_read_line(q, ans, sizeof(ans)) || !*ans)
		return;
	if (top_ioprio_parse(ans, &class, &level)) {
		tui_message(&t->v, "'%s' is no I/O priority: be/4, rt/0, idle or none", ans);
		return;
	}
	err = top_ioprio_set(r->e->id, !t->o->threads, class, level);
	if (err)
		tui_message(&t->v, "ioprio_set %u: %s", r->e->id, strerror(-err));
	else
		tui_message(&t->v, "I/O priority of %u is now %s", r->e->id, ans);
}

static void key_send_signal(struct tui *t)
{
	const struct top_row *r = selected_process(t);
	char q[160], ans[32] = "TERM", name[SAN_TEXT_MAX(IOLENS_COMM_LEN) + 1];
	__u32 pid;
	int sig;

	if (!r)
		return;
	pid = r->e->id;
	san_text_buf(name, sizeof(name), r->e->comm);
	snprintf(q, sizeof(q), "signal to send to %u (%s): ", pid, name);
	if (!tui_read_line(q, ans, sizeof(ans)) || !*ans)
		return;
	sig = top_signal_parse(ans);
	if (sig < 0) {
		tui_message(&t->v, "'%s' is no signal: a number or a name (TERM, KILL, HUP)", ans);
		return;
	}
	snprintf(q, sizeof(q), "send SIG%s to %u (%s)?", sigabbrev_np(sig) ?: "?", pid,
		 name);
	if (!tui_confirm(q))
		return;
	if (kill(pid, sig))
		tui_message(&t->v, "kill %u: %s", pid, strerror(errno));
	else
		tui_message(&t->v, "sent SIG%s to %u", sigabbrev_np(sig) ?: "?", pid);
}

static const struct tui_key keys[] = {
	{ 'h', '?', "h ?", "help", "this help", key_help },
	{ 'q', 'Q', "q", "quit", "quit", key_quit },
	{ '<', 0, "< >", "sort", "sort by the previous / next column", key_sort_prev },
	{ '>', 0, NULL, NULL, NULL, key_sort_next },
	{ 'r', 0, "r", NULL, "reverse the sort", key_reverse },
	{ KEY_LEFT, 0, "left right", "scroll", "show the columns to the left / right", key_scroll_left },
	{ KEY_RIGHT, 0, NULL, NULL, NULL, key_scroll_right },
	{ 'C', KEY_F(2), "C F2", "columns", "choose the columns and their order (kept)", key_columns },
	{ 'o', 0, "o", NULL, "only processes with I/O in the frame", key_only_active },
	{ 'p', 0, "p", NULL, "processes / threads", key_threads },
	{ 'a', 0, "a", NULL, "rates / totals since start", key_totals },
	{ 'c', 0, "c", NULL, "COMMAND: names / command lines", key_cmdline },
	{ 't', 0, "t", "tree", "a tree of processes (of each group's)", key_tree },
	{ 'g', 0, "g", "group", "rows per process, user, cgroup, container", key_group },
	{ 'F', 0, "F", "files", "files with the most disk I/O / processes (traces requests)", key_files },
	{ 'f', '/', "f /", "filter", "filter: pid, name or user (files: pid, name or path)", key_filter },
	{ 'i', 0, "i", "ioprio", "set the I/O priority of the process at the cursor", key_ioprio },
	{ 'k', 0, "k", NULL, "send a signal to the process at the cursor (asks first)", key_send_signal },
	{ 'D', 0, "D", NULL, "turn delay accounting on (IO>, SWAPIN; root)", key_delays_on },
	{ 'd', 0, "d", NULL, "next device for the histogram pane", key_next_dev },
	{ 'l', 0, "l", NULL, "pane: device latency, file read, file write, fsync", key_next_pane },
	{ ' ', 0, "space", NULL, "freeze / resume", key_freeze },
	{ KEY_UP, 0, "up down", NULL, "move the cursor", key_up },
	{ KEY_DOWN, 0, NULL, NULL, NULL, key_down },
	{ KEY_PPAGE, 0, "pgup pgdn", NULL, "move the cursor a page", key_page_up },
	{ KEY_NPAGE, 0, NULL, NULL, NULL, key_page_down },
};

#define NKEYS (int)(sizeof(keys) / sizeof(keys[0]))

/* The rows of keys the help lists (those with a text). */
static const struct tui_key *help_keys(int *n)
{
	static struct tui_key shown[NKEYS];

	*n = 0;
	for (int i = 0; i < NKEYS; i++)
		if (keys[i].what)
			shown[(*n)++] = keys[i];
	return shown;
}

static void run_key(struct tui *t, int ch)
{
	if (ch == KEY_RESIZE) {
		clear();	/* a whole new screen at the new size */
		return;
	}
	for (int i = 0; i < NKEYS; i++)
		if (keys[i].key == ch || (keys[i].key2 && keys[i].key2 == ch)) {
			keys[i].run(t);
			return;
		}
}

/* The cursor stays on its process when the rows change order. */
static void follow(struct tui *t)
{
	for (int i = 0; i < t->f->nrows; i++)
		if (t->f->rows[i]->e->id == t->v.sel_id) {
			t->v.sel = i;
			return;
		}
}

int top_tui_run(struct top_opts *o, struct top_frame *f,
		int (*collect)(struct top_frame *f, void *arg), void *arg)
{
	struct tui t = { .o = o, .f = f };
	__u64 next = mono_ns();
	const struct tui_key *hk;
	int err = 0, ch, nhk, before;

	tui_begin(&t.v);
	hk = help_keys(&nhk);
	o->filter = t.v.filter;
	next += o->delay_ns;
	while (!stop_requested()) {
		__u64 now = mono_ns();

		if (now >= next || t.collect_now) {
			next += o->delay_ns;
			if (next <= now)	/* we fell behind: no catching up */
				next = now + o->delay_ns;
			t.collect_now = false;
			if (!t.v.frozen) {
				err = collect(f, arg);
				if (err)
					break;
				if (t.v.focus >= f->ndev)
					t.v.focus = 0;
				follow(&t);
			}
		}
		tui_draw(f, o, &t.v, hk, nhk);
		timeout((int)((next - now) / 1000000) + 1);
		ch = getch();
		if (ch == ERR)
			continue;
		if (t.v.help) {
			t.v.help = false;
			continue;
		}
		before = t.v.sel;
		run_key(&t, ch);
		if (t.v.sel != before && t.v.sel < f->nrows)
			t.v.sel_id = f->rows[t.v.sel]->e->id;
		top_arrange(f, o);
		follow(&t);
	}
	tui_end();
	if (err) {
		fprintf(stderr, "iolens top: reading the task and block counters: %s\n",
			strerror(-err));
		return 1;
	}
	return 0;
}
