// SPDX-License-Identifier: GPL-2.0
/* The flight recorder's ring (record/ring.c) and its triggers
 * (record/trigger.c): what leaves the ring and when, what a replay gives
 * back, what fires and on what. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include "record/ring.h"
#include "record/trigger.h"

#define MS 1000000ULL
#define S 1000000000ULL

/* Request i, completed at `t`: every field differs from its neighbours'. */
static struct iolens_rq rq_at(__u64 i, __u64 t)
{
	struct iolens_rq rq = {
		.ts_start = t - 100000, .ts_insert = t - 90000, .ts_issue = t - 80000,
		.ts_complete = t, .sector = i * 8, .cgroup = i % 7 + 1, .dev = 7 << 20,
		.bytes = 4096, .pid = 100 + i % 3, .tid = 100 + i % 3, .qd = 1 + i % 4,
		.op = i % 2,
	};

	snprintf(rq.comm, sizeof(rq.comm), "fio%llu", (unsigned long long)(i % 10));
	return rq;
}

struct replayed {
	__u64 n, first, last;
	bool in_order;
};

static int count(void *ctx, const struct iolens_rq *rq)
{
	struct replayed *r = ctx;
	struct iolens_rq want = rq_at(rq->sector / 8, rq->ts_complete);

	/* Every byte as given (the record format has no padding). */
	assert_memory_equal(rq, &want, sizeof(want));
	if (!r->n)
		r->first = rq->sector / 8;
	else if (rq->sector / 8 != r->last + 1)
		r->in_order = false;
	r->last = rq->sector / 8;
	r->n++;
	return 0;
}

/* 10 s kept: after 30 s of requests a millisecond apart, the ring holds
 * the last 10 s (and at most its slack more), nothing left for room; a replay from any time
 * gives every request from then on, once, in order. */
static void test_span(void **state)
{
	struct ring *r = ring_new(10 * S, 1ULL << 30);
	struct replayed got = { .in_order = true };
	__u64 n = 30000, t0 = 1000 * S;

	(void)state;
	assert_non_null(r);
	for (__u64 i = 0; i < n; i++) {
		struct iolens_rq rq = rq_at(i, t0 + i * MS);

		assert_int_equal(ring_add(r, &rq), 0);
	}
	/* Whole from at most the span, its 2 s of slack and a chunk (524
	 * requests) back. */
	assert_true(ring_whole_from(r) > t0 + (n - 12000 - 600) * MS);
	assert_true(ring_whole_from(r) <= t0 + (n - 10000) * MS);
	assert_int_equal(ring_replay(r, t0 + (n - 10000) * MS, count, &got), 0);
	assert_int_equal(ring_cut_from(r), 0);
	assert_int_equal(got.n, 10000);
	assert_int_equal(got.first, n - 10000);
	assert_int_equal(got.last, n - 1);
	assert_true(got.in_order);
	/* Compressed: well under the records' 125 bytes each. */
	assert_true(ring_bytes(r) < sizeof(struct iolens_rq) * 12000);
	ring_free(r);
}

/* A size kept: the ring never passes it, and says from when it is whole. */
static void test_bytes(void **state)
{
	size_t max = 4 * RING_CHUNK + RING_CHUNK / 2;
	struct ring *r = ring_new(0, max);
	struct replayed got = { .in_order = true };
	__u64 t0 = 5 * S;

	(void)state;
	assert_int_equal(ring_whole_from(r), 0);
	for (__u64 i = 0; i < 200000; i++) {
		struct iolens_rq rq = rq_at(i, t0 + i * 1000);

		assert_int_equal(ring_add(r, &rq), 0);
		assert_true(ring_bytes(r) <= max);
	}
	assert_true(ring_whole_from(r) > t0);
	assert_int_equal(ring_cut_from(r), ring_whole_from(r));
	assert_int_equal(ring_replay(r, ring_whole_from(r), count, &got), 0);
	assert_true(got.in_order);
	assert_int_equal(got.last, 199999);
	assert_true(t0 + got.first * 1000 >= ring_whole_from(r));
	assert_true(t0 + (got.first - 1) * 1000 < ring_whole_from(r));
	ring_free(r);
}

/* A save while the ring fills: chunk by chunk, each request of the span
 * once and in order; chunks not yet written stay past their age when
 * pinned, and those that left for room are counted. */
