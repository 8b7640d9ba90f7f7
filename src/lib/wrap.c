// SPDX-License-Identifier: GPL-2.0
/* Help text flowed into 80 columns (include/lib/wrap.h). */
#include <stdbool.h>
#include <string.h>
#include "lib/wrap.h"

int wrap_words(FILE *f, const char *text, int col, int indent)
{
	const char *s = text;
	bool first = true;

	for (;;) {
		size_t n;

		s += strspn(s, " \n");
		if (!*s)
			break;
		n = strcspn(s, " \n");
		if (!first && col + 1 + (int)n > WRAP_COLUMNS) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fwrite(s, 1, n, f);
		col += n;
		s += n;
		first = false;
	}
	return col;
}

void wrap_text(FILE *f, const char *text, int col, int indent)
{
	wrap_words(f, text, col, indent);
	fputc('\n', f);
}
