/* SPDX-License-Identifier: GPL-2.0 */
/* load's own: fio's random_distribution, the spread of random offsets over
 * a job's blocks (load_dist.c). */
#ifndef IOLENS_LOAD_DIST_H
#define IOLENS_LOAD_DIST_H

#include <linux/types.h>
#include "load/load.h"

/* What a thread keeps of its distribution over n blocks. */
struct load_dist_state {
	__u64 n;
	double zetan, zeta2, eta, alpha;	/* zipf */
	double pow;			/* pareto */
	__u64 stddev;			/* normal: the deviation's range */
	__u64 offset;			/* where the hottest block lands */
};

/* "zipf:1.2", "normal:10:0.3" and the like into *d: 0, or -1 with *err
 * the reason. */
int load_dist_parse(const char *value, struct load_dist *d, const char **err);

/* Sets *s up for n blocks; `seed` places the hot blocks. */
void load_dist_init(const struct load_dist *d, struct load_dist_state *s, __u64 n,
		    __u64 seed);

/* The next block, below n, from two uniform random words. */
__u64 load_dist_next(const struct load_dist *d, const struct load_dist_state *s,
		     __u64 r1, __u64 r2);

#endif
