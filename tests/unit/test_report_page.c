// SPDX-License-Identifier: GPL-2.0
/* The report's one-pass grids (report/page.c): bins that double keep every
 * request exactly, latency rows tile the range, offset rows grow, and a
 * full table of submitters says what it could not hold. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include "report/page.h"

#define T0 1000000000000ULL

static struct iolens_rq rq_at(__u64 done, __u64 lat, __u32 pid, __u64 sector)
{
	struct iolens_rq rq = { .ts_start = done - lat, .ts_issue = done - lat / 2,
				.ts_complete = done, .sector = sector, .dev = 7 << 20,
				.bytes = 4096, .pid = pid, .qd = 2, .op = IOLENS_OP_READ };

	snprintf(rq.comm, sizeof(rq.comm), "p%u", pid);
	return rq;
}

static __u64 requests_drawn(const struct page *p)
{
	__u64 n = 0;

	for (int i = 0; i < p->nbins; i++)
		for (int o = 0; o < PAGE_NOPS; o++)
			n += p->col[i].n[o];
	return n;
}

/* 100 s of requests, one every 10 ms: the bins widen to 640 ms (10 ms
 * doubled six times) and hold every request, in the right bin. */
static void test_bins_widen_exactly(void **state)
{
	struct page *p = page_new(T0, false, false);
	__u64 lat_cells = 0;

	(void)state;
	assert_non_null(p);
	for (int i = 0; i < 10000; i++) {
		struct iolens_rq rq = rq_at(T0 + i * 10000000ULL + 1, 50000, 1, 8 * i);

		assert_int_equal(page_add(p, &rq), 0);
	}
	assert_int_equal(p->width, 640000000ULL);
	assert_int_equal(p->nbins, 157);	/* 100 s / 0.64 s, rounded up */
	assert_int_equal(requests_drawn(p), 10000);
	assert_int_equal(p->col[0].n[PAGE_READ], 64);
	for (int i = 0; i < p->nbins; i++)
		for (int r = 0; r < PAGE_LROWS; r++)
			lat_cells += p->col[i].lat[0][r];
	assert_int_equal(lat_cells, 10000);
	/* 50 us: row of [49152, 65536) ns. */
	assert_int_equal(p->col[3].lat[0][page_lrow(50000)], 64);
	assert_int_equal(p->col[3].qd_sum, 128);
	page_span(p, T0 + 200000000000ULL);
	assert_int_equal(p->nbins, 157);	/* 200 s is in reach: 200 bins of 1.28 s */
	page_free(p);
}

static void test_latency_rows(void **state)
{
	(void)state;
	assert_int_equal(page_lrow(0), 0);
	assert_int_equal(page_lrow(1023), 0);
	assert_int_equal(page_lrow(1024), 0);
	assert_int_equal(page_lrow(1536), 1);
	assert_int_equal(page_lrow(2048), 2);
	for (int r = 0; r < PAGE_LROWS - 1; r++) {
		assert_int_equal(page_lrow(page_lrow_lower(r)), r);
		assert_int_equal(page_lrow(page_lrow_lower(r + 1) - 1), r);
	}
	assert_int_equal(page_lrow(~0ULL), PAGE_LROWS - 1);
}

/* Offsets up to 1 TiB: rows of 1 MiB double to 16 GiB and keep every
 * request; a flush (no data, sector -1) is on no row. */
static void test_offset_rows_grow(void **state)
{
	struct page *p = page_new(T0, false, false);
	struct iolens_rq rq;
	__u64 n = 0;

	(void)state;
	for (__u64 s = 0; s < (1ULL << 31); s += 1ULL << 24) {
		rq = rq_at(T0 + 1000, 1000, 1, s);
		assert_int_equal(page_add(p, &rq), 0);
	}
	rq = rq_at(T0 + 1000, 1000, 1, ~0ULL);
	rq.bytes = 0;
	rq.op = IOLENS_OP_FLUSH;
	assert_int_equal(page_add(p, &rq), 0);
	assert_int_equal(p->devs[0].off->sectors_per_row, 1ULL << 25);
	for (int r = 0; r < PAGE_OROWS; r++)
		for (int o = 0; o < PAGE_NOPS; o++)
			n += p->devs[0].off->cell[0][r][o];
	assert_int_equal(n, 128);
	assert_int_equal(p->col[0].n[PAGE_OTHER], 1);
	page_free(p);
}

/* More submitters than the table holds: the first ones exact, the rest
 * counted as others, none lost. */
static void test_table_overflow(void **state)
{
	struct page *p = page_new(T0, false, false);
	const struct page_who *top[3];
	__u64 n = 0;

	(void)state;
	for (__u32 pid = 1; pid <= PAGE_WHO; pid++) {
		struct iolens_rq rq = rq_at(T0 + 1000, 1000, pid, 0);

		assert_int_equal(page_add(p, &rq), 0);
		if (pid == 7) {
			assert_int_equal(page_add(p, &rq), 0);
			assert_int_equal(page_add(p, &rq), 0);
		}
	}
	assert_int_equal(p->who.n, 3 * PAGE_WHO / 4);
	for (int i = 0; i < p->who.cap; i++)
		n += p->who.v[i].used ? p->who.v[i].requests : 0;
	assert_int_equal(n + p->who.others.requests, PAGE_WHO + 2);
	assert_int_equal(page_top(&p->who, PAGE_BY_REQUESTS, top, 3), 3);
	assert_int_equal(top[0]->pid, 7);
	assert_int_equal(top[0]->requests, 3);
	page_free(p);
}

/* Files: a row per file (the same inode of another generation is another
 * file), bytes read and written apart, the most bytes first; requests of
 * no file in a row of their own. */
static void test_files(void **state)
{
	struct page *p = page_new(T0, false, true);
	const struct page_who *top[4];
	struct iolens_rq rq;

	(void)state;
	for (int i = 0; i < 6; i++) {
		rq = rq_at(T0 + 1000 * i, 500, 1, 8 * i);
		rq.fkind = IOLENS_FK_CACHE;
		rq.fdev = 7 << 20;
		rq.ino = 12;
		rq.fgen = i < 4 ? 1 : 2;
		rq.op = i % 2 ? IOLENS_OP_WRITE : IOLENS_OP_READ;
		rq.bytes = 4096 << (i % 2);
		assert_int_equal(page_add(p, &rq), 0);
	}
	rq = rq_at(T0, 500, 1, 0);
	rq.bytes = 0;
	assert_int_equal(page_add(p, &rq), 0);
	assert_int_equal(page_top(&p->files, PAGE_BY_BYTES, top, 4), 3);
	assert_int_equal(top[0]->fgen, 1);
	assert_int_equal(top[0]->op_bytes[0], 2 * 4096);
	assert_int_equal(top[0]->op_bytes[1], 2 * 8192);
	assert_int_equal(top[0]->requests, 4);
	assert_int_equal(top[0]->timed, 4);
	assert_int_equal(top[0]->time_ns, 4 * 500);
	assert_int_equal(top[1]->fgen, 2);
	assert_int_equal(top[1]->bytes, 4096 + 8192);
	assert_int_equal(top[2]->fkind, IOLENS_FK_NONE);
	assert_int_equal(top[2]->requests, 1);
	page_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bins_widen_exactly),
		cmocka_unit_test(test_latency_rows),
		cmocka_unit_test(test_offset_rows_grow),
		cmocka_unit_test(test_table_overflow),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
