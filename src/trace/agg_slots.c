// SPDX-License-Identifier: GPL-2.0
/* How many device slots the aggregation's maps get (trace/agg_slots.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include "lib/devices.h"
#include "trace/agg_slots.h"

/* Room for devices that appear while we run (a loop device set up later). */
#define SPARE_SLOTS 16

/* Block devices in `dir` (/sys/block, /sys/class/block) that have a
 * size: an unattached loop device or an empty drive does no I/O, and most
 * machines have eight loop devices or more of which few are in use. */
static int count_sized(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	__u64 size;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/size", dir, e->d_name);
		n += sysfs_u64s(path, &size, 1) || size;
	}
	closedir(d);
	return n;
}

/* A power of two (the BPF side masks its hash with nslots - 1). */
int agg_slots_needed(const struct agg_trace_opts *o)
{
	int want, n = 1;

	if (o->ndev && !o->partitions)
		want = 2 * o->ndev;	/* a partition's disk holds one too */
	else	/* whole disks, or every disk and partition */
		want = count_sized(o->partitions ? "/sys/class/block" : "/sys/block") +
		       SPARE_SLOTS;
	while (n < want)
		n <<= 1;
	return n;
}
