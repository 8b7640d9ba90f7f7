/* SPDX-License-Identifier: GPL-2.0 */
/* ABI of bpf/check.bpf.c, the probes of `iolens check` and `iolens bench`. */
#ifndef IOLENS_BPF_CHECK_H
#define IOLENS_BPF_CHECK_H

#include "common.h"

enum iolens_check_kind {
	IOLENS_CHECK_WRITE,	/* a data write request, at issue */
	IOLENS_CHECK_RMW_READ,	/* a data read started inside a buffered
				 * write syscall: the page cache filling a
				 * page the write covers only partly */
	IOLENS_CHECK_REFUSED,	/* an O_DIRECT write syscall the kernel
				 * refused with EINVAL (offset, size or
				 * buffer not aligned to the logical block):
				 * no request; dev is sys.bdev */
};

#define IOLENS_CHECK_DEPTH	4	/* path components kept */

/* The write syscall a task was in when it started a request. */
struct iolens_check_sys {
	__s64 pos;		/* its file offset; -1 unknown (writev, write
				 * to an O_APPEND file) */
	__u64 count;		/* its byte count; 0 unknown (the vector
				 * forms) */
	__u64 ino;		/* its file's inode */
	__u32 sdev;		/* that inode's filesystem (kernel dev_t) */
	__s32 fd;		/* -1: not in a write syscall */
	__u8 direct;		/* the file was opened O_DIRECT */
	__u8 pad[3];
	__u32 bdev;		/* the block device written: a device file's
				 * own, else its filesystem's (sdev) */
};

/* The path of that call's file within its filesystem, the last components
 * first (c[0] is the file's): once the process is gone, all there is to
 * find it by.  Apart from the call, which a task keeps while it runs: the
 * name is read only for the requests it starts. */
struct iolens_check_name {
	char c[IOLENS_CHECK_DEPTH][32];
};

/* One event of `iolens check` (ring buffer `check_events`). */
struct iolens_check_event {
	__u64 sector;		/* request start, 512-byte units */
	__u64 page_ino;		/* inode of its first page when that is in a
				 * file's page cache (buffered I/O,
				 * writeback), 0 otherwise */
	__u32 page_sdev;	/* that inode's filesystem */
	__u32 dev;		/* whole disk (kernel dev_t) */
	__u32 bytes;		/* request size */
	__u32 lbs, pbs;		/* the disk's logical and physical block */
	__u32 tgid, tid;	/* submitter when the request started; 0
				 * unknown (started before we attached) */
	__u8 kind;		/* enum iolens_check_kind */
	__u8 pad[3];
	struct iolens_check_sys sys;
	struct iolens_check_name name;	/* of sys's file, when sys.fd >= 0 */
	char comm[IOLENS_COMM_LEN];
};

/* Write syscalls of a process to data files (map `write_calls`, by tgid). */
struct iolens_check_calls {
	__u64 calls;		/* completed */
	__u64 bytes;		/* their positive returns */
	__u64 direct;		/* of calls, to O_DIRECT files */
	char comm[IOLENS_COMM_LEN];	/* at its first call */
};

/* Read-only configuration of bpf/check.bpf.c. */
struct iolens_check_cfg {
	__u32 ndev;
	__u32 dev[IOLENS_MAX_DEV_FILTER];	/* whole disks; ndev 0: all */
};

#endif
