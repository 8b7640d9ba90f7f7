// SPDX-License-Identifier: GPL-2.0
/* Paths another user may have prepared, resolved so that no link of theirs
 * is followed anywhere in them (lib/safepath.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include "lib/safepath.h"
#include "lib/sanitize.h"

#ifndef SYS_openat2
#define SYS_openat2 437		/* the same number on every architecture */
#endif
/* The kernel's own limit on links in one lookup (MAXSYMLINKS). */
#define LINKS_MAX 40

int safepath_refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	errno = EPERM;
	return -1;
}

int safepath_fail(int err, char *why, size_t len)
{
	snprintf(why, len, "%s", strerror(err));
	errno = err;
	return -1;
}

static bool owned_by_us(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

static bool on_procfs(int fd)
{
	struct statfs fs;

	return !fstatfs(fd, &fs) && fs.f_type == PROC_SUPER_MAGIC;
}

/* Set once openat2() said ENOSYS (before 5.6) or EPERM (a container's
 * seccomp filter). */
static bool openat2_absent;

bool safepath_openat2(void)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = openat2_absent ? -1 : syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

	if (fd < 0)
		openat2_absent = true;
	else
		close(fd);
	return !openat2_absent;
}

/* The common case in one call: no link anywhere before the last component
 * and none as the last.  1 if the walk must decide (a link, or no
 * openat2). */
static int resolve_fast(const char *path, struct safepath *sp)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	struct stat st;
	int fd;

	if (openat2_absent || !*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return 1;
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path) >= (int)sizeof(dir))
		return 1;
	if (strlen(base) >= sizeof(sp->last))
		return 1;
	fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	if (fd < 0) {
		if (errno == ENOSYS || errno == EPERM)
			openat2_absent = true;
		return 1;
	}
	if (!fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode)) {
		close(fd);
		return 1;
	}
	sp->dirfd = fd;
	strcpy(sp->last, base);
	sp->magic = false;
	return 0;
}

/* The link `name` (open as lfd, stat in *st) in the folder dirfd, met with
 * `trusted` folders so far: its text in target, or -1 and why. */
static int read_link(int lfd, const struct stat *st, const char *name, bool trusted,
		     char *target, size_t size, char *why, size_t len)
{
	char shown[80];
	ssize_t n;

	san_text_buf(shown, sizeof(shown), name);
	if (!owned_by_us(st))
		return safepath_refuse(why, len, "refusing to follow a symbolic link owned by uid %u ('%s'); give the path it points to",
			      (unsigned int)st->st_uid, shown);
	if (!trusted)
		return safepath_refuse(why, len, "refusing to follow the symbolic link '%s' in a folder another user owns; give the path it points to",
			      shown);
	n = readlinkat(lfd, "", target, size - 1);
	if (n < 0)
		return safepath_fail(errno, why, len);
	target[n] = '\0';
	return 0;
}

/* The walk of lib/safepath.h: each folder opened O_PATH | O_NOFOLLOW from
 * the one before, so what was checked is what is used. */
static int resolve_walk(const char *path, struct safepath *sp, char *why, size_t len)
{
	char rest[2 * PATH_MAX], target[PATH_MAX], comp[NAME_MAX + 1];
	bool trusted = true;
	int links = 0, fd;
	struct stat st;
	char *p = rest;

	if (snprintf(rest, sizeof(rest), "%s", path) >= (int)sizeof(rest) - PATH_MAX)
		return safepath_fail(ENAMETOOLONG, why, len);
	sp->magic = false;
	sp->dirfd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sp->dirfd < 0 || fstat(sp->dirfd, &st))
		goto fail;
	trusted = owned_by_us(&st);
	for (;;) {
		size_t n;
		bool last;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n) {
			strcpy(sp->last, ".");
			return 0;
		}
		if (n >= sizeof(comp)) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		while (*p == '/')
			p++;
		last = !*p;
		fd = openat(sp->dirfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && last) {
			strcpy(sp->last, comp);
			return 0;
		}
		if (fd < 0 || fstat(fd, &st)) {
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		if (S_ISDIR(st.st_mode)) {
			trusted = trusted && owned_by_us(&st);
			close(sp->dirfd);
			sp->dirfd = fd;
			continue;
		}
		if (!S_ISLNK(st.st_mode)) {
			close(fd);
			if (last) {
				strcpy(sp->last, comp);
				return 0;
			}
			errno = ENOTDIR;
			goto fail;
		}
		if (read_link(fd, &st, comp, trusted, target, sizeof(target), why, len)) {
			close(fd);
			close(sp->dirfd);
			return -1;
		}
		close(fd);
		/* /proc/self/fd/N names an open file (a pipe, a deleted
		 * file), not a path: as the last component the kernel
		 * follows it; before, its text is what a path is. */
		if (last && on_procfs(sp->dirfd)) {
			strcpy(sp->last, comp);
			sp->magic = true;
			return 0;
		}
		if (++links > LINKS_MAX) {
			errno = ELOOP;
			goto fail;
		}
		/* The rest of the path after the link's text, in place. */
		n = strlen(target);
		if (n + 1 + strlen(p) + 1 > sizeof(rest)) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memmove(rest + n + 1, p, strlen(p) + 1);
		memcpy(rest, target, n);
		rest[n] = '/';
		p = rest;
		if (target[0] == '/') {
			close(sp->dirfd);
			sp->dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (sp->dirfd < 0)
				return safepath_fail(errno, why, len);
		}
	}
