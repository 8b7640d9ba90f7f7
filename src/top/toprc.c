// SPDX-License-Identifier: GPL-2.0
/*
 * top's settings file: the columns chosen in the chooser, read at start.
 * One "key=value" a line, '#' comments; keys it does not know are left
 * alone (a newer iolens may have written them), as htop does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "top/top.h"

#define RC_MAX	4096	/* the file is a few lines: more is not ours */

const char *top_rc_path(char *buf, size_t len)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");

	if (x && *x == '/')
		snprintf(buf, len, "%s/iolens/toprc", x);
	else if (h && *h)
		snprintf(buf, len, "%s/.config/iolens/toprc", h);
	else
		return NULL;
	return buf;
}

int top_rc_load(struct top_opts *o)
{
	char path[4096], buf[RC_MAX + 1], bad[64], *line, *save;
	int cols[TOP_MAX_COLS], n, lineno = 0;
	size_t len;
	FILE *f;

	if (!top_rc_path(path, sizeof(path)))
		return 0;
	f = fopen(path, "re");
	if (!f) {
		/* None, or a HOME that is not ours (sudo -u keeps root's). */
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
			return 0;
		fprintf(stderr, "iolens top: cannot read %s: %s; default columns\n",
			path, strerror(errno));
		return -1;
	}
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (len > RC_MAX) {
		fprintf(stderr, "iolens top: %s is over %d bytes, not a toprc; default columns\n",
			path, RC_MAX);
		return -1;
	}
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (strncmp(line, "columns=", 8))
			continue;
		n = top_cols_parse(line + 8, cols, bad, sizeof(bad));
		if (n < 0) {
			fprintf(stderr, "iolens top: %s:%d: unknown or repeated column '%s'; default columns\n",
				path, lineno, bad);
			return -1;
		}
		memcpy(o->cols, cols, n * sizeof(*cols));
		o->ncols = n;
	}
	return 0;
}

/* mkdir -p of the file's directory. */
static int make_dirs(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

int top_rc_save(const struct top_opts *o)
{
	char path[4096], tmp[4200], list[1024];
	int err;
	FILE *f;

	if (!top_rc_path(path, sizeof(path)))
		return -ENOENT;
	err = make_dirs(path);
	if (err)
		return err;
	top_cols_format(list, sizeof(list), o->cols, o->ncols);
	/* Whole or not at all: a new file renamed over the old one. */
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "# iolens top: written by its column chooser (key C)\ncolumns=%s\n", list);
	if (fclose(f)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	if (rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}
