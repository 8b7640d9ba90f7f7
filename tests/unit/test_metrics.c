// SPDX-License-Identifier: GPL-2.0
/* serve's fold of the log-linear buckets into Prometheus `le` bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "serve/metrics.h"
#include "bpf/hist_layout.h"

/* Every bound is a bucket edge: the fold never splits a bucket. */
static void test_bounds_are_edges(void **state)
{
	(void)state;
	for (int i = 0; i < METRICS_DUR_BOUNDS; i++) {
		__u64 e = metrics_dur_bounds_ns[i];

		assert_true(hist_lower(hist_index(e)) == e);
		assert_true(i == 0 || e > metrics_dur_bounds_ns[i - 1]);
	}
	for (int i = 0; i < METRICS_QD_BOUNDS; i++) {
		__u64 e = metrics_qd_bounds[i] + 1;

		assert_true(hist_lower(hist_index(e)) == e);
	}
}

/* A value's bucket folds into the first bound above the value: the fold
 * of the bucket equals the fold of the value itself (le = durations below
 * the bound), for values around every bound. */
static void test_fold_is_exact(void **state)
{
	__u64 lim[METRICS_DUR_BOUNDS];

	(void)state;
	for (int i = 0; i < METRICS_DUR_BOUNDS; i++)
		lim[i] = metrics_dur_bounds_ns[i];
	for (int i = 0; i < METRICS_DUR_BOUNDS; i++) {
		for (__s64 d = -300; d <= 300; d++) {
			__u64 v = lim[i] + d;
			int want = 0;

			while (want < METRICS_DUR_BOUNDS && v >= lim[want])
				want++;
			assert_int_equal(metrics_fold(hist_index(v), lim, METRICS_DUR_BOUNDS), want);
		}
	}
	assert_int_equal(metrics_fold(HIST_OVERFLOW, lim, METRICS_DUR_BOUNDS),
			 METRICS_DUR_BOUNDS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds_are_edges),
		cmocka_unit_test(test_fold_is_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
