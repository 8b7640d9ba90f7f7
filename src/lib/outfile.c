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

/* As the kernel's MAXSYMLINKS would stop a path that loops. */
#define LINKS_MAX 8

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

	if (fstat(fd, st))
		return failed(errno, why, len);
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

static int open_depth(const char *path, int flags, unsigned int how,
		      struct stat *st, char *why, size_t len, int depth);

/* `path` is a symbolic link: followed if the caller owns it, as udev's
 * /dev/disk/by-id are root's; one another user planted is not.  The link
 * is read through the fd its owner was checked on, so it cannot change
 * in between. */
static int follow(const char *path, int flags, unsigned int how,
		  struct stat *st, char *why, size_t len, int depth)
{
	char target[4096], next[8192];
	const char *slash;
	struct stat ls;
	ssize_t n;
	int lfd;

	lfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (lfd < 0)
		return failed(errno, why, len);
	if (fstat(lfd, &ls) || !S_ISLNK(ls.st_mode)) {
		close(lfd);
		return failed(ELOOP, why, len);
	}
	if (ls.st_uid != geteuid()) {
		close(lfd);
		return refuse(why, len, "refusing to write: a symbolic link owned by uid %u, not by you (give the file it points to)",
			      (unsigned int)ls.st_uid);
	}
	n = readlinkat(lfd, "", target, sizeof(target) - 1);
	close(lfd);
	if (n < 0)
		return failed(errno, why, len);
	target[n] = '\0';
	slash = strrchr(path, '/');
	if (target[0] == '/' || !slash)
		snprintf(next, sizeof(next), "%s", target);
	else
		snprintf(next, sizeof(next), "%.*s%s", (int)(slash - path + 1), path, target);
	return open_depth(next, flags, how, st, why, len, depth + 1);
}

static int open_depth(const char *path, int flags, unsigned int how,
		      struct stat *st, char *why, size_t len, int depth)
{
	int base = flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	struct stat ls;
	int fd;

	if (depth > LINKS_MAX)
		return failed(ELOOP, why, len);
	/* Three rounds: another process may make or remove it meanwhile. */
	for (int round = 0; round < 3; round++) {
		bool created = false;

		fd = open(path, base);
		if (fd < 0 && errno == ENOENT) {
			fd = open(path, base | O_CREAT | O_EXCL, 0644);
			created = fd >= 0;
			if (fd < 0 && errno == EEXIST)
				continue;
		}
		if (fd < 0 && errno == ELOOP && !lstat(path, &ls) && S_ISLNK(ls.st_mode))
			return follow(path, flags, how, st, why, len, depth);
		if (fd < 0)
			return failed(errno, why, len);
		if (check_kind(fd, created, how, st, why, len)) {
			int err = errno;

			close(fd);
			errno = err;
			return -1;
		}
		return fd;
	}
	return failed(EEXIST, why, len);
}

int outfile_open(const char *path, int flags, unsigned int how,
		 struct stat *st, char *why, size_t len)
{
	struct stat own;

	return open_depth(path, flags, how, st ? st : &own, why, len, 0);
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
