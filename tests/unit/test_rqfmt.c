// SPDX-License-Identifier: GPL-2.0
/* A request's JSON line (report/rqfmt.c), whose numbers and escapes are
 * written by hand for speed: each against printf() and lib/json's rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include "trace/rqfmt.h"

static char line[4096];

static const char *json_of(const struct iolens_rq *rq, const struct rqfmt_names *n,
			   __u64 t0)
{
	size_t len = rqfmt_format(line, RQFMT_JSON, rq, n, t0);

	assert_true(len < sizeof(line) && len <= rqfmt_bound(n));
	line[len] = 0;
	return line;
}

/* `"key":value` is in the line, whole. */
static void assert_field(const char *key, const char *value)
{
	char want[256];

	snprintf(want, sizeof(want), ",\"%s\":%s,", key, value);
	if (!strstr(line, want))
		fail_msg("%s not in %s", want, line);
}

static void test_numbers_at_every_length(void **state)
{
	static const unsigned long long edges[] = {
		0, 1, 9, 10, 99, 100, 999, 1000, 65535, 99999999, 100000000,
		999999999, 1000000000, 4294967295ULL, 4294967296ULL,
		9999999999999999ULL, 10000000000000000ULL, 23479879759344ULL,
		9223372036854775807ULL, 18446744073709551615ULL,
	};
	struct rqfmt_names n = { .dev = "loop0" };
	struct iolens_rq rq = { .ctx = IOLENS_CTX_SUBMIT, .bytes = 4096 };
	char want[32];

	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		rq.sector = edges[i];
		rq.cgroup = edges[i];
		rq.pid = (__u32)edges[i];
		rq.bytes = (__u32)edges[i];
		json_of(&rq, &n, 0);
		snprintf(want, sizeof(want), "%llu", edges[i]);
		assert_field("sector", want);
		assert_field("cgroup_id", want);
		snprintf(want, sizeof(want), "%u", (__u32)edges[i]);
		assert_field("pid", want);
		assert_field("bytes", want);
	}
}

/* time_s: seconds since t0 with 9 decimals, also before t0. */
static void test_seconds(void **state)
{
	static const struct { __u64 t, t0; const char *want; } cases[] = {
		{ 1000, 1000, "{\"time_s\":0.000000000," },
		{ 1000000001, 0, "{\"time_s\":1.000000001," },
		{ 23479879759344ULL, 23478879729770ULL, "{\"time_s\":1.000029574," },
		{ 4000000000123ULL, 0, "{\"time_s\":4000.000000123," },
		{ 5, 10, "{\"time_s\":-0.000000005," },
		{ 123456789012, 12, "{\"time_s\":123.456789000," },
	};
	struct rqfmt_names n = { .dev = "loop0" };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct iolens_rq rq = { .ts_complete = cases[i].t };

		json_of(&rq, &n, cases[i].t0);
		if (strncmp(line, cases[i].want, strlen(cases[i].want)))
			fail_msg("%s is not %s...", line, cases[i].want);
	}
}

/* Names are JSON strings: quotes, backslashes and control bytes escaped
 * as lib/json does, UTF-8 as it is; a missing cgroup is null. */
static void test_escapes(void **state)
{
	struct rqfmt_names n = {
		.dev = "sd\"a",
		.cgroup = "/a\\b\n\t\r\x01\x7f\xc3\xa9",
		.io_cgroup = NULL,
	};
	struct iolens_rq rq = { .ctx = IOLENS_CTX_SUBMIT };

	(void)state;
	strcpy(rq.comm, "kworker/\"x\"");
	json_of(&rq, &n, 0);
	assert_field("comm", "\"kworker/\\\"x\\\"\"");
	assert_field("dev", "\"sd\\\"a\"");
	assert_field("cgroup", "\"/a\\\\\\\\b\\n\\t\\r\\u0001\\u007f\xc3\xa9\"");
	assert_field("io_cgroup", "null");
	/* Not seen at submission: no submitter. */
	rq.ctx = IOLENS_CTX_NONE;
	json_of(&rq, &n, 0);
	assert_non_null(strstr(line, ",\"comm\":null,\"pid\":null,\"tid\":null,"));
}

/* --stacks: JSON's array (innermost first) or null and why; the frames
 * below the text line; CSV's one field, folded outermost first; each
 * within rqfmt_bound(), also with every frame full. */
static void test_stacks(void **state)
{
	static struct kstack k = { .n = 3, .frame = { "blk_mq_submit_bio+0x1", "a\"b+0x2",
							 "do_syscall_64+0x3 [x]" } };
	struct rqfmt_names n = { .dev = "loop0", .stacks = true, .stack = &k };
	struct iolens_rq rq = { .ctx = IOLENS_CTX_SUBMIT, .stack = 1 };
	static struct kstack full = { .n = IOLENS_STACK_DEPTH };
	size_t len;

	(void)state;
	json_of(&rq, &n, 0);
	assert_non_null(strstr(line, ",\"stack\":[\"blk_mq_submit_bio+0x1\",\"a\\\"b+0x2\","
			       "\"do_syscall_64+0x3 [x]\"]}\n"));
	len = rqfmt_format(line, RQFMT_CSV, &rq, &n, 0);
	line[len] = 0;
	assert_non_null(strstr(line, ",\"do_syscall_64+0x3 [x];a\"\"b+0x2;blk_mq_submit_bio+0x1\"\n"));
	len = rqfmt_format(line, RQFMT_TEXT, &rq, &n, 0);
	line[len] = 0;
	assert_non_null(strstr(line, "\n    blk_mq_submit_bio+0x1\n    a\"b+0x2\n"
			       "    do_syscall_64+0x3 [x]\n"));
	n.stack = NULL;
	rq.stack = IOLENS_STACK_LOST;
	json_of(&rq, &n, 0);
	assert_non_null(strstr(line, ",\"stack\":null,\"stack_unknown\":\"not kept\"}\n"));
	rq.stack = 0;
	len = rqfmt_format(line, RQFMT_TEXT, &rq, &n, 0);
	line[len] = 0;
	assert_non_null(strstr(line, "\n    (stack not seen submitting)\n"));
	for (int i = 0; i < IOLENS_STACK_DEPTH; i++)
		memset(full.frame[i], '"', KSTACK_NAME - 1);
	n.stack = &full;
	for (int m = RQFMT_TEXT; m <= RQFMT_CSV; m++) {
		static char big[1 << 16];

		len = rqfmt_format(big, m, &rq, &n, 0);
		assert_true(len <= rqfmt_bound(&n));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers_at_every_length),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_stacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
