// SPDX-License-Identifier: GPL-2.0
/* Request filters as snoop's -d -p -c -G -O -m build them, against
 * hand-made requests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include "lib/devices.h"
#include "cli/filters.h"

#define CMD "snoop"

/* A 4 KiB read of pid 100 "fio" on 7:0, started at 1 ms, 200 us long. */
static struct iolens_rq rq_make(void)
{
	struct iolens_rq rq;

	memset(&rq, 0, sizeof(rq));
	rq.ts_start = 1000000;
	rq.ts_insert = 1010000;
	rq.ts_issue = 1050000;
	rq.ts_complete = 1200000;
	rq.dev = kdev_make(7, 0);
	rq.bytes = 4096;
	rq.pid = 100;
	rq.tid = 101;
	rq.op = IOLENS_OP_READ;
	strcpy(rq.comm, "fio");
	return rq;
}

/* One filter option, by its row of the shared table. */
static int set(struct rqfilter *f, int key, const char *arg)
{
	return cli_set(cli_rqfilter_opts, f, CMD, key, arg);
}

static bool match(const struct rqfilter *f, const struct iolens_rq *rq)
{
	return rqfilter_match(f, rq, "loop0", "/user.slice/a", NULL);
}

/* No option: everything passes, even a request with nothing seen. */
static void test_empty_filter(void **state)
{
	struct rqfilter f = {};
	struct iolens_rq rq = rq_make(), blank;

	(void)state;
	memset(&blank, 0, sizeof(blank));
	assert_true(match(&f, &rq));
	assert_true(rqfilter_match(&f, &blank, NULL, NULL, NULL));
	/* Not a filter option: not consumed, nothing set. */
	assert_int_equal(set(&f, 'x', "1"), 0);
	assert_int_equal(set(&f, 'j', NULL), 0);
	assert_int_equal(f.ops, 0);
	assert_int_equal(f.npid, 0);
}

static void test_op(void **state)
{
	struct rqfilter f = {};
	struct iolens_rq rq = rq_make();

	(void)state;
	assert_int_equal(set(&f, 'O', "write"), 1);
	assert_int_equal(f.ops, 1U << IOLENS_OP_WRITE);
	assert_false(match(&f, &rq));
	rq.op = IOLENS_OP_WRITE;
	assert_true(match(&f, &rq));

	/* A list, and repeated -O add up. */
	assert_int_equal(set(&f, 'O', "flush,discard"), 1);
	assert_int_equal(set(&f, 'O', "secure-erase"), 1);
	assert_int_equal(f.ops, 1U << IOLENS_OP_WRITE | 1U << IOLENS_OP_FLUSH |
			 1U << IOLENS_OP_DISCARD | 1U << IOLENS_OP_SECURE_ERASE);
	for (unsigned int op = 0; op < IOLENS_OP_NR; op++) {
		rq.op = op;
		assert_int_equal(match(&f, &rq), op == IOLENS_OP_WRITE ||
				 op == IOLENS_OP_FLUSH || op == IOLENS_OP_DISCARD ||
				 op == IOLENS_OP_SECURE_ERASE);
	}

	memset(&f, 0, sizeof(f));
	assert_int_equal(set(&f, 'O', "read,write-zeroes,zone,drv,other"), 1);
	assert_int_equal(f.ops, 1U << IOLENS_OP_READ | 1U << IOLENS_OP_WRITE_ZEROES |
			 1U << IOLENS_OP_ZONE | 1U << IOLENS_OP_DRV |
			 1U << IOLENS_OP_OTHER | 1U << IOLENS_OP_ZONE_APPEND |
			 1U << IOLENS_OP_ZONE_RESET | 1U << IOLENS_OP_ZONE_RESET_ALL |
			 1U << IOLENS_OP_ZONE_OPEN | 1U << IOLENS_OP_ZONE_CLOSE |
			 1U << IOLENS_OP_ZONE_FINISH);
	rq.op = IOLENS_OP_OTHER;
	assert_true(match(&f, &rq));
	rq.op = IOLENS_OP_WRITE;
	assert_false(match(&f, &rq));

	/* One zone op by its name. */
	memset(&f, 0, sizeof(f));
	assert_int_equal(set(&f, 'O', "zone-reset"), 1);
	assert_int_equal(f.ops, 1U << IOLENS_OP_ZONE_RESET);
}

