// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "lib/log.h"
#include "lib/sanitize.h"

int log_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!log_verbose || (level == LIBBPF_DEBUG && log_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

/* A message is one line of text whatever its arguments hold (a value
 * someone typed, a name someone chose): controls and invalid UTF-8 as
 * \xNN, and past 2,000 bytes its middle cut, so the start and the hint at
 * its end stay. */
#define MSG_MAX		2000
#define MSG_HEAD	1400

/* Where to cut s at or before `at`: not inside a character or an escape. */
static size_t cut_at(const char *s, size_t at)
{
	while (at && ((unsigned char)s[at] & 0xc0) == 0x80)
		at--;
	for (size_t k = 1; k <= 3 && k <= at; k++) {
		if (s[at - k] == '\\' && s[at - k + 1] == 'x')
			return at - k;
	}
	return at;
}

static void put_msg(const char *fmt, va_list ap)
{
	char *raw = NULL, *txt;
	size_t n, o = 0;
	int len = vasprintf(&raw, fmt, ap);

	if (len < 0) {
		fputs("(out of memory for the message)", stderr);
		return;
	}
	n = len;
	txt = malloc(4 * n + 1);
	if (!txt) {
		fputs("(out of memory for the message)", stderr);
		free(raw);
		return;
	}
	for (size_t i = 0; i < n;) {
		size_t c = san_char_len(raw + i, n - i);

		if (c && (unsigned char)raw[i] >= 0x20 && raw[i] != 0x7f) {
			memcpy(txt + o, raw + i, c);
			o += c;
			i += c;
		} else {
			o += sprintf(txt + o, "\\x%02x", (unsigned char)raw[i++]);
		}
	}
	txt[o] = '\0';
	if (o > MSG_MAX) {
		size_t head = cut_at(txt, MSG_HEAD), tail = cut_at(txt, o - (MSG_MAX - MSG_HEAD));

		fprintf(stderr, "%.*s ... %s", (int)head, txt, txt + tail);
	} else {
		fputs(txt, stderr);
	}
	free(txt);
	free(raw);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	fputs("iolens: ", stderr);
	va_start(ap, fmt);
	put_msg(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "iolens %s: ", cmd);
	va_start(ap, fmt);
	put_msg(fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'iolens %s --help')\n", cmd);
	return 2;
}

const char *log_excerpt(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 8 < len; s++) {
		unsigned char c = *s;

		if (c >= 0x20 && c < 0x7f)
			buf[n++] = c;
		else
			n += snprintf(buf + n, len - n, "\\x%02x", c);
		if (n >= 60 && s[1]) {
			snprintf(buf + n, len - n, "...");
			return buf;
		}
	}
	buf[n] = '\0';
	return buf;
}

const char *log_name(const char *s)
{
	static __thread char buf[4][1024];
	static __thread unsigned int next;
	char *b = buf[next++ % 4], *all;
	size_t n = s ? strlen(s) : 0;

	if (SAN_TEXT_MAX(n) < sizeof(buf[0]))
		return san_text_buf(b, sizeof(buf[0]), s);
	/* Maybe too long: whole if it is not, else cut and said so. */
	all = malloc(SAN_TEXT_MAX(n));
	if (all && san_text(all, s, n) < sizeof(buf[0])) {
		free(all);
		return san_text_buf(b, sizeof(buf[0]), s);
	}
	free(all);
	san_text_buf(b, sizeof(buf[0]) - 3, s);
	strcat(b, "...");
	return b;
}
