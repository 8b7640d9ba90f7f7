// SPDX-License-Identifier: GPL-2.0
/* lib/parse.c: the counts, pids, durations and sizes every command and job
 * file takes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/types.h>
#include "lib/parse.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_duration_ok(void **state)
{
	static const struct { const char *s; double unit; __u64 ns; } ok[] = {
		/* A bare number is in the unit given. */
		{ "1.5", 1e9, 1500000000ULL }, { "2", 1e9, 2000000000ULL },
		{ "5", 1e3, 5000 }, { "5", 1, 5 }, { "10", 1e3, 10000 },
		{ "0", 1e9, 0 }, { "0.0", 1e3, 0 }, { ".5", 1e9, 500000000ULL },
		/* Suffixes win over the unit; fio's long forms and any case. */
		{ "900ns", 1e9, 900 }, { "7nsec", 1e9, 7 },
		{ "250us", 1e9, 250000 }, { "3usec", 1e9, 3000 },
		{ "2ms", 1e3, 2000000 }, { "500msec", 1e9, 500000000ULL },
		{ "1.5s", 1e3, 1500000000ULL }, { "2sec", 1e3, 2000000000ULL },
		{ "2m", 1e9, 120000000000ULL }, { "2min", 1e9, 120000000000ULL },
		{ "1h", 1e9, 3600000000000ULL }, { "1hour", 1e9, 3600000000000ULL },
		{ "1d", 1e9, 86400000000000ULL }, { "1day", 1e9, 86400000000000ULL },
		{ "1H", 1e9, 3600000000000ULL }, { "5MS", 1e9, 5000000 },
		{ ".5ms", 1e9, 500000 }, { "0ms", 1e9, 0 }, { "1e3us", 1, 1000000 },
		/* Fractions of a nanosecond round to the nearest. */
		{ "0.4ns", 1, 0 }, { "0.5ns", 1, 1 }, { "2.5ns", 1, 3 },
		{ "0.75", 1, 1 },
		/* 2^62 is exact in a double and below the bound of 9e18. */
		{ "4611686018427387904ns", 1e9, 4611686018427387904ULL },
	};
	static const char *const bad[] = {
		"", " ", " 10", "ms", "s", "abc", "-1", "-0.5ms", "+1", "inf",
		"infinity", "nan", "0x10", "5 ms", "5ms ", "5msx", "5s5", "1.5.5",
		"x5", "5,5", "5us5", "10mss", "5q",
		/* What 64 bits of ns cannot hold. */
		"1e19ns", "9e18ns", "9000000000", "1e300s", "1e10h",
	};

	(void)state;
	for (size_t i = 0; i < N(ok); i++) {
		__u64 ns = 12345;

		assert_int_equal(parse_duration(ok[i].s, ok[i].unit, &ns), 0);
		assert_int_equal(ns, ok[i].ns);
	}
	for (size_t i = 0; i < N(bad); i++) {
		__u64 ns = 12345;

		assert_int_equal(parse_duration(bad[i], 1e9, &ns), -1);
		assert_int_equal(ns, 12345);
	}
}

/* fio's sizes: k, m, g, t, p with an optional b or ib, any case, all
 * 1024-based (fio's kb_base=1024); decimal unless "0x". */
static void test_size(void **state)
{
	static const struct { const char *s; __u64 v; } ok[] = {
		{ "0", 0 }, { "1", 1 }, { "512", 512 }, { "4096", 4096 },
		{ "1b", 1 }, { "512B", 512 },
		{ "4k", 4096 }, { "4K", 4096 }, { "4kb", 4096 }, { "4KiB", 4096 },
		{ "1m", 1048576 }, { "1M", 1048576 }, { "3mb", 3145728 },
		{ "1g", 1073741824 }, { "2G", 2147483648ULL }, { "1gib", 1073741824 },
		{ "1t", 1ULL << 40 }, { "5TB", 5ULL << 40 },
		{ "1p", 1ULL << 50 }, { "2pb", 2ULL << 50 },
		{ "0k", 0 }, { "0x10", 16 }, { "0X1k", 1024 },
		/* Not octal, as fio's str_to_decimal(). */
		{ "010", 10 }, { "08", 8 }, { "09k", 9216 },
		{ "18446744073709551615", ~0ULL },
		{ "17179869183g", 17179869183ULL << 30 },
		{ "16383p", 16383ULL << 50 },
	};
	static const char *const bad[] = {
		"", "k", "-1", "-4k", "+4k", " 4k", "4k ", "4 k", "4q", "4kk",
		"4kbb", "4e", "1.5k", "4k4", "inf", "0x",
		/* Overflow, bare and by the suffix. */
		"18446744073709551616", "99999999999999999999999",
		"17179869184g", "16384p", "16777216t", "18014398509481984k",
	};

	(void)state;
	for (size_t i = 0; i < N(ok); i++) {
		__u64 v = 12345;

		assert_int_equal(parse_size(ok[i].s, &v), 0);
		assert_int_equal(v, ok[i].v);
	}
	for (size_t i = 0; i < N(bad); i++) {
		__u64 v = 12345;

		assert_int_equal(parse_size(bad[i], &v), -1);
		assert_int_equal(v, 12345);
	}
}

static void test_count_and_pid(void **state)
{
	static const char *const bad[] = {
		"0", "-1", "-0", "+1", " 1", "3x", "x", "", "1.5", "0x10",
		"99999999999999999999999",
	};
	unsigned long v;
	__u32 pid;

	(void)state;
	assert_int_equal(parse_count("1", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(parse_count("007", &v), 0);
	assert_int_equal(v, 7);
	for (size_t i = 0; i < N(bad); i++) {
		assert_int_equal(parse_count(bad[i], &v), -1);
		assert_int_equal(parse_pid(bad[i], &pid), -1);
	}
	assert_int_equal(parse_pid("2147483647", &pid), 0);
	assert_int_equal(pid, 2147483647U);
	assert_int_equal(parse_pid("2147483648", &pid), -1);
	assert_int_equal(pid, 2147483647U);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_ok),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_count_and_pid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
