// SPDX-License-Identifier: GPL-2.0
/*
 * Partition alignment.  A partition whose start is not a multiple of the
 * physical block puts every filesystem block across two of them: each
 * write of one block becomes a read-modify-write of two inside the device.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <blkid/blkid.h>
#include "lib/devices.h"
#include "check/partalign.h"
#include "lib/vec.h"

/* What an image file is judged against without --align: the physical
 * block of 512e and 4Kn disks, the strictest common one. */
#define IMAGE_BASIS 4096

/* One number from the attribute `file` of the sysfs directory `dir`. */
static int read_u64(const char *dir, const char *file, __u64 *v)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return sysfs_u64s(path, v, 1);
}

static int add_part(struct partalign *pa, int number, __u64 start, __u64 size)
{
	struct partalign_part *p;

	if (pa->nparts == PARTALIGN_MAX)
		return -E2BIG;
	p = &pa->parts[pa->nparts++];
	p->number = number;
	p->start = start;
	p->size = size;
	return 0;
}

/* The partitions the kernel parsed: /sys/dev/block/M:m/<part>/{partition,
 * start,size}, in 512-byte sectors whatever the logical block size. */
static int read_sysfs(struct partalign *pa, __u32 dev)
{
	char dir[128], sub[512];
	struct dirent *e;
	DIR *d;
	int err = 0;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", kdev_major(dev),
		 kdev_minor(dev));
	d = opendir(dir);
	if (!d)
		return -errno;
	while (!err && (e = readdir(d))) {
		__u64 no, start, size;

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (read_u64(sub, "partition", &no) || read_u64(sub, "start", &start) ||
		    read_u64(sub, "size", &size))
			continue;
		err = add_part(pa, (int)no, start * 512, size * 512);
	}
	closedir(d);
	return err;
}

/* The table itself: for images, and for disks on kernels built without
 * the partition parsers (these machines' has none). */
static int read_table(struct partalign *pa, const char **err)
{
	blkid_probe pr = blkid_new_probe_from_filename(pa->path);
	blkid_partlist ls;
	blkid_parttable tab;
	int n, rc = 0;

	if (!pr) {
		*err = "cannot open it for reading";
		return -errno ?: -EIO;
	}
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	if (blkid_do_fullprobe(pr) < 0) {
		*err = "libblkid could not read it";
		blkid_free_probe(pr);
		return -EIO;
	}
	ls = blkid_probe_get_partitions(pr);
	n = ls ? blkid_partlist_numof_partitions(ls) : 0;
	tab = ls ? blkid_partlist_get_table(ls) : NULL;
	if (tab)
		snprintf(pa->table, sizeof(pa->table), "%s",
			 blkid_parttable_get_type(tab) ?: "");
	for (int i = 0; i < n && !rc; i++) {
		blkid_partition p = blkid_partlist_get_partition(ls, i);

		/* libblkid counts in 512-byte sectors, as the kernel does. */
		rc = add_part(pa, blkid_partition_get_partno(p),
			      (__u64)blkid_partition_get_start(p) * 512,
			      (__u64)blkid_partition_get_size(p) * 512);
	}
	blkid_free_probe(pr);
	if (rc)
		*err = "too many partitions";
	return rc;
}

/* The disk's optimal I/O size (a RAID stripe, say); 0 if it has none. */
static unsigned int optimal_io(__u32 dev)
{
	__u64 v = 0;

	return dev_sysfs_u64s(dev, "queue/optimal_io_size", &v, 1) ? 0 : (unsigned int)v;
}

static int cmp_start(const void *a, const void *b)
{
	const struct partalign_part *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int partalign_read(const char *path, unsigned int align, struct partalign *pa,
		   const char **err)
{
	struct dev_info di;
	struct stat st;
	int rc = 0;

	memset(pa, 0, sizeof(*pa));
	snprintf(pa->path, sizeof(pa->path), "%s", path);
	if (stat(path, &st)) {
		*err = "no such file or device";
		return -errno;
	}
	if (S_ISBLK(st.st_mode)) {
		__u32 dev = kdev_make(major(st.st_rdev), minor(st.st_rdev));

		if (dev_lookup(dev, &di) || di.disk != dev) {
			*err = "is a partition, not a disk: give its disk";
			return -EINVAL;
		}
		pa->is_blkdev = true;
		pa->lbs = di.logical_bs;
		pa->pbs = di.physical_bs;
		pa->optimal_io = optimal_io(dev);
		rc = read_sysfs(pa, dev);
		pa->source = "sysfs";
		if (!rc && !pa->nparts) {
			pa->source = "libblkid";
			rc = read_table(pa, err);
		} else if (rc) {
			*err = "cannot read its partitions in sysfs";
		}
	} else if (S_ISREG(st.st_mode)) {
		pa->source = "libblkid";
		rc = read_table(pa, err);
	} else {
		*err = "is neither a block device nor a disk image file";
		return -EINVAL;
	}
	if (rc)
		return rc;
	if (align) {
		pa->basis = align;
		pa->basis_from = "--align";
	} else if (pa->pbs) {
		pa->basis = pa->pbs;
		pa->basis_from = "physical block";
	} else {
		pa->basis = IMAGE_BASIS;
		pa->basis_from = "assumed";
	}
	vec_sort(pa->parts, pa->nparts, sizeof(pa->parts[0]), cmp_start);
	for (int i = 0; i < pa->nparts; i++) {
		struct partalign_part *p = &pa->parts[i];

		p->start_ok = p->start % pa->basis == 0;
		p->size_ok = p->size % pa->basis == 0;
		p->opt_ok = !pa->optimal_io || p->start % pa->optimal_io == 0;
	}
	return 0;
}

int partalign_bad(const struct partalign *pa)
{
	int n = 0;

	for (int i = 0; i < pa->nparts; i++)
		n += !pa->parts[i].start_ok;
	return n;
}
