// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "lib/devices.h"
#include "lib/vec.h"

static int read_u32(const char *path, __u32 *v)
{
	FILE *f = fopen(path, "r");
	unsigned int x;
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%u", &x) == 1;
	fclose(f);
	if (!ok)
		return -EINVAL;
	*v = x;
	return 0;
}

/* The first word of the file at `path` into buf; "" if unreadable. */
static void read_word(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char fmt[16];

	*buf = '\0';
	snprintf(fmt, sizeof(fmt), "%%%zus", len - 1);
	if (f && fscanf(f, fmt, buf) != 1)
		*buf = '\0';
	if (f)
		fclose(f);
}

int dev_lookup(__u32 dev, struct dev_info *out)
{
	char link[PATH_MAX], path[PATH_MAX], *base;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	out->dev = dev;
	snprintf(out->name, sizeof(out->name), "%u:%u", kdev_major(dev),
		 kdev_minor(dev));
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", kdev_major(dev),
		 kdev_minor(dev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (strlen(base) >= sizeof(out->name))
		return -ENAMETOOLONG;
	strcpy(out->name, base);

	/* A partition's sysfs directory sits inside its disk's. */
	out->disk = dev;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition",
		 kdev_major(dev), kdev_minor(dev));
	if (!access(path, F_OK)) {
		unsigned int ma, mi;
		FILE *f;

		strcpy(strrchr(path, '/') + 1, "../dev");
		f = fopen(path, "r");
		if (f && fscanf(f, "%u:%u", &ma, &mi) == 2)
			out->disk = kdev_make(ma, mi);
		if (f)
			fclose(f);
	}

	/* A partition has no queue/ of its own: its disk's is one level up. */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/logical_block_size",
		 kdev_major(dev), kdev_minor(dev));
	if (access(path, R_OK))
		snprintf(path, sizeof(path),
			 "/sys/dev/block/%u:%u/../queue/logical_block_size",
			 kdev_major(dev), kdev_minor(dev));
	read_u32(path, &out->logical_bs);
	strcpy(strrchr(path, '/') + 1, "physical_block_size");
	read_u32(path, &out->physical_bs);
	/* A zoned disk's zone size is its chunk_sectors (the kernel's
	 * Documentation/ABI/stable/sysfs-block). */
	strcpy(strrchr(path, '/') + 1, "zoned");
	read_word(path, out->zoned, sizeof(out->zoned));
	if (*out->zoned && strcmp(out->zoned, "none")) {
		__u32 chunk = 0;

		strcpy(strrchr(path, '/') + 1, "chunk_sectors");
		read_u32(path, &chunk);
		out->zone_bytes = (__u64)chunk * 512;
	}
	/* A disk with a queue/ but no mq/ beside it takes bios straight from
	 * submit_bio(): its I/O never becomes a request (zram, dm, md, NVMe
	 * multipath heads). */
	*strrchr(path, '/') = '\0';
	if (!access(path, F_OK)) {
		strcat(path, "/../mq");
		out->bio_based = access(path, F_OK) != 0;
	}
	return 0;
}

#define DEV_CACHE 64

/* Per thread: snoop's consumers name devices in parallel. */
static __thread struct dev_info cache[DEV_CACHE];
static __thread int ncache;

const struct dev_info *dev_get(__u32 dev)
{
	struct dev_info *d;

	for (int i = 0; i < ncache; i++) {
		if (cache[i].dev == dev)
			return &cache[i];
	}
	/* Full: overwrite the slot `dev` hashes to; looking a disk up again
	 * is cheap, and this many disks in one trace is rare. */
	d = &cache[ncache < DEV_CACHE ? (unsigned int)ncache++ : dev % DEV_CACHE];
	dev_lookup(dev, d);
	return d;
}

const char *dev_name(__u32 dev)
{
	return dev_get(dev)->name;
}

int dev_parse(const char *s, __u32 *dev)
{
	unsigned int ma, mi;
	char path[PATH_MAX], extra;
	struct stat st;
	FILE *f;
	int ok;

	if (sscanf(s, "%u:%u%c", &ma, &mi, &extra) == 2) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", ma, mi);
		if (access(path, F_OK))
			return -ENODEV;
		*dev = kdev_make(ma, mi);
		return 0;
	}
	if (s[0] == '/') {
		if (stat(s, &st))
			return -errno;
		if (!S_ISBLK(st.st_mode))
			return -ENOTBLK;
		*dev = kdev_make(major(st.st_rdev), minor(st.st_rdev));
		return 0;
	}
	if (strchr(s, '/') || strlen(s) >= DEV_NAME_LEN)
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", s);
	f = fopen(path, "r");
	if (!f)
		return -ENODEV;
	ok = fscanf(f, "%u:%u", &ma, &mi) == 2;
	fclose(f);
	if (!ok)
		return -ENODEV;
	*dev = kdev_make(ma, mi);
	return 0;
}

int sysfs_u64s(const char *path, __u64 *v, int n)
{
	FILE *f = fopen(path, "re");
	int k = 0;

	if (!f)
		return -errno;
	while (k < n && fscanf(f, "%llu", (unsigned long long *)&v[k]) == 1)
		k++;
	fclose(f);
	return k == n ? 0 : -EINVAL;
}

