/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Wilcoxon-Mann-Whitney rank-sum test of two small samples, exact:
 * whether values of one tend to be larger than the other's beyond what
 * chance gives, with no assumption about their distribution.  report
 * --compare judges two traces' latencies with it, a value per time slice.
 */
#ifndef IOLENS_RANKTEST_H
#define IOLENS_RANKTEST_H

#define RANKTEST_MAX	40	/* n + m at most */

/*
 * The two-sided p-value of samples a (n values) and b (m): the chance,
 * were both drawn from one distribution, of a rank sum at least as far
 * from its mean as the one seen.  Exact over the permutations of the
 * ranks, ties given their mean rank.  -1 if n or m is 0 or n + m passes
 * RANKTEST_MAX.
 */
double ranktest_p(const double *a, int n, const double *b, int m);

#endif
