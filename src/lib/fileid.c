// SPDX-License-Identifier: GPL-2.0
/*
 * Paths of files named by inode.  The kernel side of a block request can
 * name its file only by numbers (filesystem, inode, generation): a path
 * there would mean walking dentries in BPF on every request.  Here the
 * numbers make a file handle of the shape ext4, xfs and most filesystems
 * export (FILEID_INO32_GEN; xfs's 64-bit variant for larger inodes),
 * opened with open_by_handle_at() on a mount of that filesystem, and the
 * path is read back from /proc/self/fd: the one the kernel's d_path()
 * gives, in this mount namespace.  Each file is asked once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "lib/clock.h"
#include "lib/devices.h"
#include "lib/fileid.h"
#include "lib/vec.h"

/* include/linux/exportfs.h: not in the uapi headers. */
#define FILEID_INO32_GEN	1
/* fs/xfs/xfs_export.h: FILEID_INO32_GEN | XFS_FILEID_TYPE_64FLAG */
#define FILEID_XFS_INO64_GEN	0x81

struct fileid {
	__u64 ino;
	__u32 dev, gen;
	char *path;		/* NULL: asked, none known */
	bool used;
};

/* Whether a device holds a mounted filesystem, as last looked at
 * (`looked`; offline, as fileid_set_dev() said). */
struct mnt {
	__u32 dev;
	bool mounted;
	__u64 looked;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct fileid *tab;	/* open addressing, power of two */
static size_t tab_cap, tab_n;
static struct mnt *mnts;
static int nmnts;
static bool offline;		/* fileid_offline() */
/* A trace names any number of files: their paths are kept up to this. */
#define FILEID_PATH_BYTES	(16 << 20)
static size_t path_bytes;
static __u64 unnamed;		/* files fileid_set() had no room for */

#define MOUNT_RETRY_NS	1000000000ULL
/* Devices kept at most (a trace file may name any number). */
#define MOUNTS_MAX	1024

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

/*
 * A mount of filesystem `dev`, opened for reading (open_by_handle_at()
 * takes no O_PATH descriptor: EBADF on 6.18): one of its whole root where
 * there is one (a bind mount of a folder shows only what is below it),
 * else the first.  -1 if it is not mounted here.  Closed once used: an
 * open mount point would keep its filesystem from being unmounted.
 */
static int mount_open(__u32 dev)
{
	char line[2 * PATH_MAX + 256], root[PATH_MAX], mnt[PATH_MAX], best[PATH_MAX] = "";
	FILE *f = fopen("/proc/self/mountinfo", "re");
	unsigned int ma, mi;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &ma, &mi, root, mnt) != 4 ||
		    kdev_make(ma, mi) != dev)
			continue;
		unescape(mnt);
		if (!best[0] || !strcmp(root, "/"))
			snprintf(best, sizeof(best), "%s", mnt);
		if (!strcmp(root, "/"))
			break;
	}
	fclose(f);
	return best[0] ? open(best, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC) : -1;
}

static struct mnt *mnt_find(__u32 dev)
{
	for (int i = 0; i < nmnts; i++)
		if (mnts[i].dev == dev)
			return &mnts[i];
	return NULL;
}

/* Whether `dev` is mounted here, looked at again after MOUNT_RETRY_NS. */
static bool mounted(__u32 dev)
{
	struct mnt *m = mnt_find(dev);
	__u64 now = mono_ns();
	int fd;

	if (m && (offline || now < m->looked + MOUNT_RETRY_NS))
		return m->mounted;
	if (offline || (!m && !(m = vec_add(&mnts, &nmnts, sizeof(*m)))))
		return false;
	fd = mount_open(dev);
	if (fd >= 0)
		close(fd);
	*m = (struct mnt){ .dev = dev, .mounted = fd >= 0, .looked = now };
	return m->mounted;
}

