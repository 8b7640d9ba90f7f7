/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files root writes, opened as the careful root tools do (systemd opens
 * with O_NOFOLLOW): a path in /tmp or in any directory another user can
 * write may be a planted symbolic link or hard link to a file of root's.
 * What is written to is a file the caller made, or one that already was
 * the caller's: a regular file it owns with no other name, a character
 * device (only root makes those), a FIFO or socket it owns; never a file
 * of a pseudo file system (/proc/sys/kernel/core_pattern).  Links anywhere
 * in the path are followed by lib/safepath.h's rule (/dev/disk/by-id/...).
 */
#ifndef IOLENS_OUTFILE_H
#define IOLENS_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

enum {
	OUTFILE_TRUNC	= 1 << 0,	/* empty what was there (an output) */
	OUTFILE_BLKDEV	= 1 << 1,	/* a block device will do (load) */
};

/* `path` opened with `flags` (O_WRONLY or O_RDWR, maybe O_DIRECT), created
 * 0644 if absent.  Its fd, its stat in *st if st; or -1 with errno and,
 * in why, the reason for one line ("refusing to write: ..."). */
int outfile_open(const char *path, int flags, unsigned int how,
		 struct stat *st, char *why, size_t len);

/* Whether `path` still names the file *was describes (opened by
 * outfile_open()): 0, or -1 with what happened to it in why ("it was
 * removed ..."). */
int outfile_still_there(const char *path, const struct stat *was,
			char *why, size_t len);

/*
 * An output written whole or not at all: made as a new file beside its
 * name (.NAME.PID.N) and renamed over it by outfile_end() once complete,
 * so that a write error (ENOSPC) or a kill leaves no file that looks
 * whole.  A device, a FIFO or socket of the caller's, or /dev/stdout, is
 * written in place; "-" or NULL is standard output.
 */
struct outfile {
	FILE *f;		/* what to write to */
	const char *path;	/* as given; NULL for standard output */
	int dirfd;		/* the folder of a new file, or -1 */
	char name[NAME_MAX + 1], tmp[NAME_MAX + 1];
};

/* o set up for path, which must not name one of the files of `inputs`
 * (NULL-terminated, or NULL): 0, or -1 with errno (EPERM: refused, a
 * usage error) after one line "iolens CMD: cannot write PATH: why" if
 * cmd is not NULL. */
int outfile_begin(struct outfile *o, const char *cmd, const char *path,
		  const char *const *inputs);

/* Flushed, closed and, if ok, put in place: 0, or -1 after the same line;
 * on failure or !ok nothing new is left under the name. */
int outfile_end(struct outfile *o, const char *cmd, bool ok);

#endif
