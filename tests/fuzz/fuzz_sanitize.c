// SPDX-License-Identifier: GPL-2.0
/*
 * The name sanitizers (lib/sanitize.c): any bytes in, and for each output
 * kind the result stays within its bound, is valid UTF-8 and holds no
 * control byte (< 0x20, DEL); a CSV field is one quoted field; JSON and
 * label content has no quote or backslash that ends or escapes wrongly.
 * And each is injective: what a reader of the format gets back (a JSON
 * parser, promtool, a CSV reader, a browser) decodes to the very input, so
 * no two names are ever shown as one.
 */
#include <stdbool.h>
#include <stdio.h>
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

static int hexval(unsigned char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The name from the value every kind carries: \\ and \xNN undone; a
 * backslash that is neither would be ambiguous. */
static size_t unvalue(const unsigned char *s, size_t n, unsigned char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			out[o++] = s[i];
		} else if (i + 1 < n && s[i + 1] == '\\') {
			out[o++] = '\\';
			i++;
		} else if (i + 3 < n && s[i + 1] == 'x' && hexval(s[i + 2]) >= 0 &&
			   hexval(s[i + 3]) >= 0) {
			out[o++] = hexval(s[i + 2]) << 4 | hexval(s[i + 3]);
			i += 3;
		} else {
			abort();
		}
	}
	return o;
}

/* A JSON string's content as a JSON parser reads it, in UTF-8. */
static size_t unjson(const unsigned char *s, size_t n, unsigned char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned int cp = 0;

		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		if (++i == n)
			abort();
		switch (s[i]) {
		case '"': out[o++] = '"'; break;
		case '\\': out[o++] = '\\'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'u':
			if (i + 4 >= n + 0 && i + 4 > n - 1 + 1)
				abort();
			for (int k = 1; k <= 4; k++) {
				if (hexval(s[i + k]) < 0)
					abort();
				cp = cp << 4 | hexval(s[i + k]);
			}
			i += 4;
			if (cp >= 0x800)
				abort();	/* only controls are escaped */
			if (cp < 0x80) {
				out[o++] = cp;
			} else {
				out[o++] = 0xc0 | cp >> 6;
				out[o++] = 0x80 | (cp & 0x3f);
			}
			break;
		default:
			abort();
		}
	}
	return o;
}

/* A label value as the exposition format's parsers read it. */
static size_t unlabel(const unsigned char *s, size_t n, unsigned char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		if (++i == n)
			abort();
		if (s[i] == 'n')
			out[o++] = '\n';
		else if (s[i] == '\\' || s[i] == '"')
			out[o++] = s[i];
		else
			abort();
	}
	return o;
}

/* A CSV field as a reader gets it, less the formula guard's '. */
static size_t uncsv(const unsigned char *s, size_t n, unsigned char *out)
{
	size_t o = 0;

	for (size_t i = 1; i + 1 < n; i++) {
		out[o++] = s[i];
		if (s[i] == '"')
			i++;
	}
	if (o && out[0] == '\'') {
		memmove(out, out + 1, o - 1);
		o--;
	}
	return o;
}

/* HTML text as a browser reads it: the five entities. */
static size_t unhtml(const unsigned char *s, size_t n, unsigned char *out)
{
	static const struct {
		const char *ent;
		char c;
	} ents[] = { { "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' },
		     { "&quot;", '"' }, { "&#39;", '\'' } };
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (s[i] == '<' || s[i] == '>' || s[i] == '"' || s[i] == '\'')
			abort();
		if (s[i] != '&') {
			out[o++] = s[i];
			continue;
		}
		for (k = 0; k < sizeof(ents) / sizeof(ents[0]); k++) {
			size_t len = strlen(ents[k].ent);

			if (i + len <= n && !memcmp(s + i, ents[k].ent, len)) {
				out[o++] = ents[k].c;
				i += len - 1;
				break;
			}
		}
		if (k == sizeof(ents) / sizeof(ents[0]))
			abort();
	}
	return o;
}

/* No character XML 1.0 lacks: U+FFFE, U+FFFF (the rest is checked). */
static void xml_chars(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i + 2 < n; i++)
		if (s[i] == 0xef && s[i + 1] == 0xbf && s[i + 2] >= 0xbe)
			abort();
}

/* decode(out), then the value undone, is the input. */
static void back_to(const uint8_t *in, size_t size, const unsigned char *out, size_t n,
		    size_t (*decode)(const unsigned char *, size_t, unsigned char *))
{
	unsigned char *mid = malloc(n + 1), *name = malloc(n + 1);
	size_t m;

	if (!mid || !name)
		abort();
	m = decode ? decode(out, n, mid) : (memcpy(mid, out, n), n);
	m = unvalue(mid, m, name);
	if (m != size || memcmp(name, in, size))
		abort();
	free(mid);
	free(name);
}

/* san_fputs_html() of the C string s (size bytes). */
static void check_html(const uint8_t *in, size_t size, const char *s)
{
	char *html = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&html, &n);

	if (!f)
		abort();
	san_fputs_html(f, s);
	if (fclose(f) || !valid_utf8((unsigned char *)html, n))
		abort();
	no_controls((unsigned char *)html, n);
	xml_chars((unsigned char *)html, n);
	back_to(in, size, (unsigned char *)html, n, unhtml);
	free(html);
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
	back_to(data, size, out, n, NULL);

	n = san_json((char *)out, in, size);
	if (n > SAN_JSON_MAX(size) || !valid_utf8(out, n))
		abort();
	no_controls(out, n);
	escaped_content(out, n);
	back_to(data, size, out, n, unjson);

	n = san_csv((char *)out, in, size);
	if (n > SAN_CSV_MAX(size) || !valid_utf8(out, n))
		abort();
	no_controls(out, n);
	one_csv_field(out, n);
	if (n > 2 && strchr("=+-@", out[1]))
		abort();
	back_to(data, size, out, n, uncsv);

	n = san_label((char *)out, in, size);
	if (n > SAN_LABEL_MAX(size) || !valid_utf8(out, n))
		abort();
	no_controls(out, n);
	escaped_content(out, n);
	back_to(data, size, out, n, unlabel);

	/* The bounded form of a C string: within the buffer, whole units;
	 * HTML, which is written to a FILE, from the same string. */
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
			check_html(data, size, s);
			free(s);
		}
	}
	free(out);
	return 0;
}
