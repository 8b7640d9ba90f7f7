// SPDX-License-Identifier: GPL-2.0
/* snoop's merge of its consumers' lines (lib/tsmerge.c): items written in
 * place by each source come out in time order, in batches writev() takes,
 * only once every source has published past them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/tsmerge.h"

/* What the emit callback saw. */
struct seen {
	char text[1 << 16];
	size_t len;
	int batches, items, max_batch;
	int stop_after;		/* batches; 0: never stop */
};

static int collect(void *ctx, struct iovec *iov, int n)
{
	struct seen *s = ctx;

	for (int i = 0; i < n; i++) {
		assert_true(s->len + iov[i].iov_len <= sizeof(s->text));
		memcpy(s->text + s->len, iov[i].iov_base, iov[i].iov_len);
		s->len += iov[i].iov_len;
	}
	s->items += n;
	s->batches++;
	if (n > s->max_batch)
		s->max_batch = n;
	return s->stop_after && s->batches == s->stop_after;
}

static void add(struct tsmerge *m, int src, __u64 ts, const char *text)
{
	size_t n = strlen(text);
	char *p = tsmerge_room(m, src, n + 100);

	assert_non_null(p);
	memcpy(p, text, n);
	tsmerge_commit(m, src, ts, n);
}

static void test_time_order_and_slack(void **state)
{
	struct tsmerge *m = tsmerge_new(2);
	struct seen *s = calloc(1, sizeof(*s));

	(void)state;
	add(m, 0, 10, "a10 ");
	add(m, 0, 30, "a30 ");
	add(m, 0, 50, "a50 ");
	add(m, 1, 20, "b20 ");
	add(m, 1, 40, "b40 ");
	/* Nothing until both have published. */
	assert_int_equal(tsmerge_publish(m, 0, 60), 0);
	assert_int_equal(tsmerge_emit(m, 0, collect, s), 0);
	assert_int_equal(s->items, 0);
	/* Up to the least published time less the slack: 45 - 10. */
	assert_int_equal(tsmerge_publish(m, 1, 45), 0);
	assert_int_equal(tsmerge_emit(m, 10, collect, s), 0);
	s->text[s->len] = 0;
	assert_string_equal(s->text, "a10 b20 a30 ");
	/* A source that makes no more lets the rest out. */
	assert_int_equal(tsmerge_publish(m, 1, UINT64_MAX), 0);
	assert_int_equal(tsmerge_publish(m, 0, UINT64_MAX), 0);
	assert_int_equal(tsmerge_emit(m, 10, collect, s), 0);
	s->text[s->len] = 0;
	assert_string_equal(s->text, "a10 b20 a30 b40 a50 ");
	free(s);
	tsmerge_free(m);
}

/* Checks each item against what test_batches_across_chunks() added. */
struct sequence {
	int next, batches, max_batch, bigs;
	size_t big;
};

static int check_sequence(void *ctx, struct iovec *iov, int n)
{
	struct sequence *q = ctx;

	for (int i = 0; i < n; i++, q->next++) {
		const char *p = iov[i].iov_base;
		char want[16];

		if (iov[i].iov_len == q->big) {
			/* Filled with one letter each, in order. */
			assert_int_equal(p[0], 'a' + q->bigs);
			assert_int_equal(p[q->big - 1], 'a' + q->bigs);
			q->bigs++;
			continue;
		}
		snprintf(want, sizeof(want), "%05d\n", q->next);
		assert_int_equal(iov[i].iov_len, strlen(want));
		assert_memory_equal(p, want, strlen(want));
	}
	q->batches++;
	if (n > q->max_batch)
		q->max_batch = n;
	return 0;
}

/* More items than one writev() takes, and items bigger than what is left
 * of a 1 MiB chunk: batches of TSMERGE_BATCH, every item once, in order,
 * its bytes where they were written. */
static void test_batches_across_chunks(void **state)
{
	enum { N = 2 * TSMERGE_BATCH + 452, BIG = 300 << 10 };
	struct tsmerge *m = tsmerge_new(1);
	struct sequence q = { .big = BIG };
	int i;

	(void)state;
	for (i = 0; i < N + 5; i++) {
		char line[16];

		if (i % 400 == 399 && q.bigs < 5) {
			char *p = tsmerge_room(m, 0, BIG);

			assert_non_null(p);
			memset(p, 'a' + q.bigs++, BIG);
			tsmerge_commit(m, 0, 1000 + i, BIG);
			continue;
		}
		snprintf(line, sizeof(line), "%05d\n", i);
		add(m, 0, 1000 + i, line);
	}
	q.bigs = 0;
	assert_int_equal(tsmerge_publish(m, 0, UINT64_MAX), 0);
	assert_int_equal(tsmerge_emit(m, 0, check_sequence, &q), 0);
	assert_int_equal(q.next, N + 5);
	assert_int_equal(q.bigs, 5);
	assert_int_equal(q.batches, 3);
	assert_int_equal(q.max_batch, TSMERGE_BATCH);
	tsmerge_free(m);
}

/* A callback's non-zero return ends the emit: the rest is dropped. */
static void test_callback_stops(void **state)
{
	struct tsmerge *m = tsmerge_new(1);
	struct seen *s = calloc(1, sizeof(*s));

	(void)state;
	for (int i = 0; i < TSMERGE_BATCH + 10; i++)
		add(m, 0, i, "x");
	s->stop_after = 1;
	assert_int_equal(tsmerge_publish(m, 0, UINT64_MAX), 0);
	assert_int_equal(tsmerge_emit(m, 0, collect, s), 1);
	assert_int_equal(s->items, TSMERGE_BATCH);
	assert_int_equal(tsmerge_emit(m, 0, collect, s), 0);
	free(s);
	tsmerge_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_order_and_slack),
		cmocka_unit_test(test_batches_across_chunks),
		cmocka_unit_test(test_callback_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
