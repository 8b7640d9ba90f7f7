/* SPDX-License-Identifier: GPL-2.0 */
/* The fields of /proc/PID/stat (or /proc/PID/task/TID/stat) iolens reads. */
#ifndef IOLENS_PROCSTAT_H
#define IOLENS_PROCSTAT_H

#include <linux/types.h>
#include "bpf/common.h"

struct procstat {
	char comm[IOLENS_COMM_LEN];
	char state;		/* R, S, D, Z, ... */
	__u32 ppid;
	__u64 flags;		/* the kernel's PF_* */
	__u64 starttime;	/* clock ticks after boot */
	__u64 blkio_ticks;	/* delayacct_blkio_ticks: clock ticks waited
				 * for block I/O (0 without delay accounting) */
};

/* 0, or -1 if the task is gone or the file is not one of those. */
int procstat_read(const char *path, struct procstat *ps);

/* The effective uid of the task of `status_path` (/proc/PID/status or
 * /proc/PID/task/TID/status): 0, or -1 if it is gone. */
int procstat_euid(const char *status_path, __u32 *uid);

#endif