/* The path by handle, malloc'd; NULL if none. */
static char *path_of(__u32 dev, __u64 ino, __u32 gen)
{
	union {
		struct file_handle fh;
		char room[sizeof(struct file_handle) + 16];
	} h;
	char link[64], path[PATH_MAX];
	struct stat st;
	__u32 ino32 = ino;
	int mfd, fd;
	ssize_t n;

	if (offline || (mfd = mount_open(dev)) < 0)
		return NULL;
	if (ino <= UINT32_MAX) {
		h.fh.handle_type = FILEID_INO32_GEN;
		h.fh.handle_bytes = 8;
		memcpy(h.fh.f_handle, &ino32, 4);
		memcpy(h.fh.f_handle + 4, &gen, 4);
	} else {
		/* struct xfs_fid64, packed: the inode, then the generation. */
		h.fh.handle_type = FILEID_XFS_INO64_GEN;
		h.fh.handle_bytes = 12;
		memcpy(h.fh.f_handle, &ino, 8);
		memcpy(h.fh.f_handle + 8, &gen, 4);
	}
	fd = open_by_handle_at(mfd, &h.fh, O_PATH | O_CLOEXEC);
	close(mfd);
	if (fd < 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	path[n] = 0;
	/* The path must lead to the file: one outside the folder a bind
	 * mount shows reads as if it were inside.  A deleted file's leads
	 * nowhere; the kernel says so. */
	if (!(n > 10 && !strcmp(path + n - 10, " (deleted)")) &&
	    (stat(path, &st) || st.st_ino != ino ||
	     st.st_dev != makedev(kdev_major(dev), kdev_minor(dev))))
		return NULL;
	return strdup(path);
}

static size_t slot_of(__u32 dev, __u64 ino, __u32 gen)
{
	return (fileid_hash(dev, ino, gen) >> 32) & (tab_cap - 1);
}

static struct fileid *find(__u32 dev, __u64 ino, __u32 gen)
{
	for (size_t i = slot_of(dev, ino, gen);; i = (i + 1) & (tab_cap - 1)) {
		struct fileid *e = &tab[i];

		if (!e->used || (e->dev == dev && e->ino == ino && e->gen == gen))
			return e;
	}
}

/* Twice the room; false without memory (the table stays). */
static bool grow(void)
{
	struct fileid *old = tab;
	size_t cap = tab_cap;

	tab_cap = cap ? 2 * cap : 1024;
	tab = calloc(tab_cap, sizeof(*tab));
	if (!tab) {
		tab = old;
		tab_cap = cap;
		return false;
	}
	for (size_t i = 0; i < cap; i++)
		if (old[i].used)
			*find(old[i].dev, old[i].ino, old[i].gen) = old[i];
	free(old);
	return true;
}

/* The entry of a file, made (its path asked of the kernel) if new; NULL
 * if the table is full.  Under the lock. */
static struct fileid *entry(__u32 dev, __u64 ino, __u32 gen)
{
	struct fileid *e = tab_cap ? find(dev, ino, gen) : NULL;

	if (e && e->used)
		return e;
	if (tab_n >= IOLENS_FILEID_MAX || ((tab_n + 1) * 2 > tab_cap && !grow()))
		return NULL;
	e = find(dev, ino, gen);
	*e = (struct fileid){ .dev = dev, .ino = ino, .gen = gen, .used = true,
			      .path = path_of(dev, ino, gen) };
	tab_n++;
	return e;
}

const char *fileid_path(__u32 dev, __u64 ino, __u32 gen)
{
	struct fileid *e;
	const char *path;

	pthread_mutex_lock(&lock);
	e = entry(dev, ino, gen);
	path = e ? e->path : NULL;
	pthread_mutex_unlock(&lock);
	return path;
}

void fileid_offline(void)
{
	pthread_mutex_lock(&lock);
	offline = true;
	pthread_mutex_unlock(&lock);
}

int fileid_set(__u32 dev, __u64 ino, __u32 gen, const char *path)
{
	size_t len = path ? strlen(path) + 1 : 0;
	struct fileid *e;
	int err = 0;

	pthread_mutex_lock(&lock);
	/* Past IOLENS_FILEID_MAX files or FILEID_PATH_BYTES of their paths
	 * a file is not kept: it shows by inode. */
	if (tab_n < IOLENS_FILEID_MAX && path_bytes + len <= FILEID_PATH_BYTES) {
		e = entry(dev, ino, gen);
		/* The first path told stays: a caller may hold it. */
		if (e && path && *path && !e->path) {
			e->path = strdup(path);
			path_bytes += len;
		}
		if (!e || (path && *path && !e->path))
			err = -ENOMEM;
	} else {
		unnamed++;
	}
	pthread_mutex_unlock(&lock);
	return err;
}

__u64 fileid_unnamed(void)
{
	__u64 n;

	pthread_mutex_lock(&lock);
	n = unnamed;
	pthread_mutex_unlock(&lock);
	return n;
}

int fileid_set_dev(__u32 dev, bool is_mounted)
{
	struct mnt *m;
	int err = 0;

	pthread_mutex_lock(&lock);
	m = mnt_find(dev);
	/* Past MOUNTS_MAX a device is not kept: it shows as "device". */
	if (!m && nmnts < MOUNTS_MAX && !(m = vec_add(&mnts, &nmnts, sizeof(*m))))
		err = -ENOMEM;
	if (m)
		*m = (struct mnt){ .dev = dev, .mounted = is_mounted };
	pthread_mutex_unlock(&lock);
	return err;
}

bool fileid_dev_mounted(__u32 dev)
{
	bool m;

	pthread_mutex_lock(&lock);
	m = mounted(dev);
	pthread_mutex_unlock(&lock);
	return m;
}