static void test_cursor(void **state)
{
	struct ring *r = ring_new(1 * S, 1ULL << 30);
	struct replayed got = { .in_order = true };
	struct ring_cursor cur;
	__u64 i = 0, lost = 0, t0 = 100 * S;
	int ret;

	(void)state;
	for (; i < 3000; i++) {
		struct iolens_rq rq = rq_at(i, t0 + i * MS);

		ring_add(r, &rq);
	}
	/* The span: from request 1000 to request 5000. */
	ring_cursor_at(r, t0 + 1000 * MS, &cur);
	ring_pin(r, cur.seq);
	while (i < 9000) {
		struct iolens_rq rq = rq_at(i, t0 + i * MS);

		ring_add(r, &rq);
		/* A chunk now and then, slower than they fill. */
		if (i++ % 2000 == 0)
			ret = ring_replay_chunk(r, &cur, t0 + 1000 * MS, t0 + 5000 * MS, count, &got,
						&lost);
	}
	assert_int_equal(ring_flush(r), 0);
	while ((ret = ring_replay_chunk(r, &cur, t0 + 1000 * MS, t0 + 5000 * MS, count, &got,
					&lost)) == 1)
		;
	assert_int_equal(ret, 0);
	assert_int_equal(lost, 0);
	assert_int_equal(got.first, 1000);
	assert_int_equal(got.last, 5000);
	assert_int_equal(got.n, 4001);
	assert_true(got.in_order);
	ring_free(r);

	/* Too small to wait: chunks leave for room before their turn. */
	r = ring_new(0, 4 * RING_CHUNK + RING_CHUNK / 2);
	memset(&got, 0, sizeof(got));
	got.in_order = true;
	ring_cursor_at(r, 0, &cur);
	for (i = 0; i < 20000; i++) {
		struct iolens_rq rq = rq_at(i, t0 + i * MS);

		ring_add(r, &rq);
	}
	assert_int_equal(ring_replay_chunk(r, &cur, 0, UINT64_MAX, count, &got, &lost), -2);
	assert_true(lost > 0);
	while (ring_replay_chunk(r, &cur, 0, UINT64_MAX, count, &got, &lost) == 1)
		;
	ring_flush(r);
	while (ring_replay_chunk(r, &cur, 0, UINT64_MAX, count, &got, &lost) == 1)
		;
	/* Every request either written or counted lost, none twice. */
	assert_int_equal(got.n + lost, 20000);
	assert_int_equal(got.last, 19999);
	ring_free(r);
}

static bool fire_lat(struct triggers *t, __u64 lat, struct trace_trigger *f)
{
	struct iolens_rq rq = rq_at(1, 50 * S);

	rq.ts_start = rq.ts_complete - lat;
	return triggers_rq(t, &rq, f);
}

/* The row of `name`. */
static struct trigger_spec spec_of(const char *name, __u64 over)
{
	for (unsigned int i = 0; i < trigger_nkinds; i++)
		if (!strcmp(trigger_kinds[i].name, name))
			return (struct trigger_spec){ .kind = i, .over = over };
	fail_msg("no trigger %s", name);
	return (struct trigger_spec){ 0 };
}

static void test_names(void **state)
{
	static const struct { const char *kind; __u64 over; const char *name; } t[] = {
		{ "lat", 50 * MS, "lat>50ms" }, { "lat", 1500 * MS, "lat>1500ms" },
		{ "lat", 2 * S, "lat>2s" }, { "p99", 800000, "p99>800us" },
		{ "p99", 1234, "p99>1234ns" }, { "errors", 0, "errors>0" },
		{ "qd", 32, "qd>32" }, { "util", 95000, "util>95%" },
		{ "util", 99500, "util>99.5%" },
	};
	char name[48];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct trigger_spec s = spec_of(t[i].kind, t[i].over);

		trigger_name(&s, name, sizeof(name));
		assert_string_equal(name, t[i].name);
	}
}

