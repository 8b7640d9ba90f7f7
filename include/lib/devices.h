/* SPDX-License-Identifier: GPL-2.0 */
/* Block devices by kernel dev_t (major << 20 | minor, as BPF sees it). */
#ifndef IOLENS_DEVICES_H
#define IOLENS_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define DEV_NAME_LEN 32

static inline unsigned int kdev_major(__u32 dev) { return dev >> 20; }
static inline unsigned int kdev_minor(__u32 dev) { return dev & ((1U << 20) - 1); }
static inline __u32 kdev_make(unsigned int ma, unsigned int mi) { return ma << 20 | mi; }

struct dev_info {
	__u32 dev;
	char name[DEV_NAME_LEN];	/* "loop0", or "MAJ:MIN" when unknown */
	__u32 logical_bs;		/* bytes; 0 unknown */
	__u32 physical_bs;		/* bytes; 0 unknown */
	__u32 disk;			/* whole disk holding it: itself, or a
					 * partition's disk */
	bool bio_based;			/* its disk's I/O never becomes a
					 * request (block_rq_* never fire) */
	char zoned[16];			/* queue/zoned: "host-managed",
					 * "host-aware", "none", "" unknown */
	__u64 zone_bytes;		/* a zoned disk's zone size; else 0 */
};

/* Reads /sys/dev/block/MAJ:MIN; 0 on success, -errno if there is no such
 * device (then `out` still holds a "MAJ:MIN" name). */
int dev_lookup(__u32 dev, struct dev_info *out);

/* Cached description of a device seen in events (named "MAJ:MIN" if it is
 * gone); valid until this thread's next call. */
const struct dev_info *dev_get(__u32 dev);
/* dev_get(dev)->name */
const char *dev_name(__u32 dev);

/* Reads n whitespace-separated numbers from the file `path` (a sysfs
 * attribute): 0, -errno if it cannot be opened, -EINVAL if short. */
int sysfs_u64s(const char *path, __u64 *v, int n);

/* The same for the attribute `file` of /sys/dev/block/MAJ:MIN of `dev`
 * ("stat", "inflight", "queue/optimal_io_size"). */
int dev_sysfs_u64s(__u32 dev, const char *file, __u64 *v, int n);

/* The name a person knows `dev` by across reboots, as iostat -N and
 * node_exporter give it: a device-mapper device's (its /dev/mapper name:
 * LVM's vg-lv, a dm-crypt mapping), an md array's (/dev/md/NAME), else the
 * first of its /dev/disk/by-id links; its kernel name if it has none. */
void dev_stable_name(__u32 dev, char *buf, size_t len);

/* The devices a stacked one (dm, md) is built on, its sysfs slaves/, at
 * most `max` of them in dev_t order: how many (0 for a plain disk). */
int dev_members(__u32 dev, __u32 *out, int max);

/* The order to show `n` devices in as stacks: each stacked device (dm,
 * md) followed by those of `devs` under it, one level deeper; a device
 * under two shows under the first.  order[k] is an index into devs,
 * depth[k] its level.  0 or -ENOMEM. */
int dev_stack_order(const __u32 *devs, int n, int *order, int *depth);

/* Puts `n` elements of `size` bytes at `base` in that order: each holds
 * its dev_t (__u32) at `dev_off`, and gets its level in the int at
 * `depth_off`.  0 or -ENOMEM. */
int dev_stack_sort(void *base, int n, size_t size, size_t dev_off, size_t depth_off);

/* Parses "loop0", "/dev/loop0" or "7:0" into a dev_t of an existing whole
 * disk or partition; 0 on success, -errno otherwise. */
int dev_parse(const char *s, __u32 *dev);

#endif
