// SPDX-License-Identifier: GPL-2.0
/* The name sanitizers (lib/sanitize.c) on the hostile names of issue 27,
 * byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include "lib/sanitize.h"

struct want {
	const char *in, *text, *json, *csv, *label;
};

static const struct want names[] = {
	{ "\x1b[2J\x1b[31mX", "\\x1b[2J\\x1b[31mX", "\\u001b[2J\\u001b[31mX",
	  "\"\\x1b[2J\\x1b[31mX\"", "\\\\x1b[2J\\\\x1b[31mX" },
	{ "\x1b]0;pw\a", "\\x1b]0;pw\\x07", "\\u001b]0;pw\\u0007",
	  "\"\\x1b]0;pw\\x07\"", "\\\\x1b]0;pw\\\\x07" },
	{ "a\nb,c\"d\\e", "a\\x0ab,c\"d\\\\e", "a\\nb,c\\\"d\\\\\\\\e",
	  "\"a\\x0ab,c\"\"d\\\\e\"", "a\\nb,c\\\"d\\\\\\\\e" },
	/* Issue 46: a literal backslash and the escape of a byte read
	 * apart in every kind ("c\x01d" against c, 0x01, d above). */
	{ "c\\x01d", "c\\\\x01d", "c\\\\\\\\x01d", "\"c\\\\x01d\"", "c\\\\\\\\x01d" },
	{ "c\x01" "d", "c\\x01d", "c\\u0001d", "\"c\\x01d\"", "c\\\\x01d" },
	/* A leading ' is guarded too: "'=1" is not "=1". */
	{ "'=1", "'=1", "'=1", "\"''=1\"", "'=1" },
	{ "q\"}{\r", "q\"}{\\x0d", "q\\\"}{\\r", "\"q\"\"}{\\x0d\"", "q\\\"}{\\\\x0d" },
	{ "\xff\xfe\xc3(", "\\xff\\xfe\\xc3(", "\\\\xff\\\\xfe\\\\xc3(",
	  "\"\\xff\\xfe\\xc3(\"", "\\\\xff\\\\xfe\\\\xc3(" },
	{ "=1+1", "=1+1", "=1+1", "\"'=1+1\"", "=1+1" },
	{ "=cmd|'/C calc'", "=cmd|'/C calc'", "=cmd|'/C calc'",
	  "\"'=cmd|'/C calc'\"", "=cmd|'/C calc'" },
	{ "@SUM(1+1)", "@SUM(1+1)", "@SUM(1+1)", "\"'@SUM(1+1)\"", "@SUM(1+1)" },
	/* Kept: printable ASCII, UTF-8 of 2, 3 and 4 bytes. */
	{ "dd", "dd", "dd", "\"dd\"", "dd" },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe",
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe",
	  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe\"",
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe" },
	/* C1 CSI, DEL, an overlong '/', a surrogate, beyond U+10FFFF. */
	{ "\xc2\x9b" "1m\x7f", "\\xc2\\x9b1m\\x7f", "\\u009b1m\\u007f",
	  "\"\\xc2\\x9b1m\\x7f\"", "\\\\xc2\\\\x9b1m\\\\x7f" },
	{ "\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80", "\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80",
	  "\\\\xc0\\\\xaf\\\\xed\\\\xa0\\\\x80\\\\xf4\\\\x90\\\\x80\\\\x80",
	  "\"\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80\"",
	  "\\\\xc0\\\\xaf\\\\xed\\\\xa0\\\\x80\\\\xf4\\\\x90\\\\x80\\\\x80" },
	/* The other formula starters; a '-' inside is left alone. */
	{ "+1", "+1", "+1", "\"'+1\"", "+1" },
	{ "-1-2", "-1-2", "-1-2", "\"'-1-2\"", "-1-2" },
	{ "\tx", "\\x09x", "\\tx", "\"'\\x09x\"", "\\\\x09x" },
	{ "", "", "", "\"\"", "" },
};

static void check(const char *in, size_t (*f)(char *, const char *, size_t),
		  size_t bound, const char *want)
{
	char out[512];
	size_t n = f(out, in, strlen(in));

	assert_true(n <= bound);
	out[n] = '\0';
	assert_string_equal(out, want);
}

static void test_hostile_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct want *w = &names[i];
		size_t n = strlen(w->in);

		check(w->in, san_text, SAN_TEXT_MAX(n), w->text);
		check(w->in, san_json, SAN_JSON_MAX(n), w->json);
		check(w->in, san_csv, SAN_CSV_MAX(n), w->csv);
		check(w->in, san_label, SAN_LABEL_MAX(n), w->label);
	}
}

/* The worst case of each is its bound, exactly. */
static void test_bounds(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(san_text(out, "\x01\xff", 2), SAN_TEXT_MAX(2));
	assert_int_equal(san_json(out, "\x01\x02", 2), SAN_JSON_MAX(2));
	assert_int_equal(san_csv(out, "=\xff", 2), SAN_CSV_MAX(2) - 3);
	assert_int_equal(san_csv(out, "\t\xff", 2), SAN_CSV_MAX(2));
	assert_int_equal(san_label(out, "\x01\xff", 2), SAN_LABEL_MAX(2));
}

/* A NUL inside counted bytes is a byte like another. */
static void test_nul_inside(void **state)
{
	char out[64];
	size_t n = san_text(out, "a\0b", 3);

	(void)state;
	out[n] = '\0';
	assert_string_equal(out, "a\\x00b");
}

/* A buffer too small keeps whole escapes and characters only. */
static void test_text_buf_cuts_whole(void **state)
{
	char buf[8];

	(void)state;
	assert_string_equal(san_text_buf(buf, sizeof(buf), "ab\x1b\x1b"), "ab\\x1b");
	assert_string_equal(san_text_buf(buf, sizeof(buf), "abcd\xe2\x82\xac!"),
			    "abcd\xe2\x82\xac");
	assert_string_equal(san_text_buf(buf, sizeof(buf), "abcde\xe2\x82\xac"), "abcde");
	assert_string_equal(san_text_buf(buf, sizeof(buf), NULL), "");
	assert_string_equal(san_text_buf(buf, sizeof(buf), "a\x07"), "a\\x07");
}

static void test_cols(void **state)
{
	int w;

	(void)state;
	assert_int_equal(san_cols("abcdef", 4, &w), 4);
	assert_int_equal(w, 4);
	assert_int_equal(san_cols("ab", 4, &w), 2);
	assert_int_equal(w, 2);
	/* Never half a character, whatever the locale says of its width. */
	assert_int_equal(san_cols("a\xe2\x82\xac", 1, &w), 1);
	assert_int_equal(san_cols("a\xe2\x82\xac", 2, &w), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_nul_inside),
		cmocka_unit_test(test_text_buf_cuts_whole),
		cmocka_unit_test(test_cols),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
