/* SPDX-License-Identifier: GPL-2.0 */
/* serve's counts from the kernel's own accounting: each whole disk's
 * /proc/diskstats, as differences from one read to the next. */
#ifndef IOLENS_SERVE_DISKS_H
#define IOLENS_SERVE_DISKS_H

#include <linux/types.h>
#include "bpf/agg.h"
#include "lib/devices.h"

/* What a disk did between two reads (since serve started, at the first
 * read that has it), and its requests in flight at the last. */
struct disk_delta {
	__u32 dev;
	char name[DEV_NAME_LEN];
	__u64 ios[IOLENS_SG_NR], bytes[IOLENS_SG_NR], merges[IOLENS_SG_NR];
	__u64 io_ticks_ns, weighted_ns;
	__u64 inflight;
};

struct disks;

/* The disks of `devs` (whole disks or partitions: their disks), or every
 * disk when ndev is 0.  NULL without memory. */
struct disks *disks_new(const __u32 *devs, int ndev);
void disks_free(struct disks *k);

/*
 * Reads /proc/diskstats: into *out (malloc'd) one entry per whole disk
 * wanted that did I/O since boot.  The first read only takes each disk's
 * counts as the start (its entries are all 0); a disk that appears later
 * counts from 0, as the kernel does; one whose counts went back (made
 * anew under the same number) counts from 0 again.  How many, or -errno.
 */
int disks_read(struct disks *k, struct disk_delta **out);

#endif
