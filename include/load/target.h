/* SPDX-License-Identifier: GPL-2.0 */
/* load's own: the file or device a job reads and writes (load_target.c). */
#ifndef IOLENS_LOAD_TARGET_H
#define IOLENS_LOAD_TARGET_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "load/load.h"

struct load_target {
	bool is_blkdev;
	bool writes;
	__u64 dev_size;		/* bytes of the device or the file */
	unsigned int lbs;	/* logical block size; 0 if unknown */
	char lbs_from[64];	/* what lbs is of: "loop0" or "vda" */
	/* A regular file: which one, and where prepare grew it from (its
	 * size before; grown_to == grown_from: not grown). */
	dev_t st_dev;
	ino_t st_ino;
	__u64 grown_from, grown_to;
	/* create_on_open: absent at prepare, made as the job starts (its
	 * identity above set then). */
	bool create_at_open;
};

/*
 * Checks the job's target before anything starts: creates or extends a
 * regular file, refuses a device that is mounted, held or carries a
 * signature when the job writes (unless --allow-destroy), and direct I/O
 * the device cannot take.  Fills in size when it was 0.  Returns 0, or the
 * exit code after printing one line.
 */
int load_target_prepare(struct load_job_opts *o, struct load_target *t);

/* Claims a block device the job writes with an O_EXCL open, kept for the
 * whole run: *fd, or -1 when there is nothing to claim.  0, or after one
 * line 2 (in use: mounted or held) or 1. */
int load_target_claim(const struct load_job_opts *o, const struct load_target *t,
		      int *fd);

/*
 * A job whose file an earlier wave filled (size_at_start), sized as it
 * starts, as fio sizes a job's files then: size is what the file holds past
 * offset, in whole blocks.  0, or after one line an errno.
 */
int load_target_resize(struct load_job_opts *o, struct load_target *t, int fd);

/* Opens the target for one thread: its fd, or -1 with errno and, in why,
 * the reason for one line. */
int load_target_open(const struct load_job_opts *o, const struct load_target *t,
		     char *why, size_t len);

/* A file of create_on_open, made as its job starts: *fd, and the file's
 * identity in t for --unlink.  0, or after one line an errno. */
int load_target_create(const struct load_job_opts *o, struct load_target *t, int *fd);

#endif
