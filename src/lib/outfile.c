// SPDX-License-Identifier: GPL-2.0
/* Files root writes, opened so that a planted link cannot redirect them
 * (lib/outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/outfile.h"
#include "lib/safepath.h"

static int __attribute__((format(printf, 3, 4)))
refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	errno = EPERM;
	return -1;
}

static int failed(int err, char *why, size_t len)
{
	snprintf(why, len, "%s", strerror(err));
	errno = err;
	return -1;
}

/* What `fd` opened is one the caller may write: see lib/outfile.h. */
static int check_kind(int fd, bool created, unsigned int how, struct stat *st,
		      char *why, size_t len)
{
	uid_t me = geteuid();
	const char *pseudo;

	if (fstat(fd, st))
		return failed(errno, why, len);
	/* /proc/sys/kernel/core_pattern is a file. */
	if (!S_ISCHR(st->st_mode) && (pseudo = safepath_pseudo_fs(fd)))
		return refuse(why, len, "refusing to write: a file of %s, not of a real file system",
			      pseudo);
	if (S_ISREG(st->st_mode) && !created) {
		if (st->st_uid != me)
			return refuse(why, len, "refusing to write: the file is owned by uid %u, not by you (remove it or give another name)",
				      (unsigned int)st->st_uid);
		/* A hard link to a file of root's that someone else made. */
		if (st->st_nlink > 1)
			return refuse(why, len, "refusing to write: the file has %lu names (hard links); remove it or give another name",
				      (unsigned long)st->st_nlink);
	} else if (S_ISBLK(st->st_mode) && !(how & OUTFILE_BLKDEV)) {
		return refuse(why, len, "refusing to write: a block device, not a file");
	} else if ((S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode)) && st->st_uid != me) {
		return refuse(why, len, "refusing to write: a FIFO owned by uid %u, not by you",
			      (unsigned int)st->st_uid);
	}
	/* O_NONBLOCK was for the open alone (a FIFO nobody reads). */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		return failed(errno, why, len);
	if (S_ISREG(st->st_mode) && (how & OUTFILE_TRUNC) && st->st_size &&
	    ftruncate(fd, 0))
		return failed(errno, why, len);
	return 0;
}

int outfile_open(const char *path, int flags, unsigned int how,
		 struct stat *st, char *why, size_t len)
{
	int base = flags | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	struct stat own;
	bool created;
	int fd;

	fd = safepath_open(path, base, 0644, &created, why, len);
	if (fd < 0)
		return -1;
	if (check_kind(fd, created, how, st ? st : &own, why, len)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int outfile_still_there(const char *path, const struct stat *was,
			char *why, size_t len)
{
	struct stat now;

	if (!S_ISREG(was->st_mode))
		return 0;
	if (stat(path, &now)) {
		snprintf(why, len, "it was removed or renamed while being written; what was written is not there");
		return -1;
	}
	if (now.st_dev != was->st_dev || now.st_ino != was->st_ino) {
		snprintf(why, len, "it was replaced by another file while being written; what was written is not there");
		return -1;
	}
	return 0;
}

int outfile_tmp(const char *path, char *tmp, size_t tmplen)
{
	static unsigned int seq;
	int fd = -1;

	for (int i = 0; i < 16 && fd < 0; i++) {
		snprintf(tmp, tmplen, "%s.%d.%u", path, (int)getpid(), seq++);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	return fd;
}
