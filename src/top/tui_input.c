// SPDX-License-Identifier: GPL-2.0
/* A line or a yes/no read on the bottom line of top's screen. */
#include <ncurses.h>
#include <string.h>
#include "lib/stop.h"
#include "top/tui.h"

bool tui_read_line(const char *prompt, char *buf, size_t len)
{
	size_t n = strlen(buf);
	bool ok = false;
	int ch;

	timeout(-1);
	curs_set(1);
	for (;;) {
		move(LINES - 1, 0);
		clrtoeol();
		mvaddnstr(LINES - 1, 0, prompt, COLS);
		addnstr(buf, COLS - (int)strlen(prompt) > 0 ? COLS - (int)strlen(prompt) : 0);
		refresh();
		ch = getch();
		if (ch == '\n' || ch == KEY_ENTER) {
			ok = true;
			break;
		}
		if (ch == 27 || stop_requested())
			break;
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
			buf[--n] = '\0';
		else if (ch >= 32 && ch < 127 && n < len - 1)
			buf[n++] = ch, buf[n] = '\0';
	}
	curs_set(0);
	return ok;
}

bool tui_confirm(const char *question)
{
	int ch;

	timeout(-1);
	move(LINES - 1, 0);
	clrtoeol();
	mvaddnstr(LINES - 1, 0, question, COLS);
	addnstr(" [y/N] ", COLS);
	refresh();
	ch = getch();
	return ch == 'y' || ch == 'Y';
}
