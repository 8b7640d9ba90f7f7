/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names written by someone else -- a task's comm or command line, a cgroup
 * directory, a file name, a device or host name read from a trace file --
 * as each kind of output may carry them.  Any unprivileged user picks such
 * a name, and iolens prints it as root: to a terminal, into JSON, CSV or a
 * Prometheus scrape.  Every such string goes through one of these.
 *
 * Common to all: the output is valid UTF-8 with no byte below 0x20 and no
 * DEL.  Printable ASCII and valid UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF) are kept; a byte of invalid UTF-8 is
 * shown as the four characters \xNN, as journalctl and ps show them, and
 * a backslash of the name as two, so one name reads the same in every
 * format and no two names read the same in any (processes "c\x01d" and
 * "c\\x01d" are two series): what a reader of the format gets back is
 * the name with \ doubled and \xNN for each byte the format cannot carry.
 * tests/fuzz/fuzz_sanitize.c decodes every kind back to its input.
 *
 *   san_text   terminal text: C0 controls, DEL and C1 controls (U+0080 to
 *              U+009F, byte by byte) as \xNN too.  Nothing moves a cursor.
 *   san_json   the content of a JSON string (without its quotes): controls
 *              as \n \r \t or \u00XX, " escaped; an invalid byte as the
 *              text \xNN (JSON "\\xNN"), a backslash as the text \\ (JSON
 *              "\\\\").
 *   san_csv    a whole CSV field, always quoted (RFC 4180, "" for "); the
 *              controls and invalid bytes as \xNN; a field that starts
 *              with = + - @ TAB or CR gets a leading ' (OWASP's advice
 *              against formula injection), and so does one that starts
 *              with ', so the prefix is always the one to take off.
 *   (HTML)     san_fputs_html(): terminal text, U+FFFE and U+FFFF (not
 *              XML characters) as \xNN too, then & < > " ' as entities.
 *   san_label  the content of a Prometheus label value (without quotes):
 *              the exposition format's \\ \" \n of the text above, other
 *              controls and invalid bytes as \\xNN.
 *
 * Each writes at most SAN_*_MAX(n) bytes for n bytes in, without a NUL,
 * and returns how many: a caller that reserved the bound checks nothing
 * (snoop formats half a million lines a second).  Plain printable ASCII,
 * the common comm, is copied in runs.
 */
#ifndef IOLENS_SANITIZE_H
#define IOLENS_SANITIZE_H

#include <stddef.h>
#include <stdio.h>

#define SAN_TEXT_MAX(n)		(4 * (size_t)(n))
#define SAN_JSON_MAX(n)		(6 * (size_t)(n))
#define SAN_CSV_MAX(n)		(4 * (size_t)(n) + 3)
#define SAN_LABEL_MAX(n)	(5 * (size_t)(n))

size_t san_text(char *out, const char *s, size_t n);
size_t san_json(char *out, const char *s, size_t n);
size_t san_csv(char *out, const char *s, size_t n);
size_t san_label(char *out, const char *s, size_t n);

/*
 * Terminal text of the C string s into buf of len bytes, NUL-terminated:
 * as much of it as fits whole (never half an escape or a character).
 * Returns buf, so it can be printf()'s argument.  s NULL gives "".
 */
const char *san_text_buf(char *buf, size_t len, const char *s);

/* The length of the character at s (n bytes left, n > 0): 1 for ASCII, 2
 * to 4 for valid UTF-8 of U+00A0 and above, 0 for an invalid byte or a C1
 * control. */
size_t san_char_len(const char *s, size_t n);

/* The same of the C string s, to f; NULL writes nothing. */
void san_fputs_text(FILE *f, const char *s);
void san_fputs_json(FILE *f, const char *s);		/* content, no quotes */
void san_fputs_label(FILE *f, const char *s);		/* content, no quotes */
/* HTML or SVG text or attribute: terminal text with & < > " ' as entities
 * (XML allows no control character either). */
void san_fputs_html(FILE *f, const char *s);

/*
 * Of sanitized text s, the bytes of the longest prefix at most `cols`
 * terminal columns wide (wcwidth() of each character in the current
 * locale; one column where it does not know), never cutting a character;
 * its width in *width.  For columns drawn with ncurses, which pads by
 * bytes.
 */
size_t san_cols(const char *s, int cols, int *width);

#endif
