/* SPDX-License-Identifier: GPL-2.0 */
/* One value or a few read from a small file of /proc or /sys. */
#ifndef IOLENS_LIB_FILESCAN_H
#define IOLENS_LIB_FILESCAN_H

/* fscanf() of the file `path` with `fmt`: the number of values it read,
 * or -1 if the file cannot be opened or is empty. */
int file_scan(const char *path, const char *fmt, ...)
	__attribute__((format(scanf, 2, 3)));

#endif
