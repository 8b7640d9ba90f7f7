/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal streaming JSON writer: commas and escaping handled here so that
 * every command's -j output is valid JSON. */
#ifndef IOLENS_JSON_H
#define IOLENS_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f);
/* `key` is NULL inside arrays and at the top level. */
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_str(struct json *j, const char *key, const char *val);	/* NULL -> null */
void json_u64(struct json *j, const char *key, unsigned long long v);
void json_i64(struct json *j, const char *key, long long v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* Nanoseconds as seconds with all nine decimals, exactly. */
void json_ns_as_s(struct json *j, const char *key, long long ns);
/* Fixed-point number with `prec` decimals; NaN or infinity -> null. */
void json_f64(struct json *j, const char *key, double v, int prec);
/* Ends a top-level value with a newline (JSON lines). */
void json_newline(struct json *j);
/* Writes `s` as a JSON string literal (quotes included), made valid UTF-8
 * with controls escaped by lib/sanitize. */
void json_write_string(FILE *f, const char *s);

#endif