static void test_op_bad(void **state)
{
	static const char *const bad[] = {
		"bogus", "READ", "Write", "read,bogus", "reads", "rea", "write ",
		/* No op at all would silently mean any op. */
		"", ",", ",,",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rqfilter f = {};

		assert_int_equal(set(&f, 'O', bad[i]), 2);
	}
}

/* -m in microseconds by default; the request must take at least that
 * long from its start (or from its issue if the start was not seen). */
static void test_min_lat(void **state)
{
	struct rqfilter f = {};
	struct iolens_rq rq = rq_make();

	(void)state;
	assert_int_equal(set(&f, 'm', "200"), 1);
	assert_int_equal(f.min_lat_ns, 200000);
	assert_true(match(&f, &rq));		/* exactly 200 us */
	rq.ts_complete--;
	assert_false(match(&f, &rq));
	rq.ts_complete += 2;
	assert_true(match(&f, &rq));

	/* Start unseen: device time, 150 us, is what counts. */
	rq = rq_make();
	rq.ts_start = 0;
	assert_false(match(&f, &rq));
	assert_int_equal(set(&f, 'm', "150us"), 1);
	assert_int_equal(f.min_lat_ns, 150000);
	assert_true(match(&f, &rq));

	/* Either end unseen: cannot be shown to be slow. */
	rq = rq_make();
	rq.ts_start = rq.ts_issue = 0;
	assert_false(match(&f, &rq));
	rq = rq_make();
	rq.ts_complete = 0;
	assert_false(match(&f, &rq));

	assert_int_equal(set(&f, 'm', "2ms"), 1);
	assert_int_equal(f.min_lat_ns, 2000000);
	assert_int_equal(set(&f, 'm', "1.5s"), 1);
	assert_int_equal(f.min_lat_ns, 1500000000);
	assert_int_equal(set(&f, 'm', "0.5"), 1);
	assert_int_equal(f.min_lat_ns, 500);
	rq = rq_make();
	rq.ts_complete = rq.ts_start + 499;
	assert_false(match(&f, &rq));
	rq.ts_complete++;
	assert_true(match(&f, &rq));

	/* 0 is no filter: a request with no end passes again. */
	assert_int_equal(set(&f, 'm', "0"), 1);
	assert_int_equal(f.min_lat_ns, 0);
	rq.ts_complete = 0;
	assert_true(match(&f, &rq));
}

/* -E: only failed requests; with -m, failed or slow ones.  A request
 * not seen to complete has no status yet. */
static void test_errors(void **state)
{
	struct rqfilter f = {};
	struct iolens_rq rq = rq_make();

	(void)state;
	assert_int_equal(set(&f, 'E', NULL), 1);
	assert_true(f.errors);
	assert_false(match(&f, &rq));
	rq.status = 10;
	assert_true(match(&f, &rq));
	rq.ts_complete = 0;
	assert_false(match(&f, &rq));

	/* With -m 200 (the request takes exactly 200 us): slow or failed. */
	assert_int_equal(set(&f, 'm', "200"), 1);
	rq = rq_make();
	assert_true(match(&f, &rq));
	rq.ts_complete--;
	assert_false(match(&f, &rq));
	rq.status = 1;
	assert_true(match(&f, &rq));
}

static void test_min_lat_bad(void **state)
{
	static const char *const bad[] = {
		"-1", "abc", "", "1q", "2 ms", "inf", "1e30s",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rqfilter f = {};

		f.min_lat_ns = 77;
		assert_int_equal(set(&f, 'm', bad[i]), 2);
		assert_int_equal(f.min_lat_ns, 77);
	}
}

/* -p: any of up to eight pids; the tgid counts, not the thread. */
static void test_pid(void **state)
{
	struct rqfilter f = {};
	struct iolens_rq rq = rq_make();
	char pid[16];

	(void)state;
	assert_int_equal(set(&f, 'p', "101"), 1);
	assert_false(match(&f, &rq));		/* the tid, not the pid */
	assert_int_equal(set(&f, 'p', "100"), 1);
	assert_true(match(&f, &rq));
	rq.pid = 102;
	assert_false(match(&f, &rq));
	rq.pid = 101;
	assert_true(match(&f, &rq));

	memset(&f, 0, sizeof(f));
	for (int i = 1; i <= RQFILTER_MAX; i++) {
		snprintf(pid, sizeof(pid), "%d", i);
		assert_int_equal(set(&f, 'p', pid), 1);
	}
	assert_int_equal(f.npid, RQFILTER_MAX);
	assert_int_equal(f.pid[RQFILTER_MAX - 1], RQFILTER_MAX);
	assert_int_equal(set(&f, 'p', "99"), 2);
	assert_int_equal(f.npid, RQFILTER_MAX);
	rq.pid = RQFILTER_MAX;
	assert_true(match(&f, &rq));
	rq.pid = RQFILTER_MAX + 1;
	assert_false(match(&f, &rq));

	memset(&f, 0, sizeof(f));
	assert_int_equal(set(&f, 'p', "2147483647"), 1);
	assert_int_equal(f.pid[0], 2147483647U);
}

