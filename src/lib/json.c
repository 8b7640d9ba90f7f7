// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include "lib/json.h"
#include "lib/sanitize.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
}

/* Every string through lib/sanitize: many are names of others (comm,
 * cgroup, device), and JSON must be valid UTF-8 whatever their bytes. */
void json_write_string(FILE *f, const char *s)
{
	fputc('"', f);
	san_fputs_json(f, s);
	fputc('"', f);
}

static void json_key(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (key) {
		json_write_string(j->f, key);
		fputc(':', j->f);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_key(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void json_close(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_obj_open(struct json *j, const char *key) { json_open(j, key, '{'); }
void json_obj_close(struct json *j) { json_close(j, '}'); }
void json_arr_open(struct json *j, const char *key) { json_open(j, key, '['); }
void json_arr_close(struct json *j) { json_close(j, ']'); }

void json_str(struct json *j, const char *key, const char *val)
{
	json_key(j, key);
	if (val)
		json_write_string(j->f, val);
	else
		fputs("null", j->f);
}

/* printf's number formatting is most of the cost of a JSON line per
 * request at 200k requests/s; digits are cheap to make by hand. */
static void put_u64(FILE *f, unsigned long long v)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	fwrite(p, 1, buf + sizeof(buf) - p, f);
}

void json_u64(struct json *j, const char *key, unsigned long long v)
{
	json_key(j, key);
	put_u64(j->f, v);
}

void json_i64(struct json *j, const char *key, long long v)
{
	json_key(j, key);
	if (v < 0) {
		fputc('-', j->f);
		put_u64(j->f, -(unsigned long long)v);
	} else {
		put_u64(j->f, v);
	}
}

void json_ns_as_s(struct json *j, const char *key, long long ns)
{
	unsigned long long a;
	char frac[10];

	json_key(j, key);
	if (ns < 0)
		fputc('-', j->f);
	a = ns < 0 ? -(unsigned long long)ns : (unsigned long long)ns;
	put_u64(j->f, a / 1000000000);
	a %= 1000000000;
	frac[0] = '.';
	for (int i = 9; i >= 1; i--, a /= 10)
		frac[i] = '0' + a % 10;
	fwrite(frac, 1, sizeof(frac), j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->f);
}

void json_f64(struct json *j, const char *key, double v, int prec)
{
	json_key(j, key);
	if (isnan(v) || isinf(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.*f", prec, v);
}

void json_newline(struct json *j)
{
	fputc('\n', j->f);
	j->need_comma[0] = false;
}
