// SPDX-License-Identifier: GPL-2.0
/* The exact rank-sum test (include/lib/ranktest.h). */
#include <stdlib.h>
#include <string.h>
#include "lib/ranktest.h"

/* Doubled ranks keep mean ranks of ties whole: the sums of n of N of
 * them reach at most N * (N + 1). */
#define SUM_MAX	(RANKTEST_MAX * (RANKTEST_MAX + 1))

struct item {
	double v;
	int from_a;
};

static int by_value(const void *x, const void *y)
{
	const struct item *a = x, *b = y;

	return (a->v > b->v) - (a->v < b->v);
}

double ranktest_p(const double *a, int n, const double *b, int m)
{
	static double ways[RANKTEST_MAX + 1][SUM_MAX + 1];
	struct item it[RANKTEST_MAX];
	int rank2[RANKTEST_MAX], N = n + m, seen = 0, mean2, far;
	double all = 0, as_far = 0;

	if (n <= 0 || m <= 0 || N > RANKTEST_MAX)
		return -1;
	for (int i = 0; i < N; i++)
		it[i] = (struct item){ i < n ? a[i] : b[i - n], i < n };
	qsort(it, N, sizeof(*it), by_value);
	/* A run of ties [i, j) shares the mean of ranks i+1..j, doubled:
	 * i + 1 + j. */
	for (int i = 0, j; i < N; i = j) {
		for (j = i + 1; j < N && it[j].v == it[i].v; j++)
			;
		for (int k = i; k < j; k++)
			rank2[k] = i + 1 + j;
	}
	for (int i = 0; i < N; i++)
		if (it[i].from_a)
			seen += rank2[i];
	/* ways[k][s]: the subsets of k of the ranks so far summing to s;
	 * counts up to C(40, 20) < 2^53 stay exact in a double. */
	memset(ways, 0, sizeof(ways));
	ways[0][0] = 1;
	for (int i = 0; i < N; i++)
		for (int k = (i + 1 < n ? i + 1 : n); k > 0; k--)
			for (int s = SUM_MAX; s >= rank2[i]; s--)
				ways[k][s] += ways[k - 1][s - rank2[i]];
	mean2 = n * (N + 1);
	far = abs(seen - mean2);
	for (int s = 0; s <= SUM_MAX; s++) {
		all += ways[n][s];
		if (abs(s - mean2) >= far)
			as_far += ways[n][s];
	}
	return as_far / all;
}