static void test_pid_bad(void **state)
{
	static const char *const bad[] = {
		"", "0", "-1", "abc", "12x", "1.0", "2147483648",
		"99999999999999999999999",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rqfilter f = {};

		assert_int_equal(set(&f, 'p', bad[i]), 2);
		assert_int_equal(f.npid, 0);
	}
}

/* -c: the whole command name; a longer one is cut as the kernel cuts it. */
static void test_comm(void **state)
{
	struct rqfilter f = {};
	struct iolens_rq rq = rq_make();

	(void)state;
	assert_int_equal(set(&f, 'c', "dd"), 1);
	assert_false(match(&f, &rq));
	assert_int_equal(set(&f, 'c', "fio"), 1);
	assert_true(match(&f, &rq));
	strcpy(rq.comm, "fio2");
	assert_false(match(&f, &rq));
	strcpy(rq.comm, "fi");
	assert_false(match(&f, &rq));
	strcpy(rq.comm, "dd");
	assert_true(match(&f, &rq));

	memset(&f, 0, sizeof(f));
	assert_int_equal(set(&f, 'c', "kworker/u8:2-events_unbound"), 1);
	assert_string_equal(f.comm[0], "kworker/u8:2-ev");
	memset(rq.comm, 0, sizeof(rq.comm));
	memcpy(rq.comm, "kworker/u8:2-ev", 15);
	assert_true(match(&f, &rq));
	/* A comm filling all 16 bytes, no NUL, compares on its 16. */
	memcpy(rq.comm, "kworker/u8:2-eve", 16);
	assert_false(match(&f, &rq));

	memset(&f, 0, sizeof(f));
	for (int i = 0; i < RQFILTER_MAX; i++)
		assert_int_equal(set(&f, 'c', "x"), 1);
	assert_int_equal(set(&f, 'c', "x"), 2);
	assert_int_equal(f.ncomm, RQFILTER_MAX);
}

/* -G: a path from the cgroup root, matched with everything below it, in
 * the submitter's cgroup or the one owning the I/O. */
static void test_cgroup(void **state)
{
	struct rqfilter f = {};
	struct iolens_rq rq = rq_make();

	(void)state;
	assert_int_equal(set(&f, 'G', "system.slice"), 2);
	assert_null(f.cgroup);
	assert_int_equal(set(&f, 'G', "/system.slice"), 1);
	assert_string_equal(f.cgroup, "/system.slice");
	assert_true(rqfilter_match(&f, &rq, NULL, "/system.slice", NULL));
	assert_true(rqfilter_match(&f, &rq, NULL, "/system.slice/db.service", NULL));
	assert_false(rqfilter_match(&f, &rq, NULL, "/system.slice2", NULL));
	assert_false(rqfilter_match(&f, &rq, NULL, "/system", NULL));
	assert_false(rqfilter_match(&f, &rq, NULL, "/user.slice", NULL));
	assert_false(rqfilter_match(&f, &rq, NULL, NULL, NULL));
	/* Writeback: found under the cgroup that owns the I/O. */
	assert_true(rqfilter_match(&f, &rq, NULL, "/", "/system.slice/db.service"));
	assert_true(rqfilter_match(&f, &rq, NULL, NULL, "/system.slice"));
	assert_false(rqfilter_match(&f, &rq, NULL, "/user.slice", "/init.scope"));

	/* A trailing slash is the same cgroup. */
	assert_int_equal(set(&f, 'G', "/system.slice/"), 1);
	assert_true(rqfilter_match(&f, &rq, NULL, "/system.slice", NULL));
	assert_true(rqfilter_match(&f, &rq, NULL, "/system.slice/x", NULL));
	assert_false(rqfilter_match(&f, &rq, NULL, "/system.slicex", NULL));

	/* The root holds every known cgroup. */
	assert_int_equal(set(&f, 'G', "/"), 1);
	assert_true(rqfilter_match(&f, &rq, NULL, "/", NULL));
	assert_true(rqfilter_match(&f, &rq, NULL, "/user.slice", NULL));
	assert_false(rqfilter_match(&f, &rq, NULL, NULL, NULL));
}