fail:
	{
		int err = errno;

		if (sp->dirfd >= 0)
			close(sp->dirfd);
		return safepath_fail(err, why, len);
	}
}

int safepath_resolve(const char *path, struct safepath *sp, char *why, size_t len)
{
	if (!*path)
		return safepath_fail(ENOENT, why, len);
	if (!resolve_fast(path, sp))
		return 0;
	return resolve_walk(path, sp, why, len);
}

int safepath_open(const char *path, int flags, mode_t mode, bool *created,
		  char *why, size_t len)
{
	bool made = false;
	struct safepath sp;
	int fd = -1;

	/* Three rounds: another process may make, remove or replace the
	 * last component in between. */
	for (int round = 0; round < 3; round++) {
		int plain = (flags & ~O_CREAT) | O_NOFOLLOW;

		if (safepath_resolve(path, &sp, why, len))
			return -1;
		if (sp.magic)
			plain &= ~O_NOFOLLOW;
		fd = openat(sp.dirfd, sp.last, plain);
		if (fd < 0 && errno == ENOENT && (flags & O_CREAT)) {
			const char *pseudo = safepath_pseudo_fs(sp.dirfd);

			if (pseudo) {
				close(sp.dirfd);
				return safepath_refuse(why, len, "refusing to make a file in %s", pseudo);
			}
			fd = openat(sp.dirfd, sp.last, plain | O_CREAT | O_EXCL, mode);
			made = fd >= 0;
		}
		close(sp.dirfd);
		if (fd >= 0 || (errno != EEXIST && errno != ELOOP))
			break;
	}
	if (created)
		*created = made;
	if (fd < 0)
		return safepath_fail(errno, why, len);
	return fd;
}

int safepath_open_input(const char *path, bool fifo, char *why, size_t len)
{
	int fd = safepath_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0,
			       NULL, why, len);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		int err = errno;

		close(fd);
		return safepath_fail(err, why, len);
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return safepath_refuse(why, len, "a directory, not a file");
	}
	if (!S_ISREG(st.st_mode) &&
	    !(fifo && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) && st.st_uid == geteuid())) {
		close(fd);
		return safepath_refuse(why, len, "%s, not a regular file",
			      S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ?
			      "a character device" : S_ISBLK(st.st_mode) ? "a block device" :
			      "a socket");
	}
	/* O_NONBLOCK was for the open alone. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		int err = errno;

		close(fd);
		return safepath_fail(err, why, len);
	}
	return fd;
}

const char *safepath_pseudo_fs(int fd)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} pseudo[] = {
		{ PROC_SUPER_MAGIC, "procfs" },
		{ SYSFS_MAGIC, "sysfs" },
		{ DEBUGFS_MAGIC, "debugfs" },
		{ TRACEFS_MAGIC, "tracefs" },
		{ CGROUP_SUPER_MAGIC, "cgroupfs" },
		{ CGROUP2_SUPER_MAGIC, "cgroup2" },
		{ 0x62656570, "configfs" },	/* CONFIGFS_MAGIC, not in uapi */
		{ SECURITYFS_MAGIC, "securityfs" },
		{ BPF_FS_MAGIC, "bpffs" },
		{ EFIVARFS_MAGIC, "efivarfs" },
		{ PSTOREFS_MAGIC, "pstore" },
		{ SELINUX_MAGIC, "selinuxfs" },
		{ SMACK_MAGIC, "smackfs" },
		{ 0x42494e4d, "binfmt_misc" },	/* BINFMTFS_MAGIC */
		{ 0x65735543, "fusectl" },	/* FUSE_CTL_SUPER_MAGIC */
		{ 0x19800202, "mqueue" },	/* MQUEUE_MAGIC */
	};
	struct stat st, dev;
	struct statfs fs;

	if (fstatfs(fd, &fs))
		return NULL;
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++) {
		if ((unsigned long)fs.f_type == pseudo[i].magic)
			return pseudo[i].name;
	}
	/* devtmpfs says it is tmpfs; a regular file on the file system
	 * mounted at /dev (not /dev/shm, a mount of its own) is one a
	 * mistyped device name made. */
	if (!fstat(fd, &st) && !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode) &&
	    !stat("/dev", &dev) && st.st_dev == dev.st_dev) {
		struct stat root;

		if (!stat("/", &root) && root.st_dev != dev.st_dev)
			return "the /dev file system";
	}
	return NULL;
}
