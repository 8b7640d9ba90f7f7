// SPDX-License-Identifier: GPL-2.0
/*
 * top's column chooser (key C, or F2 as in htop): every column of the
 * table, the shown ones first in their order; space shows or hides one,
 * [ and ] move it, Enter or Esc closes.  COMMAND stays, and stays last.
 */
#include <ncurses.h>
#include <stdio.h>
#include <string.h>
#include "lib/stop.h"
#include "top/tui.h"

struct chooser {
	int col[TOP_MAX_COLS];	/* every column, the shown ones first */
	bool on[TOP_MAX_COLS];
	int n, cur;
};

static void load(struct chooser *ch, const struct top_opts *o)
{
	bool shown[TOP_MAX_COLS] = { false };

	ch->n = 0;
	for (int i = 0; i < o->ncols; i++) {
		if (o->cols[i] == top_col_command)
			continue;
		shown[o->cols[i]] = true;
		ch->on[ch->n] = true;
		ch->col[ch->n++] = o->cols[i];
	}
	for (int c = 0; c < top_ncols; c++) {
		if (shown[c] || c == top_col_command)
			continue;
		ch->on[ch->n] = false;
		ch->col[ch->n++] = c;
	}
	ch->on[ch->n] = true;
	ch->col[ch->n++] = top_col_command;
}

static void draw(const struct chooser *ch)
{
	char buf[256];

	erase();
	mvaddnstr(0, 0, "Columns: up/down move the cursor, space shows or hides, [ and ] "
		  "move the column, Enter or Esc: done (kept in toprc)", COLS);
	for (int i = 0; i < ch->n && i + 2 < LINES; i++) {
		const struct top_column *c = &top_cols[ch->col[i]];
		const char *nl = strchr(c->help, '\n');

		snprintf(buf, sizeof(buf), "%c [%c] %-11s %-11s %.*s", i == ch->cur ? '>' : ' ',
			 ch->on[i] ? 'x' : ' ', c->title, c->key,
			 nl ? (int)(nl - c->help) : (int)strlen(c->help), c->help);
		if (i == ch->cur)
			tui_attr(CP_SEL, true);
		mvaddnstr(i + 2, 0, buf, COLS);
		if (i == ch->cur)
			tui_attr(CP_SEL, false);
	}
	refresh();
}

/* Moves the column at the cursor by d places among the others; COMMAND
 * neither moves nor is passed. */
static void move_col(struct chooser *ch, int d)
{
	int to = ch->cur + d, t;
	bool b;

	if (to < 0 || to >= ch->n - 1 || ch->cur >= ch->n - 1)
		return;
	t = ch->col[to], ch->col[to] = ch->col[ch->cur], ch->col[ch->cur] = t;
	b = ch->on[to], ch->on[to] = ch->on[ch->cur], ch->on[ch->cur] = b;
	ch->cur = to;
}

bool tui_choose_columns(struct top_opts *o)
{
	struct chooser ch = { .cur = 0 };
	int cols[TOP_MAX_COLS], n = 0, key;

	load(&ch, o);
	timeout(-1);
	for (;;) {
		draw(&ch);
		key = getch();
		if (key == '\n' || key == KEY_ENTER || key == 27 || key == 'q' ||
		    key == 'C' || key == KEY_F(2) || stop_requested())
			break;
		switch (key) {
		case KEY_UP: ch.cur -= ch.cur > 0; break;
		case KEY_DOWN: ch.cur += ch.cur < ch.n - 1; break;
		case ' ':
			if (ch.col[ch.cur] != top_col_command)
				ch.on[ch.cur] = !ch.on[ch.cur];
			break;
		case '[': case '-': move_col(&ch, -1); break;
		case ']': case '+': move_col(&ch, 1); break;
		}
	}
	for (int i = 0; i < ch.n; i++)
		if (ch.on[i])
			cols[n++] = ch.col[i];
	if (n == o->ncols && !memcmp(cols, o->cols, n * sizeof(*cols)))
		return false;
	memcpy(o->cols, cols, n * sizeof(*cols));
	o->ncols = n;
	return true;
}
