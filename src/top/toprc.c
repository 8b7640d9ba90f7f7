// SPDX-License-Identifier: GPL-2.0
/*
 * top's settings file: the columns chosen in the chooser, read at start.
 * One "key=value" a line, '#' comments; keys it does not know are left
 * alone (a newer iolens may have written them), as htop does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib/outfile.h"
#include "lib/safepath.h"
#include "lib/log.h"
#include "top/top.h"

#define RC_MAX	4096	/* the file is a few lines: more is not ours */

/* The folder the settings live under, the user's own: $XDG_CONFIG_HOME
 * or $HOME, as top_rc_path() picks. */
static const char *rc_home(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");

	if (x && *x == '/')
		return x;
	return h && *h ? h : NULL;
}

const char *top_rc_path(char *buf, size_t len)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = rc_home();

	if (!h)
		return NULL;
	snprintf(buf, len, h == x ? "%s/iolens/toprc" : "%s/.config/iolens/toprc", h);
	return buf;
}

/* The owner of the folder the settings live under: whose they are. */
static int rc_owner(uid_t *uid)
{
	const char *h = rc_home();
	struct stat st;

	if (!h || stat(h, &st))
		return -ENOENT;
	*uid = st.st_uid;
	return 0;
}

/* The file, if it is one the owner of the folder made: never a FIFO
 * (open would wait for a writer) nor a file someone else put there.
 * 0 with *f NULL if there is none to read, -1 after saying why not. */
static int rc_open(const char *path, FILE **f)
{
	char why[200];
	struct stat st;
	uid_t owner;
	int fd;

	*f = NULL;
	if (rc_owner(&owner))
		return 0;
	/* No link another user planted on the way, and never a FIFO
	 * (lib/safepath.h). */
	fd = safepath_open_input(path, false, why, sizeof(why));
	if (fd < 0) {
		/* None, or a HOME that is not ours (sudo -u keeps root's). */
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
			return 0;
		fprintf(stderr, "iolens top: cannot read %s: %s; default columns\n",
			log_name(path), why);
		return -1;
	}
	if (fstat(fd, &st)) {
		fprintf(stderr, "iolens top: cannot read %s: %s; default columns\n",
			log_name(path), strerror(errno));
		close(fd);
		return -1;
	}
	if (st.st_uid != owner) {
		fprintf(stderr, "iolens top: %s is owned by uid %u, not by the owner of %s; default columns\n",
			log_name(path), (unsigned int)st.st_uid, log_name(rc_home()));
		close(fd);
		return -1;
	}
	*f = fdopen(fd, "r");
	if (!*f)
		close(fd);
	return 0;
}

int top_rc_load(struct top_opts *o)
{
	char path[4096], buf[RC_MAX + 1], bad[64], *line, *save;
	int cols[TOP_MAX_COLS], n, lineno = 0;
	size_t len;
	FILE *f;

	if (!top_rc_path(path, sizeof(path)))
		return 0;
	n = rc_open(path, &f);
	if (n || !f)
		return n;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (len > RC_MAX) {
		fprintf(stderr, "iolens top: %s is over %d bytes, not a toprc; default columns\n",
			log_name(path), RC_MAX);
		return -1;
	}
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (strncmp(line, "columns=", 8))
			continue;
		n = top_cols_parse(line + 8, cols, bad, sizeof(bad));
		if (n < 0) {
			/* Another user's file, when root runs with its HOME. */
			fprintf(stderr, "iolens top: %s:%d: unknown or repeated column '%s'; default columns\n",
				log_name(path), lineno,
				log_name(bad));
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
	char path[4096], list[1024];
	struct outfile out;
	uid_t owner;
	int err;

	if (!top_rc_path(path, sizeof(path)) || rc_owner(&owner))
		return -ENOENT;
	/* Root with another user's HOME (sudo -E) would leave root's files
	 * in that home, which its owner could not change: kept nowhere. */
	if (owner != geteuid())
		return -EPERM;
	err = make_dirs(path);
	if (err)
		return err;
	top_cols_format(list, sizeof(list), o->cols, o->ncols);
	/* Whole or not at all: a new file renamed over the old one. */
	if (outfile_begin(&out, NULL, path, NULL))
		return -errno;
	fprintf(out.f, "# iolens top: written by its column chooser (key C)\ncolumns=%s\n", list);
	if (outfile_end(&out, NULL, true))
		return -errno;
	return 0;
}
