/* SPDX-License-Identifier: GPL-2.0 */
/* cgroup ids (the cgroup directory's inode number) to paths. */
#ifndef IOLENS_CGROUPS_H
#define IOLENS_CGROUPS_H

#include <linux/types.h>

/* Path of cgroup `id` in hierarchy `hier` (0 = cgroup2, else a v1
 * hierarchy number as in /proc/cgroups), cached: "/system.slice/x.service"
 * for cgroup2, "blkio:/x" for v1.  NULL when the id is 0, the hierarchy is
 * not mounted, or the cgroup no longer exists. */
const char *cgroup_path(unsigned int hier, __u64 id);

#endif
