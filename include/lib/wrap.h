/* SPDX-License-Identifier: GPL-2.0 */
/* Help text flowed into an 80-column terminal (--help of every command). */
#ifndef IOLENS_WRAP_H
#define IOLENS_WRAP_H

#include <stdio.h>

#define WRAP_COLUMNS 80

/* Writes `text` from column `col` (where the caller's line is now) as a
 * paragraph: its newlines are spaces, a line breaks at the last space
 * that keeps it within WRAP_COLUMNS characters, and each line after
 * the first starts at column `indent`.  A word longer than the room has
 * a line of its own.  The column where it ended; the line is not ended. */
int wrap_words(FILE *f, const char *text, int col, int indent);

/* The same, and the line ended. */
void wrap_text(FILE *f, const char *text, int col, int indent);

#endif
