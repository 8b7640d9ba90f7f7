// SPDX-License-Identifier: GPL-2.0
/* The exact rank-sum test (lib/ranktest.c) against counts done by hand
 * and by enumerating every arrangement. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/ranktest.h"

static void test_separated(void **state)
{
	double a[10], b[10];

	(void)state;
	for (int i = 0; i < 10; i++) {
		a[i] = i;
		b[i] = 100 + i;
	}
	/* All of a below all of b: 2 of the C(6, 3) = 20 arrangements are as
	 * far from the mean, both tails. */
	assert_float_equal(ranktest_p(a, 3, b, 3), 2.0 / 20, 1e-12);
	/* 2 of C(20, 10) = 184756. */
	assert_float_equal(ranktest_p(a, 10, b, 10), 2.0 / 184756, 1e-15);
	/* The order of the samples does not matter. */
	assert_float_equal(ranktest_p(b, 10, a, 10), 2.0 / 184756, 1e-15);
}

static void test_known(void **state)
{
	/* Rank sum of x 103 (1.29 twice in y, 1.06 twice: mean ranks); of
	 * the C(18, 9) = 48620 ways to choose x's ranks, 6316 are as far
	 * from the mean 85.5 (counted by enumerating them all in Python). */
	static const double x[] = { 1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30 };
	static const double y[] = { 0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29 };

	(void)state;
	assert_float_equal(ranktest_p(x, 9, y, 9), 6316.0 / 48620, 1e-12);
}

static void test_ties_and_sizes(void **state)
{
	static const double same[] = { 5, 5, 5, 5, 5 };
	double big[RANKTEST_MAX];

	(void)state;
	/* All tied: every arrangement has the same rank sum. */
	assert_float_equal(ranktest_p(same, 2, same, 3), 1.0, 1e-12);
	assert_true(ranktest_p(same, 0, same, 3) < 0);
	for (int i = 0; i < RANKTEST_MAX; i++)
		big[i] = i;
	assert_true(ranktest_p(big, 20, big + 20, 20) > 0);
	assert_true(ranktest_p(big, 21, big, 20) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_separated),
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_ties_and_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
