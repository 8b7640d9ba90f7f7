// SPDX-License-Identifier: GPL-2.0
/* Names of others, made safe for each output (include/lib/sanitize.h). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>
#include "lib/sanitize.h"

enum san_kind { SAN_TEXT, SAN_JSON, SAN_CSV, SAN_LABEL, SAN_HTML };

#define INLINE static inline __attribute__((always_inline))

static const char hex[] = "0123456789abcdef";

/* Printable ASCII but " and \, which every kind but text escapes. */
static const bool plain[256] = {
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7e] = true,
};

/*
 * The length of the valid UTF-8 sequence of a character >= U+00A0 at s
 * (n bytes left), or 0: RFC 3629's table, so no overlong form, no
 * surrogate, nothing beyond U+10FFFF.  C1 controls (C2 80..9F) are not
 * printable and count as invalid here.
 */
/* Of each lead byte: the sequence's length and its second byte's range. */
static const struct {
	unsigned char len, lo, hi;
} lead[256] = {
	[0xc2] = { 2, 0xa0, 0xbf },		/* not C1 */
	[0xc3 ... 0xdf] = { 2, 0x80, 0xbf },
	[0xe0] = { 3, 0xa0, 0xbf },		/* not overlong */
	[0xe1 ... 0xec] = { 3, 0x80, 0xbf },
	[0xed] = { 3, 0x80, 0x9f },		/* not a surrogate */
	[0xee ... 0xef] = { 3, 0x80, 0xbf },
	[0xf0] = { 4, 0x90, 0xbf },		/* not overlong */
	[0xf1 ... 0xf3] = { 4, 0x80, 0xbf },
	[0xf4] = { 4, 0x80, 0x8f },		/* not beyond U+10FFFF */
};

INLINE size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = lead[s[0]].len;

	if (!len || n < len || s[1] < lead[s[0]].lo || s[1] > lead[s[0]].hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* \xNN, after a second backslash where the format reads one. */
INLINE char *put_x(char *o, unsigned char c, bool dbl)
{
	*o++ = '\\';
	if (dbl)
		*o++ = '\\';
	*o++ = 'x';
	*o++ = hex[c >> 4];
	*o++ = hex[c & 15];
	return o;
}

/* One control byte (< 0x20 or 0x7f) of kind k. */
INLINE char *put_ctl(char *o, unsigned char c, enum san_kind k)
{
	if (k == SAN_JSON) {
		*o++ = '\\';
		switch (c) {
		case '\n': *o++ = 'n'; return o;
		case '\r': *o++ = 'r'; return o;
		case '\t': *o++ = 't'; return o;
		}
		memcpy(o, "u00", 3);
		o[3] = hex[c >> 4];
		o[4] = hex[c & 15];
		return o + 5;
	}
	if (k == SAN_LABEL && c == '\n') {
		*o++ = '\\';
		*o++ = 'n';
		return o;
	}
	return put_x(o, c, k == SAN_LABEL);
}

/*
 * The engine of all five kinds, specialized for each by inlining.  The
 * rules of each are the header's; here only what is not obvious: a C1
 * control in JSON is the \u0080..\u009f escape (one character, as text
 * and CSV show its two bytes), the CSV field's quotes and ' prefix, and
 * HTML is text but for the two characters XML does not have.
 */
INLINE size_t san_kind(char *out, const char *str, size_t n, enum san_kind k)
{
	const unsigned char *s = (const unsigned char *)str;
	char *o = out;
	size_t i = 0;

	if (k == SAN_CSV) {
		*o++ = '"';
		/* A name that starts with ' gets one too: the prefix is
		 * always the one to take off. */
		if (n && s[0] && strchr("=+-@\t\r'", s[0]))
			*o++ = '\'';
	}
	while (i < n) {
		size_t j = i;
		unsigned char c;

		while (j < n && plain[s[j]])
			j++;
		memcpy(o, s + i, j - i);
		o += j - i;
		i = j;
		if (i == n)
			break;
		c = s[i];
		if (c >= 0x80) {
			size_t len = utf8_len(s + i, n - i);

			/* XML has no U+FFFE or U+FFFF (its Char production). */
			if (k == SAN_HTML && len == 3 && c == 0xef && s[i + 1] == 0xbf &&
			    s[i + 2] >= 0xbe)
				len = 0;
			if (len) {
				memcpy(o, s + i, len);
				o += len;
				i += len;
				continue;
			}
			if (k == SAN_JSON && c == 0xc2 && i + 1 < n && s[i + 1] < 0xa0 &&
			    s[i + 1] >= 0x80) {
				memcpy(o, "\\u00", 4);
				o[4] = hex[s[i + 1] >> 4];
				o[5] = hex[s[i + 1] & 15];
				o += 6;
				i += 2;
				continue;
			}
			o = put_x(o, c, k == SAN_JSON || k == SAN_LABEL);
		} else if (c == '"') {
			if (k != SAN_TEXT && k != SAN_HTML)
				*o++ = k == SAN_CSV ? '"' : '\\';
			*o++ = '"';
		} else if (c == '\\') {
			/* The escape character escaped in the name itself,
			 * then as the format writes a backslash. */
			int reps = k == SAN_JSON || k == SAN_LABEL ? 4 : 2;

			memset(o, '\\', reps);
			o += reps;
		} else {
			o = put_ctl(o, c, k);
		}
		i++;
	}
	if (k == SAN_CSV)
		*o++ = '"';
	return o - out;
}

size_t san_char_len(const char *s, size_t n)
{
	return (unsigned char)s[0] < 0x80 ? 1 : utf8_len((const unsigned char *)s, n);
}

size_t san_text(char *out, const char *s, size_t n)
{
	return san_kind(out, s, n, SAN_TEXT);
}

size_t san_json(char *out, const char *s, size_t n)
{
	return san_kind(out, s, n, SAN_JSON);
}

size_t san_csv(char *out, const char *s, size_t n)
{
	return san_kind(out, s, n, SAN_CSV);
}

size_t san_label(char *out, const char *s, size_t n)
{
	return san_kind(out, s, n, SAN_LABEL);
}

const char *san_text_buf(char *buf, size_t len, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = s ? strlen(s) : 0, got = 0;

	if (!len)
		return buf;
	if (SAN_TEXT_MAX(n) < len) {
		buf[san_text(buf, s, n)] = '\0';
		return buf;
	}
	/* Maybe too long: a character or escape at a time, while it fits. */
	for (size_t i = 0, step; i < n; i += step) {
		char one[SAN_TEXT_MAX(4)];
		size_t w;

		step = u[i] >= 0x80 ? utf8_len(u + i, n - i) : 1;
		if (!step)
			step = 1;
		w = san_text(one, s + i, step);
		if (got + w >= len)
			break;
		memcpy(buf + got, one, w);
		got += w;
	}
	buf[got] = '\0';
	return buf;
}

/* Text with HTML's five characters as entities. */
static void put_html(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(s[i], f);
		}
	}
}

