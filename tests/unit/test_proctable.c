// SPDX-License-Identifier: GPL-2.0
/* top's process table (top/proctable.c): threads add up to their process,
 * and a thread the kernel counts waiting longer than it lived marks its
 * entry's waits as wrong (6.18 has counted one from clock 0). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <time.h>
#include "top/proctable.h"

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Thread `tid` of process 100, alive for `life` s, waited `blkio` s. */
static struct iolens_task_rec thread(__u32 tid, double life, double blkio)
{
	struct iolens_task_rec r = { .tid = tid, .tgid = 100,
				     .flags = IOLENS_TASK_BLKIO };

	r.start_ns = now_ns() - (__u64)(life * 1e9);
	r.delay.blkio_ns = (__u64)(blkio * 1e9);
	r.io.read_bytes = 4096;
	strcpy(r.comm, "reader");
	return r;
}

static void scan(struct proctable *pt, const struct iolens_task_rec *r, int n)
{
	proctable_begin(pt);
	for (int i = 0; i < n; i++)
		proctable_add(&r[i], pt);
	proctable_end(pt);
}

static void test_threads_add_up(void **state)
{
	struct proctable *pt = proctable_new(false);
	/* Two threads each waiting almost all their lives: 190% of one. */
	struct iolens_task_rec r[2] = { thread(100, 1, 0.95), thread(101, 1, 0.95) };

	(void)state;
	assert_non_null(pt);
	scan(pt, r, 2);
	assert_int_equal(proctable_count(pt), 1);
	assert_int_equal(proctable_get(pt, 0)->cur.delay.blkio_ns, 1900000000);
	assert_int_equal(proctable_get(pt, 0)->cur.io.read_bytes, 8192);
	assert_false(proctable_get(pt, 0)->overcount);
	proctable_free(pt);
}

static void test_wait_past_life_is_overcount(void **state)
{
	struct proctable *pt = proctable_new(false);
	/* A thread that waited almost all its life, and one that the kernel
	 * counted waiting from clock 0: its process's waits are wrong, from
	 * then on, also when it looks right again. */
	struct iolens_task_rec r[2] = { thread(100, 2, 1.9), thread(101, 2, 12700) };
	struct iolens_task_rec other = thread(200, 2, 1);

	(void)state;
	assert_non_null(pt);
	other.tgid = 200;
	scan(pt, r, 1);
	assert_false(proctable_get(pt, 0)->overcount);
	scan(pt, r, 2);
	assert_true(proctable_get(pt, 0)->overcount);
	r[1].delay.blkio_ns = 0;
	scan(pt, r, 2);
	assert_true(proctable_get(pt, 0)->overcount);
	proctable_free(pt);
	/* Swap-in waits too, in thread mode; waits not counted are not looked
	 * at; other entries are not touched. */
	pt = proctable_new(true);
	r[1] = thread(101, 2, 0);
	r[1].delay.swapin_ns = 6000000000ull;
	r[0] = other;
	scan(pt, r, 2);
	assert_false(proctable_get(pt, 0)->overcount);
	assert_false(proctable_get(pt, 1)->overcount);
	r[1].flags |= IOLENS_TASK_SWAPIN;
	scan(pt, r, 2);
	assert_false(proctable_get(pt, 0)->overcount);
	assert_true(proctable_get(pt, 1)->overcount);
	proctable_free(pt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_add_up),
		cmocka_unit_test(test_wait_past_life_is_overcount),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
