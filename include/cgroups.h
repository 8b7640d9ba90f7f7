/* SPDX-License-Identifier: GPL-2.0 */
/* cgroup v2 ids (the cgroup directory's inode number) to paths. */
#ifndef IOLENS_CGROUPS_H
#define IOLENS_CGROUPS_H

#include <linux/types.h>

/* Path relative to the cgroup2 mount ("/system.slice/x.service"), cached;
 * NULL when the id is 0 or no longer exists. */
const char *cgroup_path(__u64 id);

#endif
