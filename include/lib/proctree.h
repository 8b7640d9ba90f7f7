/* SPDX-License-Identifier: GPL-2.0 */
/* Whether a process is one of some roots or descends from one of them:
 * "this benchmark, its children and their threads". */
#ifndef IOLENS_PROCTREE_H
#define IOLENS_PROCTREE_H

#include <stdbool.h>
#include <linux/types.h>

struct proctree {
	const int *roots;
	int nroots;
	struct proctree_seen *seen;	/* answers so far, by tgid */
	int nseen;
};

/* `roots` stays the caller's. */
void proctree_init(struct proctree *t, const int *roots, int nroots);

/*
 * Whether tgid is a root or below one.  Decided once per tgid, from its
 * parent chain in /proc when first asked: a process must still run then
 * (readers of events ask within a few ms of its I/O), and one reparented
 * to init before that is no longer found below its root.
 */
bool proctree_has(struct proctree *t, __u32 tgid);

/* The same, but -1 for a tgid not asked about before that is gone now
 * (its parent chain can no longer be read) and is no root. */
int proctree_judge(struct proctree *t, __u32 tgid);

/* The same for a tgid that may have exited since: then decided by `ppid`,
 * its parent when it was seen (0: unknown). */
bool proctree_has_gone(struct proctree *t, __u32 tgid, __u32 ppid);

/* Forgets what was decided of processes that were gone (reaped) at this
 * call and at the one before: a reader that runs for long calls it now
 * and then (a frame, a second), so that the answers kept are of live
 * processes, and a pid the kernel gives again after that is judged anew
 * (given again within the period, it keeps the old answer).  A whole
 * period's grace, so that the records a process left in a ring before it
 * exited are still read with its answer. */
void proctree_forget_gone(struct proctree *t);

/* Whether any root process still runs (a zombie does not). */
bool proctree_alive(const struct proctree *t);

void proctree_free(struct proctree *t);

#endif
