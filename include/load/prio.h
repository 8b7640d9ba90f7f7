/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load's own: fio's I/O priorities (load_prio.c).  prio and prioclass set
 * the job thread's own (ioprio_set(2)); cmdprio_percentage, or
 * cmdprio_bssplit by block size, issue a share of the I/Os at another,
 * carried by each I/O (libaio's IOCB_FLAG_IOPRIO, io_uring's sqe->ioprio),
 * and keep fio's clat per priority.
 */
#ifndef IOLENS_LOAD_PRIO_H
#define IOLENS_LOAD_PRIO_H

#include <stdbool.h>
#include <linux/types.h>
#include "load/load.h"

struct load_thread;
struct load_io;

/* io->prio_stat of a direction without statistics per priority. */
#define LOAD_PRIO_NO_STATS 0xff

/* A thread's choice per I/O: for each direction the entries of its split
 * (a share of I/Os of size bs, or of any size where bs is 0), the running
 * sum of their shares, their priority and the index of its statistics. */
struct load_prio_pick {
	__u16 ioprio;		/* the job's; 0: the thread's as it was */
	bool per_io;
	struct load_prio_dir {
		unsigned int n;
		__u8 own;	/* the stats of the job's priority */
		struct load_prio_choice {
			__u64 bs;
			unsigned int upto;	/* percent, summed over its bs */
			__u16 ioprio;
			__u8 stat;
		} e[LOAD_MAX_PRIO_SPLIT];
	} dir[LOAD_DIRS];
};

/* One direction's cmdprio_bssplit, "64k/25/1/1:64k/75:1m/0", into *ps
 * (s is changed): 0, or -1 with *err the reason. */
int load_prio_parse_split(char *s, struct load_prio_split *ps, const char **err);

/* Whether the job's priority options go together and with its engine:
 * NULL, or what is wrong.  prev: as load_steady_conflict's, unused. */
const char *load_prio_check(const struct load_job_opts *o,
			    const struct load_job_opts *prev);

/* On the job's thread before its first I/O: its priority set, and with
 * cmdprio the choice and the statistics it needs.  0 or -errno. */
int load_prio_start(struct load_thread *t);

/* The priority of the next I/O of a job with cmdprio; io->dir and
 * io->len set. */
void load_prio_pick(struct load_thread *t, struct load_io *io);

/* The figures of st's priorities back to none (at the end of the ramp). */
void load_prio_reset(struct load_stats *st);

#endif
