// SPDX-License-Identifier: GPL-2.0
/*
 * The name sanitizers (lib/sanitize.c): any bytes in, and for each output
 * kind the result stays within its bound, is valid UTF-8 and holds no
 * control byte (< 0x20, DEL); a CSV field is one quoted field; JSON and
 * label content has no quote or backslash that ends or escapes wrongly.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "lib/sanitize.h"

/* RFC 3629, as Python's decoder reads it. */
static bool valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;
		unsigned int cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, cp = c & 0x07;
		else
			return false;
		if (i + len > n)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		i += len;
	}
	return true;
}

static void no_controls(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			abort();
}

/* Backslash escapes complete, and no bare quote: a " is always escaped. */
static void escaped_content(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			abort();
		if (s[i] == '\\') {
			if (i + 1 == n)
				abort();
			i++;
		}
	}
}

/* "...": quotes inside come in pairs. */
static void one_csv_field(const unsigned char *s, size_t n)
{
	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		abort();
	for (size_t i = 1; i < n - 1; i++) {
		if (s[i] != '"')
			continue;
		if (i + 1 >= n - 1 || s[i + 1] != '"')
			abort();
		i++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	unsigned char *out = malloc(SAN_JSON_MAX(size) + 4);
	char buf[64];
	size_t n;

	if (!out)
		return 0;
	n = san_text((char *)out, in, size);
	if (n > SAN_TEXT_MAX(size) || !valid_utf8(out, n))
		abort();
	no_controls(out, n);

	n = san_json((char *)out, in, size);
	if (n > SAN_JSON_MAX(size) || !valid_utf8(out, n))
		abort();
	no_controls(out, n);
	escaped_content(out, n);

	n = san_csv((char *)out, in, size);
	if (n > SAN_CSV_MAX(size) || !valid_utf8(out, n))
		abort();
	no_controls(out, n);
	one_csv_field(out, n);
	if (n > 2 && strchr("=+-@", out[1]))
		abort();

	n = san_label((char *)out, in, size);
	if (n > SAN_LABEL_MAX(size) || !valid_utf8(out, n))
		abort();
	no_controls(out, n);
	escaped_content(out, n);

	/* The bounded form of a C string: within the buffer, whole units. */
	if (!memchr(data, 0, size)) {
		char *s = malloc(size + 1);

		if (s) {
			memcpy(s, data, size);
			s[size] = '\0';
			san_text_buf(buf, sizeof(buf), s);
			n = strlen(buf);
			if (n >= sizeof(buf) || !valid_utf8((unsigned char *)buf, n))
				abort();
			no_controls((unsigned char *)buf, n);
			free(s);
		}
	}
	free(out);
	return 0;
}