/* -d is kept as given and matched by name, /dev/name or MAJ:MIN, so no
 * device needs to exist here. */
static void test_dev(void **state)
{
	struct rqfilter f = {};
	struct iolens_rq rq = rq_make();

	(void)state;
	assert_int_equal(set(&f, 'd', "vdz"), 1);
	assert_false(rqfilter_match(&f, &rq, "loop0", NULL, NULL));
	assert_int_equal(set(&f, 'd', "loop0"), 1);
	assert_true(rqfilter_match(&f, &rq, "loop0", NULL, NULL));
	assert_false(rqfilter_match(&f, &rq, "loop1", NULL, NULL));
	assert_false(rqfilter_match(&f, &rq, NULL, NULL, NULL));

	memset(&f, 0, sizeof(f));
	assert_int_equal(set(&f, 'd', "/dev/loop0"), 1);
	assert_true(rqfilter_match(&f, &rq, "loop0", NULL, NULL));
	assert_false(rqfilter_match(&f, &rq, "loop", NULL, NULL));

	memset(&f, 0, sizeof(f));
	assert_int_equal(set(&f, 'd', "7:0"), 1);
	assert_true(rqfilter_match(&f, &rq, NULL, NULL, NULL));
	assert_true(rqfilter_match(&f, &rq, "whatever", NULL, NULL));
	rq.dev = kdev_make(7, 1);
	assert_false(rqfilter_match(&f, &rq, NULL, NULL, NULL));
	rq.dev = kdev_make(259, 65536);
	assert_int_equal(set(&f, 'd', "259:65536"), 1);
	assert_true(rqfilter_match(&f, &rq, NULL, NULL, NULL));

	memset(&f, 0, sizeof(f));
	for (int i = 0; i < RQFILTER_MAX; i++)
		assert_int_equal(set(&f, 'd', "sda"), 1);
	assert_int_equal(set(&f, 'd', "sdb"), 2);
	assert_int_equal(f.ndev, RQFILTER_MAX);
}

/* Options of different kinds must all hold; values of one kind are
 * alternatives. */
static void test_combined(void **state)
{
	struct rqfilter f = {};
	struct iolens_rq rq = rq_make();

	(void)state;
	assert_int_equal(set(&f, 'O', "read,write"), 1);
	assert_int_equal(set(&f, 'p', "100"), 1);
	assert_int_equal(set(&f, 'p', "200"), 1);
	assert_int_equal(set(&f, 'c', "fio"), 1);
	assert_int_equal(set(&f, 'm', "100"), 1);
	assert_int_equal(set(&f, 'd', "loop0"), 1);
	assert_int_equal(set(&f, 'G', "/user.slice"), 1);
	assert_true(match(&f, &rq));

	rq.pid = 200;
	assert_true(match(&f, &rq));
	rq.op = IOLENS_OP_WRITE;
	assert_true(match(&f, &rq));

	rq = rq_make();
	rq.op = IOLENS_OP_FLUSH;
	assert_false(match(&f, &rq));
	rq = rq_make();
	rq.pid = 300;
	assert_false(match(&f, &rq));
	rq = rq_make();
	strcpy(rq.comm, "dd");
	assert_false(match(&f, &rq));
	rq = rq_make();
	rq.ts_complete = rq.ts_start + 99999;
	assert_false(match(&f, &rq));
	rq = rq_make();
	assert_false(rqfilter_match(&f, &rq, "loop1", "/user.slice/a", NULL));
	assert_false(rqfilter_match(&f, &rq, "loop0", "/system.slice", NULL));
	assert_true(rqfilter_match(&f, &rq, "loop0", "/system.slice", "/user.slice"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_filter),
		cmocka_unit_test(test_op),
		cmocka_unit_test(test_op_bad),
		cmocka_unit_test(test_min_lat),
		cmocka_unit_test(test_min_lat_bad),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_pid_bad),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_dev),
		cmocka_unit_test(test_combined),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
