/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of top's terminal share: top_tui.c owns the terminal and
 * runs the keys; tui_draw.c draws a screen, tui_input.c reads a line or a
 * choice at the bottom, tui_chooser.c is the column chooser.
 */
#ifndef IOLENS_TOP_TUI_H
#define IOLENS_TOP_TUI_H

#include <stdbool.h>
#include <linux/types.h>
#include "top/top.h"

enum { CP_TITLE = 1, CP_HEAD, CP_SORT, CP_BAR, CP_SEL };

struct view {
	int focus;		/* device of the histogram pane */
	int pane;		/* what the pane shows, index into tui_panes */
	int top;		/* first row shown */
	int sel;		/* the row the cursor is on */
	__u32 sel_id;		/* its pid, kept on it across frames */
	int skip;		/* columns scrolled off to the left */
	int hidden_right;	/* of the last draw: more to scroll to */
	bool frozen, help, utf8;
	char filter[64];
	char msg[160];		/* a message on the bottom line until */
	__u64 msg_until;	/* this time (CLOCK_MONOTONIC ns) */
};

/* What the histogram pane can show: the focused device (-1) or a class
 * of syscalls. */
extern const int tui_panes[];
extern const int tui_npanes;

struct tui;

/* A key and what it does: the keys are a table, which the help screen and
 * the bottom line are written from. */
struct tui_key {
	int key, key2;		/* the key, and another doing the same (or 0) */
	const char *name;	/* as the help shows it */
	const char *hint;	/* a word for the bottom line, or NULL */
	const char *what;
	void (*run)(struct tui *t);
};

/* ---- tui_draw.c ---- */

/* Turns an attribute (a color pair, or reverse without colors) on or off. */
void tui_attr(int pair, bool on);
/* The whole screen: the frame, or the help of the keys and columns. */
void tui_draw(const struct top_frame *f, const struct top_opts *o,
	      struct view *v, const struct tui_key *keys, int nkeys);
/* A message for the bottom line, for a few seconds. */
void tui_message(struct view *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- tui_input.c ---- */

/* Reads a line after `prompt` on the bottom line into buf (which holds
 * its start): true on Enter, false on Esc or a stop. */
bool tui_read_line(const char *prompt, char *buf, size_t len);
/* Asks a yes/no question on the bottom line: true on y. */
bool tui_confirm(const char *question);

/* ---- tui_chooser.c ---- */

/* The column chooser over the whole screen until closed: true when the
 * choice changed (then in o->cols). */
bool tui_choose_columns(struct top_opts *o);

#endif
