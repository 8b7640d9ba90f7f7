// SPDX-License-Identifier: GPL-2.0
/* Files root writes, opened so that a planted link cannot redirect them
 * (lib/outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/outfile.h"
#include "lib/safepath.h"
#include "lib/log.h"

/* A file that is there, of stat *st, is one the caller may write: see
 * lib/outfile.h. */
static int check_stat(const struct stat *st, unsigned int how, char *why, size_t len)
{
	uid_t me = geteuid();

	if (S_ISREG(st->st_mode)) {
		if (st->st_uid != me)
			return safepath_refuse(why, len, "refusing to write: the file is owned by uid %u, not by you (remove it or give another name)",
				      (unsigned int)st->st_uid);
		/* A hard link to a file of root's that someone else made. */
		if (st->st_nlink > 1)
			return safepath_refuse(why, len, "refusing to write: the file has %lu names (hard links); remove it or give another name",
				      (unsigned long)st->st_nlink);
	} else if (S_ISBLK(st->st_mode) && !(how & OUTFILE_BLKDEV)) {
		return safepath_refuse(why, len, "refusing to write: a block device, not a file");
	} else if ((S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode)) && st->st_uid != me) {
		return safepath_refuse(why, len, "refusing to write: a FIFO owned by uid %u, not by you",
			      (unsigned int)st->st_uid);
	} else if (S_ISDIR(st->st_mode)) {
		return safepath_fail(EISDIR, why, len);
	}
	return 0;
}

/* What `fd` opened is one the caller may write: see lib/outfile.h. */
static int check_kind(int fd, bool created, unsigned int how, struct stat *st,
		      char *why, size_t len)
{
	const char *pseudo;

	if (fstat(fd, st))
		return safepath_fail(errno, why, len);
	/* /proc/sys/kernel/core_pattern is a file. */
	if (!S_ISCHR(st->st_mode) && (pseudo = safepath_pseudo_fs(fd)))
		return safepath_refuse(why, len, "refusing to write: a file of %s, not of a real file system",
			      pseudo);
	if (!created && check_stat(st, how, why, len))
		return -1;
	/* O_NONBLOCK was for the open alone (a FIFO nobody reads). */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		return safepath_fail(errno, why, len);
	if (S_ISREG(st->st_mode) && (how & OUTFILE_TRUNC) && st->st_size &&
	    ftruncate(fd, 0))
		return safepath_fail(errno, why, len);
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

/* Whether path (an input) is the file *st describes. */
static bool same_file(const char *path, const struct stat *st)
{
	struct stat in;

	return !stat(path, &in) && in.st_dev == st->st_dev && in.st_ino == st->st_ino;
}

/* Standard output, or what is there written in place: a device, a FIFO
 * or socket of the caller's, a pipe named by /dev/stdout. */
static int begin_in_place(struct outfile *o, const char *path, char *why, size_t len)
{
	int fd = outfile_open(path, O_WRONLY, OUTFILE_TRUNC, NULL, why, len);

	if (fd < 0)
		return -1;
	o->f = fdopen(fd, "w");
	if (o->f)
		return 0;
	close(fd);
	return safepath_fail(ENOMEM, why, len);
}

static int begin(struct outfile *o, const char *path, const char *const *inputs,
		 char *why, size_t len)
{
	static unsigned int seq;
	const char *pseudo;
	struct safepath sp;
	struct stat st;
	int fd = -1;

	memset(o, 0, sizeof(*o));
	o->f = stdout;
	o->dirfd = -1;
	if (!path || !strcmp(path, "-"))
		return 0;
	o->path = path;
	if (safepath_resolve(path, &sp, why, len))
		return -1;
	if (!fstatat(sp.dirfd, sp.last, &st, AT_SYMLINK_NOFOLLOW) || sp.magic) {
		if (sp.magic && fstatat(sp.dirfd, sp.last, &st, 0))
			memset(&st, 0, sizeof(st));
		for (const char *const *in = inputs; in && *in; in++) {
			if (!same_file(*in, &st))
				continue;
			close(sp.dirfd);
			return safepath_refuse(why, len, "refusing to write over an input of this command (give another name)");
		}
		if (sp.magic || !S_ISREG(st.st_mode)) {
			close(sp.dirfd);
			return begin_in_place(o, path, why, len);
		}
		if (check_stat(&st, 0, why, len)) {
			close(sp.dirfd);
			return -1;
		}
	}
	pseudo = safepath_pseudo_fs(sp.dirfd);
	if (pseudo) {
		close(sp.dirfd);
		return safepath_refuse(why, len, "refusing to make a file in %s", pseudo);
	}
	for (int i = 0; i < 16 && fd < 0; i++) {
		snprintf(o->tmp, sizeof(o->tmp), ".%.200s.%d.%u", sp.last, (int)getpid(), seq++);
		fd = openat(sp.dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	o->f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!o->f) {
		int err = fd < 0 ? errno : ENOMEM;

		if (fd >= 0) {
			close(fd);
			unlinkat(sp.dirfd, o->tmp, 0);
		}
		close(sp.dirfd);
		return safepath_fail(err, why, len);
	}
	o->dirfd = sp.dirfd;
	strcpy(o->name, sp.last);
	return 0;
}

static int end(struct outfile *o, bool ok, char *why, size_t len)
{
	int err = 0;

	if (!o->f)
		return 0;
	if (fflush(o->f) || ferror(o->f))
		err = errno ? errno : EIO;
	/* Where it is renamed into place: on the disk first, so that no
	 * crash leaves an empty file under the name. */
	if (!err && o->dirfd >= 0 && fsync(fileno(o->f)))
		err = errno;
	if (o->f != stdout && fclose(o->f) && !err)
		err = errno;
	o->f = NULL;
	if (o->dirfd >= 0) {
		if (err || !ok || renameat(o->dirfd, o->tmp, o->dirfd, o->name)) {
			if (!err && ok)
				err = errno;
			unlinkat(o->dirfd, o->tmp, 0);
		}
		close(o->dirfd);
		o->dirfd = -1;
	}
	if (err)
		return safepath_fail(err, why, len);
	return 0;
}

/* One line, as every command says a failure; the name as text. */
static void say(const char *cmd, const char *path, const char *why)
{
	fprintf(stderr, "iolens %s: cannot write %s: %s\n", cmd,
		path ? log_name(path) : "standard output", why);
}

int outfile_begin(struct outfile *o, const char *cmd, const char *path,
		  const char *const *inputs)
{
	char why[200];

	if (!begin(o, path, inputs, why, sizeof(why)))
		return 0;
	if (cmd) {
		int err = errno;

		say(cmd, path, why);
		errno = err;
	}
	return -1;
}

int outfile_end(struct outfile *o, const char *cmd, bool ok)
{
	char why[200];

	if (!end(o, ok, why, sizeof(why)))
		return 0;
	if (cmd) {
		int err = errno;

		say(cmd, o->path, why);
		errno = err;
	}
	return -1;
}
