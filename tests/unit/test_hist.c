// SPDX-License-Identifier: GPL-2.0
/* The histogram layout and its percentiles against exact ones. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/hist.h"

/* Buckets tile the value range: each starts where the previous ends. */
static void test_layout_tiles(void **state)
{
	(void)state;
	assert_int_equal(hist_lower(0), 0);
	for (__u32 i = 0; i + 1 < HIST_BUCKETS; i++)
		assert_true(hist_lower(i) + hist_width(i) == hist_lower(i + 1));
	assert_int_equal(hist_lower(HIST_OVERFLOW), 1ULL << HIST_MAX_BITS);
}

/* Every value lands in the bucket that holds it, and buckets are at most
 * 1/HIST_SUB of their lower bound wide above the linear range. */
static void test_index_holds_value(void **state)
{
	__u64 v;

	(void)state;
	srandom(1);
	for (int n = 0; n < 1000000; n++) {
		v = ((__u64)random() << 31 | random()) >> (random() % 62);
		__u32 i = hist_index(v);

		if (v >= 1ULL << HIST_MAX_BITS) {
			assert_int_equal(i, HIST_OVERFLOW);
			continue;
		}
		assert_true(i < HIST_OVERFLOW);
		assert_true(hist_lower(i) <= v && v < hist_lower(i) + hist_width(i));
		if (i >= HIST_LINEAR)
			assert_true(hist_width(i) * HIST_SUB <= hist_lower(i));
	}
	for (v = 0; v < 5000; v++)
		assert_true(hist_lower(hist_index(v)) <= v);
	assert_int_equal(hist_index(HIST_LINEAR - 1), HIST_LINEAR - 1);
	assert_int_equal(hist_index(~0ULL), HIST_OVERFLOW);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Latency-like data over six decades: every percentile within 1% (the
 * bound is 1/128) of the exact nearest-rank percentile of the raw data. */
static void test_percentiles_within_bound(void **state)
{
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 99.99, 100 };
	enum { N = 200000 };
	__u64 *vals = malloc(N * sizeof(*vals));
	__u64 *counts = calloc(HIST_BUCKETS, sizeof(*counts));
	double worst = 0;

	(void)state;
	srandom(7);
	for (int i = 0; i < N; i++) {
		/* log-uniform from 1 ns to ~1 s, plus a few exact small ones */
		double u = (double)random() / RAND_MAX;

		vals[i] = i % 50 ? (__u64)exp(u * log(1e9)) : (__u64)(random() % 100);
		counts[hist_index(vals[i])]++;
	}
	qsort(vals, N, sizeof(*vals), cmp_u64);
	assert_int_equal(hist_count(counts), N);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		__u64 rank = (__u64)ceil(ps[k] / 100.0 * N), got;
		__u64 exact = vals[rank - 1];
		bool overflow;

		assert_true(hist_percentile(counts, ps[k], &got, &overflow));
		assert_false(overflow);
		if (exact < HIST_LINEAR) {
			assert_int_equal(got, exact);
			continue;
		}
		double err = fabs((double)got - (double)exact) / (double)exact;

		if (err > worst)
			worst = err;
		assert_true(err <= 1.0 / (2 * HIST_SUB));
	}
	assert_true(worst < 0.01);
	free(vals);
	free(counts);
}

static void test_empty_and_overflow(void **state)
{
	__u64 *counts = calloc(HIST_BUCKETS, sizeof(*counts));
	__u64 *more = calloc(HIST_BUCKETS, sizeof(*more));
	__u64 v;
	bool overflow;

	(void)state;
	assert_false(hist_percentile(counts, 50, &v, &overflow));
	counts[hist_index(1ULL << 50)] = 3;
	more[hist_index(10)] = 1;
	hist_add(counts, more);
	assert_int_equal(hist_count(counts), 4);
	assert_true(hist_percentile(counts, 25, &v, &overflow));
	assert_false(overflow);
	assert_int_equal(v, 10);
	assert_true(hist_percentile(counts, 99, &v, &overflow));
	assert_true(overflow);
	assert_int_equal(v, 1ULL << HIST_MAX_BITS);
	free(counts);
	free(more);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_tiles),
		cmocka_unit_test(test_index_holds_value),
		cmocka_unit_test(test_percentiles_within_bound),
		cmocka_unit_test(test_empty_and_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
