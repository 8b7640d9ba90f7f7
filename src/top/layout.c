// SPDX-License-Identifier: GPL-2.0
/*
 * Which columns a terminal shows.  A header is one line and COMMAND always
 * the last column of the process table, so a narrow terminal drops
 * columns: those ranked last (largest prio) first, as htop and iotop keep
 * the name of the process in view.  Scrolling to the right drops columns
 * at the left, so that the ones dropped for width come into view.
 */
#include "top/top.h"

int top_fit(const int *width, const int *prio, int n, int room, bool *take)
{
	for (int i = 0; i < n; i++)
		take[i] = false;
	for (;;) {
		int best = -1;

		for (int i = 0; i < n; i++)
			if (!take[i] && (best < 0 || prio[i] < prio[best]))
				best = i;
		if (best < 0 || width[best] + 1 > room)
			return room;
		take[best] = true;
		room -= width[best] + 1;
	}
}

void top_layout(struct top_layout *l, const int *cols, int n, int screen,
		int skip)
{
	int width[TOP_MAX_COLS] = { 0 }, prio[TOP_MAX_COLS] = { 0 }, room, cmd = top_col_command;
	bool take[TOP_MAX_COLS];
	int shown = 0;

	/* COMMAND is last in cols; the others may be scrolled off. */
	if (n > 0 && cols[n - 1] == cmd)
		n--;
	skip = skip < 0 ? 0 : skip > n ? n : skip;
	for (int i = skip; i < n; i++) {
		width[i - skip] = top_cols[cols[i]].width;
		prio[i - skip] = top_cols[cols[i]].prio;
	}
	room = top_fit(width, prio, n - skip, screen - top_cols[cmd].width, take);
	l->n = 0;
	for (int i = skip; i < n; i++) {
		if (!take[i - skip])
			continue;
		l->col[l->n] = cols[i];
		l->width[l->n++] = top_cols[cols[i]].width;
		shown++;
	}
	/* COMMAND takes what is left, however narrow the terminal. */
	l->col[l->n] = cmd;
	l->width[l->n++] = top_cols[cmd].width + room;
	l->hidden_left = skip;
	l->hidden_right = n - skip - shown;
}