int dev_sysfs_u64s(__u32 dev, const char *file, __u64 *v, int n)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", kdev_major(dev),
		 kdev_minor(dev), file);
	return sysfs_u64s(path, v, n);
}

static int by_dev(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

int dev_members(__u32 dev, __u32 *out, int max)
{
	char path[64];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/slaves", kdev_major(dev),
		 kdev_minor(dev));
	d = opendir(path);
	if (!d)
		return 0;
	while (n < max && (e = readdir(d)))
		if (e->d_name[0] != '.' && !dev_parse(e->d_name, &out[n]))
			n++;
	closedir(d);
	vec_sort(out, n, sizeof(*out), by_dev);
	return n;
}

/* The first entry of directory `dir`, in name order, that is a symlink to
 * the node /dev/`name`: 0 and its name in buf, or -ENOENT. */
static int link_to(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct dirent **v;
	int n, found = -ENOENT;

	n = scandir(dir, &v, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *t;
		ssize_t k;

		snprintf(path, sizeof(path), "%s/%s", dir, v[i]->d_name);
		k = readlink(path, target, sizeof(target) - 1);
		if (found && k > 0) {
			target[k] = '\0';
			t = strrchr(target, '/');
			if (!strcmp(t ? t + 1 : target, name)) {
				snprintf(buf, len, "%s", v[i]->d_name);
				found = 0;
			}
		}
		free(v[i]);
	}
	if (n >= 0)
		free(v);
	return found;
}

void dev_stable_name(__u32 dev, char *buf, size_t len)
{
	char path[96];
	struct dev_info info;
	FILE *f;

	dev_lookup(dev, &info);
	snprintf(buf, len, "%s", info.name);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/dm/name", kdev_major(dev),
		 kdev_minor(dev));
	f = fopen(path, "re");
	if (f) {
		if (fgets(buf, len, f))
			buf[strcspn(buf, "\n")] = '\0';
		else
			snprintf(buf, len, "%s", info.name);
		fclose(f);
		return;
	}
	if (!link_to("/dev/md", info.name, buf, len))
		return;
	link_to("/dev/disk/by-id", info.name, buf, len);
}

#define STACK_MEMBERS 8

struct stack_walk {
	const __u32 *devs;
	int n, m;
	__u32 (*members)[STACK_MEMBERS];
	int *nmembers, *order, *depth;
	bool *done;
};

static bool stack_member(const struct stack_walk *w, __u32 dev)
{
	for (int i = 0; i < w->n; i++)
		for (int k = 0; k < w->nmembers[i]; k++)
			if (w->members[i][k] == dev)
				return true;
	return false;
}

static void stack_put(struct stack_walk *w, int i, int depth)
{
	if (w->done[i])
		return;
	w->done[i] = true;
	w->order[w->m] = i;
	w->depth[w->m++] = depth;
	for (int k = 0; k < w->nmembers[i]; k++)
		for (int j = 0; j < w->n; j++)
			if (w->devs[j] == w->members[i][k])
				stack_put(w, j, depth + 1);
}

int dev_stack_order(const __u32 *devs, int n, int *order, int *depth)
{
	struct stack_walk w = {
		.devs = devs, .n = n, .order = order, .depth = depth,
		.members = calloc(n ? n : 1, sizeof(*w.members)),
		.nmembers = calloc(n ? n : 1, sizeof(int)),
		.done = calloc(n ? n : 1, sizeof(bool)),
	};

	if (!w.members || !w.nmembers || !w.done) {
		free(w.members);
		free(w.nmembers);
		free(w.done);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		w.nmembers[i] = dev_members(devs[i], w.members[i], STACK_MEMBERS);
	for (int i = 0; i < n; i++)
		if (!stack_member(&w, devs[i]))
			stack_put(&w, i, 0);
	/* sysfs has no cycles; were there one, its devices still show. */
	for (int i = 0; i < n; i++)
		stack_put(&w, i, 0);
	free(w.members);
	free(w.nmembers);
	free(w.done);
	return 0;
}

int dev_stack_sort(void *base, int n, size_t size, size_t dev_off, size_t depth_off)
{
	char *v = base, *out = malloc(n ? n * size : 1);
	int *order = calloc(n ? n : 1, sizeof(int)), *depth = calloc(n ? n : 1, sizeof(int));
	__u32 *devs = calloc(n ? n : 1, sizeof(__u32));
	int err = -ENOMEM;

	if (out && order && depth && devs) {
		for (int i = 0; i < n; i++)
			memcpy(&devs[i], v + i * size + dev_off, sizeof(__u32));
		err = dev_stack_order(devs, n, order, depth);
	}
	if (!err && n) {	/* base may be NULL when n is 0 */
		for (int k = 0; k < n; k++) {
			memcpy(out + k * size, v + order[k] * size, size);
			memcpy(out + k * size + depth_off, &depth[k], sizeof(int));
		}
		memcpy(v, out, n * size);
	}
	free(out);
	free(order);
	free(depth);
	free(devs);
	return err;
}