static void test_lat_and_errors(void **state)
{
	struct trigger_spec spec[2] = { spec_of("lat", 50 * MS), spec_of("errors", 1) };
	struct trace_trigger f = {};
	struct triggers *t;

	(void)state;
	t = triggers_new(spec, 2);
	assert_false(fire_lat(t, 50 * MS, &f));		/* not more than 50 ms */
	assert_true(fire_lat(t, 50 * MS + 1, &f));
	assert_string_equal(f.what, "lat>50ms");
	assert_string_equal(f.value, "50.0ms");
	assert_int_equal(f.mono_ns, 50 * S);
	assert_int_equal(f.pid, 101);

	/* Two failures 1.5 s apart are not more than one within a second;
	 * a third 0.3 s after the second is. */
	for (int i = 0; i < 3; i++) {
		struct iolens_rq rq = rq_at(i, 60 * S + (i ? 1200 + i * 300 : 0) * MS);

		rq.status = 10;
		memset(&f, 0, sizeof(f));
		assert_int_equal(triggers_rq(t, &rq, &f), i == 2);
	}
	assert_string_equal(f.what, "errors>1");
	assert_string_equal(f.value, "2 in 1s");
	triggers_free(t);
}

/* p99 over the last second, judged as each tenth ends, and only with 100
 * requests or more in that second. */
static void test_p99(void **state)
{
	struct trigger_spec spec = spec_of("p99", 10 * MS);
	struct trace_trigger f = {};
	struct triggers *t;
	int fired = 0;

	(void)state;
	t = triggers_new(&spec, 1);
	/* 50 slow requests a second: too few to fire. */
	for (int i = 0; i < 100; i++) {
		struct iolens_rq rq = rq_at(i, 10 * S + i * 20 * MS);

		rq.ts_start = rq.ts_complete - 20 * MS;
		assert_false(triggers_rq(t, &rq, &f));
	}
	/* 1000 a second, 2% of them slow: fires at the first tenth that ends
	 * with 100 or more in the second behind it. */
	for (int i = 0; i < 3000 && !fired; i++) {
		struct iolens_rq rq = rq_at(i, 20 * S + i * MS);

		rq.ts_start = rq.ts_complete - (i % 50 ? 1 * MS : 20 * MS);
		if (triggers_rq(t, &rq, &f))
			fired = i;
	}
	assert_int_equal(fired, 100);
	assert_int_equal(f.mono_ns, 20 * S + 100 * MS);
	assert_non_null(strstr(f.value, "ms of 100"));

	/* A slow second, then the disk goes quiet: judged at the next
	 * tick, for the tenth that ended last. */
	for (int i = 0; i < 150; i++) {
		struct iolens_rq rq = rq_at(i, 40 * S + i * MS);

		rq.ts_start = rq.ts_complete - 30 * MS;
		triggers_rq(t, &rq, &f);
	}
	memset(&f, 0, sizeof(f));
	assert_true(triggers_tick(t, 41 * S, &f));
	assert_string_equal(f.what, "p99>10ms");
	assert_int_equal(f.mono_ns, 40 * S + 200 * MS);
	/* Judged once: the next tick has nothing new. */
	assert_false(triggers_tick(t, 42 * S, &f));
	triggers_free(t);
}

/* A failure after a year of uptime is counted at once, not after a walk
 * over every tenth of a second since boot; a completion before its start
 * (a clock gone back) is no latency. */
static void test_edges(void **state)
{
	struct trigger_spec spec[3] = { spec_of("errors", 0), spec_of("lat", 1 * MS),
					spec_of("qd", 8) };
	struct trace_trigger f = {};
	struct triggers *t = triggers_new(spec, 3);
	struct iolens_rq rq = rq_at(1, 365ULL * 86400 * S);

	(void)state;
	rq.status = 10;
	assert_true(triggers_rq(t, &rq, &f));
	assert_string_equal(f.what, "errors>0");
	rq = rq_at(2, 400ULL * 86400 * S);
	rq.ts_start = rq.ts_complete + 5 * S;
	assert_false(triggers_rq(t, &rq, &f));
	/* qd: fired at the completion of the request that saw it. */
	rq = rq_at(3, 401ULL * 86400 * S);
	rq.qd = 9;
	assert_true(triggers_rq(t, &rq, &f));
	assert_string_equal(f.what, "qd>8");
	assert_int_equal(f.mono_ns, rq.ts_complete);
	assert_string_equal(f.value, "9");
	triggers_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_cursor),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_lat_and_errors),
		cmocka_unit_test(test_p99),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
