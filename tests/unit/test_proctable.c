// SPDX-License-Identifier: GPL-2.0
/* top's process table (top/proctable.c): threads add up to their process,
 * from scan to scan and by their last records; a reaped child's counters,
 * which the kernel adds to its parent's signal->ioac, are not the
 * parent's; and a thread the kernel counts waiting longer than it lived
 * marks its entry's waits as wrong (6.18 has counted one from clock 0). */
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
	/* The first scan is where counting starts. */
	scan(pt, r, 2);
	assert_int_equal(proctable_count(pt), 1);
	assert_int_equal(proctable_get(pt, 0)->cur.io.read_bytes, 0);
	r[0].io.read_bytes += 4096;
	r[1].io.read_bytes += 8192;
	r[0].delay.blkio_ns += 50000000;
	r[1].delay.blkio_ns += 50000000;
	scan(pt, r, 2);
	assert_int_equal(proctable_get(pt, 0)->cur.delay.blkio_ns, 100000000);
	assert_int_equal(proctable_get(pt, 0)->cur.io.read_bytes, 12288);
	assert_int_equal(proctable_get(pt, 0)->prev.io.read_bytes, 0);
	assert_false(proctable_get(pt, 0)->overcount);
	proctable_free(pt);
}

/* The entry of process `tgid` in the last scan. */
static struct proc_ent *entry(struct proctable *pt, __u32 tgid)
{
	for (int i = 0; i < proctable_count(pt); i++)
		if (proctable_get(pt, i)->id == tgid)
			return proctable_get(pt, i);
	return NULL;
}

static void test_children_and_exits(void **state)
{
	struct proctable *pt = proctable_new(false);
	struct iolens_task_rec parent = thread(100, 10, 0), child, last[3];

	(void)state;
	assert_non_null(pt);
	scan(pt, &parent, 1);
	/* A child that starts after that scan, reads 1 MiB and is reaped
	 * before the next: its last record, from its start; the kernel has
	 * added its counters to the parent's signal->ioac. */
	child = thread(200, 0, 0);
	child.tgid = 200;
	child.ppid = 100;
	child.io.read_bytes = 1 << 20;
	child.flags |= IOLENS_TASK_EXITED;
	parent.dead.read_bytes += 1 << 20;
	last[0] = parent;
	last[1] = child;
	scan(pt, last, 2);
	assert_int_equal(entry(pt, 200)->cur.io.read_bytes, 1 << 20);
	assert_int_equal(entry(pt, 200)->ppid, 100);
	assert_int_equal(entry(pt, 100)->cur.io.read_bytes, 0);
	/* Gone from the next scan. */
	scan(pt, &parent, 1);
	assert_null(entry(pt, 200));
	assert_int_equal(entry(pt, 100)->cur.io.read_bytes, 0);

	/* A thread seen by the pass, then its last record: what it did in
	 * between counts once. */
	child = thread(300, 0, 0);
	child.tgid = 100;
	last[0] = parent;
	last[1] = child;
	scan(pt, last, 2);
	child.io.read_bytes = 8192;
	last[1] = child;
	scan(pt, last, 2);
	assert_int_equal(entry(pt, 100)->cur.io.read_bytes, 8192);
	child.io.read_bytes = 12288;
	child.flags |= IOLENS_TASK_EXITED;
	last[1] = child;
	scan(pt, last, 2);
	assert_int_equal(entry(pt, 100)->cur.io.read_bytes, 12288);
	assert_int_equal(entry(pt, 100)->prev.io.read_bytes, 8192);
	/* Still in the pass after its record (not yet released): nothing
	 * more. */
	scan(pt, last, 2);
	assert_int_equal(entry(pt, 100)->cur.io.read_bytes, 12288);

	/* A thread whose exit hook has run before the pass: the pass sees
	 * its syscall counts and waits zero (moved to its leader's), then
	 * its last record has them: counted once. */
	child = thread(400, 0, 0);
	child.tgid = 100;
	last[1] = child;
	scan(pt, last, 2);
	child.sys.calls[IOLENS_SC_FILE_READ] = 5;
	child.delay.blkio_ns = 1000;
	last[1] = child;
	scan(pt, last, 2);
	assert_int_equal(entry(pt, 100)->cur.sys.calls[IOLENS_SC_FILE_READ], 5);
	last[1].sys.calls[IOLENS_SC_FILE_READ] = 0;
	last[1].delay.blkio_ns = 0;
	child.sys.calls[IOLENS_SC_FILE_READ] = 7;
	child.delay.blkio_ns = 3000;
	child.flags |= IOLENS_TASK_EXITED;
	last[2] = child;
	scan(pt, last, 3);
	assert_int_equal(entry(pt, 100)->cur.sys.calls[IOLENS_SC_FILE_READ], 7);
	assert_int_equal(entry(pt, 100)->cur.delay.blkio_ns, 3000);
	proctable_free(pt);
}

static void test_reused_tid_within_a_scan(void **state)
{
	struct proctable *pt = proctable_new(false);
	struct iolens_task_rec r[2] = { thread(100, 10, 0), thread(100, 10, 0) };

	(void)state;
	assert_non_null(pt);
	scan(pt, r, 1);
	/* Process 100 ended and a new one took its id before the scan; its
	 * old leader's last record comes after the new one's. */
	r[0] = thread(100, 0, 0);
	r[0].io.read_bytes = 4096;
	r[1].io.read_bytes = 1 << 20;
	r[1].flags |= IOLENS_TASK_EXITED;
	scan(pt, r, 2);
	assert_int_equal(proctable_count(pt), 1);
	assert_int_equal(entry(pt, 100)->start_ns, r[0].start_ns);
	assert_int_equal(entry(pt, 100)->cur.io.read_bytes, 4096);
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
		cmocka_unit_test(test_children_and_exits),
		cmocka_unit_test(test_reused_tid_within_a_scan),
		cmocka_unit_test(test_wait_past_life_is_overcount),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
