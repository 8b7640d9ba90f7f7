/* SPDX-License-Identifier: GPL-2.0 */
/* Partition alignment: where each partition of a disk or disk image starts
 * and ends against the block sizes that matter for its writes. */
#ifndef IOLENS_PARTALIGN_H
#define IOLENS_PARTALIGN_H

#include <stdbool.h>
#include <linux/types.h>

#define PARTALIGN_MAX 128

struct partalign_part {
	int number;		/* as the table numbers it: 1, 2, ... */
	__u64 start;		/* bytes from the start of the disk */
	__u64 size;		/* bytes */
	bool start_ok;		/* start is a multiple of the basis */
	bool size_ok;		/* so is size */
	bool opt_ok;		/* start is a multiple of optimal_io (if any) */
};

struct partalign {
	char path[256];
	bool is_blkdev;
	const char *source;	/* "sysfs" or "libblkid" */
	char table[16];		/* "gpt", "dos", ... ("" when from sysfs) */
	unsigned int lbs, pbs;	/* the device's; 0 for an image file */
	unsigned int optimal_io;	/* the device's optimal I/O size, 0 none */
	unsigned int basis;	/* what starts are judged against */
	const char *basis_from;	/* "physical block", "--align", "assumed" */
	int nparts;
	struct partalign_part parts[PARTALIGN_MAX];
};

/*
 * Reads the partitions of `path` (a block device or an image file), read
 * only: from sysfs where the kernel parsed the table, else from the table
 * itself with libblkid.  `align` (0: none) replaces the physical block size
 * as the basis; an image file without it is judged against 4096 bytes, the
 * physical block of today's disks, and says so.  Returns 0, or -errno with
 * a reason in `err`.
 */
int partalign_read(const char *path, unsigned int align, struct partalign *pa,
		   const char **err);

/* Partitions misaligned against the basis. */
int partalign_bad(const struct partalign *pa);

#endif
