/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files named by the kernel's numbers (a block request's file: struct
 * iolens_rq's fdev, ino, fgen) to their paths, for root.  Thread-safe.
 */
#ifndef IOLENS_FILEID_H
#define IOLENS_FILEID_H

#include <stdbool.h>
#include <linux/types.h>

/* The path of inode `ino` of generation `gen` on filesystem `kdev`
 * (kernel dev_t): opened by file handle on one of its mounts, as NFS
 * would, and read back.  Asked of the kernel once per file and kept; a
 * file since deleted ends in " (deleted)".  NULL where no path is known:
 * not mounted here, a filesystem whose handles are not of this shape
 * (btrfs), a file gone, or the table full (IOLENS_FILEID_MAX). */
const char *fileid_path(__u32 kdev, __u64 ino, __u32 gen);

/* A file's numbers mixed, for the tables keyed by file. */
static inline __u64 fileid_hash(__u32 kdev, __u64 ino, __u32 gen)
{
	return (ino ^ (__u64)kdev << 32 ^ gen) * 0x9e3779b97f4a7c15ULL;
}

/* Files whose paths are kept at most. */
#define IOLENS_FILEID_MAX (1 << 16)

/* Whether device `kdev` (kernel dev_t) holds a mounted filesystem: its
 * page cache is then that filesystem's metadata. */
bool fileid_dev_mounted(__u32 kdev);

/* For a trace file, read elsewhere or later: the kernel is asked nothing
 * from now on, and only what fileid_set() and fileid_set_dev() told is
 * known. */
void fileid_offline(void);

/* The path of a file (NULL or "": none known); 0 or -ENOMEM.  A trace may
 * name any number: past IOLENS_FILEID_MAX files or 16 MiB of paths the
 * others show by inode, counted by fileid_unnamed(). */
int fileid_set(__u32 kdev, __u64 ino, __u32 gen, const char *path);
__u64 fileid_unnamed(void);

/* Whether a device held a mounted filesystem; 0 or -ENOMEM. */
int fileid_set_dev(__u32 kdev, bool mounted);

#endif