/* Through a buffer on the stack, in pieces that end on a character. */
static void san_fputs(FILE *f, const char *s, enum san_kind k)
{
	char out[SAN_JSON_MAX(256)];
	size_t n = s ? strlen(s) : 0;

	while (n) {
		size_t take = n < 256 ? n : 256;

		/* Back off to the start of a character (at most 3 bytes). */
		for (int b = 0; take < n && b < 3 && (s[take] & 0xc0) == 0x80; b++)
			take--;
		if (k == SAN_HTML)
			put_html(f, out, san_kind(out, s, take, SAN_HTML));
		else
			fwrite(out, 1, k == SAN_TEXT ? san_text(out, s, take) :
				       k == SAN_JSON ? san_json(out, s, take) :
				       san_label(out, s, take), f);
		s += take;
		n -= take;
	}
}

void san_fputs_text(FILE *f, const char *s)
{
	san_fputs(f, s, SAN_TEXT);
}

void san_fputs_json(FILE *f, const char *s)
{
	san_fputs(f, s, SAN_JSON);
}

void san_fputs_label(FILE *f, const char *s)
{
	san_fputs(f, s, SAN_LABEL);
}

void san_fputs_html(FILE *f, const char *s)
{
	san_fputs(f, s, SAN_HTML);
}

size_t san_cols(const char *s, int cols, int *width)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n = strlen(s);
	int w = 0;

	while (i < n) {
		size_t len = u[i] >= 0x80 ? utf8_len(u + i, n - i) : 1;
		wchar_t wc;
		mbstate_t st;
		int cw = 1;

		if (!len)
			len = 1;
		memset(&st, 0, sizeof(st));
		if (len > 1 && mbrtowc(&wc, s + i, len, &st) == len) {
			cw = wcwidth(wc);
			if (cw < 0)
				cw = 1;
		}
		if (w + cw > cols)
			break;
		w += cw;
		i += len;
	}
	if (width)
		*width = w;
	return i;
}
