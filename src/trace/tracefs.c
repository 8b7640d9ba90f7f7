// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include "trace/tracefs.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC	0x74726163
#endif

/* libbpf 1.1 takes /sys/kernel/debug/tracing when that path exists (an
 * automount of tracefs inside a mounted debugfs), else TRACEFS_DIR. */
#define DEBUGFS_TRACING	"/sys/kernel/debug/tracing"

static bool is_tracefs(const char *path)
{
	struct statfs sfs;

	return !statfs(path, &sfs) && (unsigned long)sfs.f_type == TRACEFS_MAGIC;
}

const char *tracefs_dir(void)
{
	return access(DEBUGFS_TRACING, F_OK) ? TRACEFS_DIR : DEBUGFS_TRACING;
}

int tracefs_ensure(bool *mounted_now)
{
	if (mounted_now)
		*mounted_now = false;
	if (!access(DEBUGFS_TRACING, F_OK) || is_tracefs(TRACEFS_DIR))
		return 0;
	/* The kernel makes the mount point whenever it has tracefs. */
	if (access(TRACEFS_DIR, F_OK))
		return -ENODEV;
	if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL))
		return -errno;
	if (mounted_now)
		*mounted_now = true;
	return 0;
}
