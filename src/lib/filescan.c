// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include "lib/filescan.h"

int file_scan(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "re");
	va_list ap;
	int n;

	if (!f)
		return -1;
	va_start(ap, fmt);
	n = vfscanf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	return n == EOF ? -1 : n;
}
