// SPDX-License-Identifier: GPL-2.0
/*
 * The options of iolens load, by the table of load/options.def.  The
 * command line and the job files (load_jobfile.c) both feed it through
 * load_opt_set(), so that both accept exactly the same options.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "load/cpus.h"
#include "load/dist.h"
#include "load/engine.h"
#include "load/load.h"
#include "load/opt_table.h"
#include "load/opts.h"
#include "load/prio.h"
#include "load/steady.h"
#include "lib/parse.h"
#include "lib/wrap.h"

void load_opts_init(struct load_job_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->rw = LOAD_RW_READ;
	o->rwmixread = 50;
	o->bs = 4096;
	for (int d = 0; d < LOAD_DIRS; d++)
		o->bsz[d].min = o->bsz[d].max = o->bs;
	o->ioengine = load_engine_find(NULL);
	o->iodepth = 1;
	o->batch_complete_min = 1;
	o->format = LOAD_FMT_NORMAL;
	o->numjobs = 1;
	o->cpus_policy = LOAD_CPUS_DEFAULT;
	o->bw_avg_ms = 500;
	o->iops_avg_ms = 500;
	o->nrfiles = 1;
	o->fservice_nr = 1;
	o->loops = 1;
	o->think_blocks = 1;
	o->invalidate = true;
	o->fadvise_hint = true;
	o->randrepeat = true;
	o->allow_file_create = true;
	o->do_verify = true;
	o->fallocate = LOAD_FALLOC_NATIVE;
	o->fixedbufs = true;
	o->registerfiles = true;
	o->nonvectored = true;
	o->prio = o->prioclass = LOAD_PRIO_UNSET;
	o->latency_pct = 100.0;
	o->terse_version = 3;
	o->scramble_buffers = true;
	o->buf_compress_chunk = 512;
	o->dedupe_ws_pct = 5;
	/* fio's default criterion, used once ss_dur is given. */
	o->ss_flags = LOAD_SS_IOPS | LOAD_SS_SLOPE | LOAD_SS_PCT;
	o->ss_limit = 0.01;
	/* fio's default seed, so that runs repeat as fio's do. */
	o->randseed = 0x89;
}

/* The option called `name`, by its own name or another of fio's. */
static const struct load_opt *find(const char *name)
{
	for (size_t i = 0; i < load_opt_table_n; i++) {
		if (!strcmp(load_opt_table[i].name, name))
			return &load_opt_table[i];
	}
	for (size_t i = 0; i < load_opt_aliases_n; i++) {
		if (!strcmp(load_opt_aliases[i].name, name))
			return find(load_opt_aliases[i].of);
	}
	return NULL;
}

bool load_opt_given(const struct load_job_opts *o, const char *name)
{
	for (int i = 0; i < o->ngiven; i++) {
		if (!strcmp(o->given[i].name, name))
			return true;
	}
	return false;
}

bool load_opt_known(const char *name)
{
	return find(name) != NULL;
}

/* fio takes these only on its command line, not in a job file. */
bool load_opt_cmdline_only(const char *name)
{
	return !strcmp(name, "output-format") || !strcmp(name, "output") ||
	       !strcmp(name, "terse-version") || !strcmp(name, "minimal") ||
	       !strcmp(name, "allow-destroy") || !strcmp(name, "sweep") ||
	       !strcmp(name, "eta");
}

bool load_opt_run_wide(const char *name)
{
	return load_opt_cmdline_only(name) || !strcmp(name, "group_reporting");
}

bool load_opt_is_flag(const char *name)
{
	const struct load_opt *op = find(name);

	return op && (op->type == T_BOOL || op->type == T_NOT);
}

static int parse_bool(const char *s, bool *b)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	if (!s) {
		*b = true;
		return 0;
	}
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*b = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -1;
}

static void remember(struct load_job_opts *o, const char *name,
		     const char *value)
{
	/* The JSON shows each option once, with the value that counts. */
	for (int i = 0; i < o->ngiven; i++) {
		if (!strcmp(o->given[i].name, name)) {
			o->given[i].value = value;
			return;
		}
	}
	if (o->ngiven < LOAD_MAX_GIVEN)
		o->given[o->ngiven++] = (struct load_given){ name, value };
}

/* fio's "read,write,trim" values: "a" is all three, "a,b" is b for writes
 * and trims, an empty part keeps that direction as it was.  Copies the
 * parts into buf and points part[] at them; NULL for a kept one. */
static int split_dirs(const char *value, char *buf, size_t len,
		      char *part[LOAD_DIRS])
{
	char *p[LOAD_DIRS + 1];
	int n = 0;

	if (snprintf(buf, len, "%s", value) >= (int)len)
		return -1;
	p[n++] = buf;
	for (char *c = buf; *c; c++) {
		if (*c != ',')
			continue;
		if (n == LOAD_DIRS)
			return -1;
		*c = '\0';
		p[n++] = c + 1;
	}
	for (int d = 0; d < LOAD_DIRS; d++) {
		char *v = p[d < n ? d : n - 1];

		part[d] = *v ? v : NULL;
	}
	return 0;
}

static int set_dirs(struct load_job_opts *o, const struct load_opt *op,
		    const char *value, const char **err)
{
	char buf[1024], *part[LOAD_DIRS];

	*err = "bad value";
	if (split_dirs(value, buf, sizeof(buf), part)) {
		*err = "at most three values: read,write,trim";
		return -1;
	}
	for (int d = 0; d < LOAD_DIRS; d++) {
		unsigned long v;
		char *end;
		__u64 sz;

		if (!part[d])
			continue;
		switch (op->type) {
		case T_BSRANGE:
			if (load_bs_parse_range(part[d], &o->bsz[d], err))
				return -1;
			break;
		case T_BSSPLIT:
		case T_PRIOSPLIT: {
			/* The same text may be all three parts: parse a copy. */
			char one[sizeof(buf)];

			snprintf(one, sizeof(one), "%s", part[d]);
			if (op->type == T_BSSPLIT ? load_bs_parse_split(one, &o->bsz[d], err) :
			    load_prio_parse_split(one, &o->cmdprio_split[d], err))
				return -1;
			break;
		}
		case T_DIRSIZE:
		case T_DIRRATE:
			if (parse_size(part[d], &sz) || (!sz && op->type == T_DIRSIZE)) {
				*err = "must be a size above 0";
				return -1;
			}
			*(op->type == T_DIRSIZE ? &o->blockalign[d] : &o->rate[d]) = sz;
			break;
		default:
			errno = 0;
			v = strtoul(part[d], &end, 10);
			if (errno || *end || !isdigit((unsigned char)*part[d]) ||
			    v < op->min || v > op->max) {
				*err = "must be a whole number in range";
				return -1;
			}
			((unsigned int *)((char *)o + op->off))[d] = v;
			break;
		}
	}
	return 0;
}

static int parse_offset(struct load_job_opts *o, const char *value)
{
	char *end;
	unsigned long v;
	size_t n = strlen(value);

	if (n < 2 || value[n - 1] != '%') {
		o->offset_pct = 0;
		return parse_size(value, &o->offset);
	}
	errno = 0;
	v = strtoul(value, &end, 10);
	if (errno || end != value + n - 1 || !isdigit((unsigned char)*value) ||
	    v > 100)
		return -1;
	o->offset = 0;
	o->offset_pct = v;
	return 0;
}

/* A whole number from min to max into *v; -1 with *err the range. */
static int parse_uint(const char *value, unsigned int min, unsigned int max,
		      unsigned int *v, const char **err)
{
	static __thread char why[64];
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(value, &end, 10);
	if (!errno && end != value && !*end && *value != '-' && n >= min && n <= max) {
		*v = n;
		return 0;
	}
	if (min == max)
		snprintf(why, sizeof(why), "iolens supports only %u", min);
	else
		snprintf(why, sizeof(why), "must be a whole number from %u to %u", min, max);
	*err = why;
	return -1;
}

/* "want one of: read write ..." */
static const char *choices_text(const struct load_choice *c)
{
	static char msg[256];
	size_t n = snprintf(msg, sizeof(msg), "want one of:");

	for (; c->name && n < sizeof(msg); c++)
		n += snprintf(msg + n, sizeof(msg) - n, " %s", c->name);
	return msg;
}

/* The value of `name` among `c`; -1 with *err the choices. */
static int choose(const struct load_choice *c, const char *name, int *v, const char **err)
{
	for (const struct load_choice *k = c; k->name; k++) {
		if (!strcmp(k->name, name)) {
			*v = k->val;
			return 0;
		}
	}
	*err = choices_text(c);
	return -1;
}

/* "json,normal": every choice named, their values or'ed. */
static int choose_set(const struct load_choice *c, const char *list, int *v,
		      const char **err)
{
	char buf[64], *s = buf, *name;
	int one;

	*v = 0;
	*err = choices_text(c);
	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return -1;
	while ((name = strsep(&s, ","))) {
		if (choose(c, name, &one, err))
			return -1;
		*v |= one;
	}
	return 0;
}

/* fio's rw=PATTERN[:SIZE]: a sequential pattern skips SIZE after each
 * I/O, or steps back with a negative one ("read:-8k" reads backwards); a
 * random one takes a count, "randread:8": a random offset every 8 I/Os. */
/* fio's "CHOICE:MORE": the choice into *v, *more what follows the ':'
 * (NULL: none). */
static int choose_before(const struct load_choice *c, const char *value, int *v,
			 const char **more, const char **err)
{
	char name[32];
	size_t n = strcspn(value, ":");

	*more = value[n] ? value + n + 1 : NULL;
	if (n >= sizeof(name)) {
		*err = choices_text(c);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)n, value);
	return choose(c, name, v, err);
}

/* A count after the ':' of fio's "randread:8" and "roundrobin:4". */
static int count_after(const char *s, unsigned int *n)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!isdigit((unsigned char)*s) || *end || !v || v > ~0U)
		return -1;
	*n = v;
	return 0;
}

/* file_service_type=TYPE[:N]: N I/Os to a file before the next (fio's
 * file_service_nr, 1 without it); sequential takes none. */
static int parse_fservice(struct load_job_opts *o, const struct load_opt *op,
			  const char *value, const char **err)
{
	const char *nr;

	if (choose_before(op->choices, value, &o->fservice, &nr, err))
		return -1;
	o->fservice_nr = 1;
	*err = "want roundrobin:N or random:N, N I/Os to a file before the next";
	return nr && (o->fservice == LOAD_FSERVICE_SEQ || count_after(nr, &o->fservice_nr)) ?
	       -1 : 0;
}

static int parse_rw(struct load_job_opts *o, const struct load_opt *op, const char *value,
		    const char **err)
{
	const char *step;
	__u64 v;

	if (choose_before(op->choices, value, &o->rw, &step, err))
		return -1;
	o->seq_add = 0;
	o->seq_nr = 0;
	if (!step)
		return 0;
	if (load_rw_random(o->rw)) {
		*err = "want PATTERN:N, a random offset every N I/Os, e.g. randread:8";
		return count_after(step, &o->seq_nr);
	}
	*err = "want PATTERN:SIZE, e.g. read:8k or read:-8k";
	if (parse_size(step + (*step == '-'), &v) || v > (1ULL << 62))
		return -1;
	o->seq_add = *step == '-' ? -(__s64)v : (__s64)v;
	return 0;
}

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/* fio's buffer_pattern and verify_pattern: 0x and hex digits, or a
 * quoted string. */
static int parse_pattern(const char *value, struct load_pattern *pat, const char **err)
{
	size_t n = strlen(value);

	*err = "want 0x and hex digits (0xdeadbeef) or a quoted string";
	if (n >= 2 && (value[0] == '"' || value[0] == '\'') && value[n - 1] == value[0]) {
		if (n - 2 == 0 || n - 2 > sizeof(pat->b))
			return -1;
		memcpy(pat->b, value + 1, n - 2);
		pat->len = n - 2;
		return 0;
	}
	if (n < 3 || value[0] != '0' || tolower((unsigned char)value[1]) != 'x' || n % 2 ||
	    (n - 2) / 2 > sizeof(pat->b))
		return -1;
	for (size_t i = 2; i < n; i += 2) {
		if (!isxdigit((unsigned char)value[i]) || !isxdigit((unsigned char)value[i + 1]))
			return -1;
		pat->b[(i - 2) / 2] = hexval(value[i]) << 4 | hexval(value[i + 1]);
	}
	pat->len = (n - 2) / 2;
	return 0;
}

int load_opt_set(struct load_job_opts *o, const char *name, const char *value,
		 const char **err)
{
	const struct load_opt *op = find(name);
	void *p;

	if (!op) {
		*err = "unknown option";
		return -1;
	}
	p = (char *)o + op->off;
	/* A bare write_bw_log in a job file: the file named after the job. */
	if (!value && op->type == T_LOGNAME)
		value = "";
	if (!value && op->type != T_BOOL && op->type != T_NOT) {
		*err = "needs a value";
		return -2;
	}
	*err = "bad value";
	switch (op->type) {
	case T_STR:
		if (!*value)
			return -2;
		*(char **)p = (char *)value;
		break;
	case T_LOGNAME:
		*(char **)p = (char *)value;
		break;
	case T_SIZE:
		if (parse_size(value, p))
			return -2;
		break;
	case T_U64: {
		char *end;

		errno = 0;
		*(__u64 *)p = strtoull(value, &end, 0);
		if (errno || end == value || *end || *value == '-')
			return -2;
		break;
	}
	case T_UINT:
		if (parse_uint(value, op->min, op->max, p, err))
			return -2;
		break;
	case T_BOOL:
		if (parse_bool(value, p))
			return -2;
		break;
	case T_TIME:
	case T_USEC:
		if (parse_duration(value, op->type == T_USEC ? 1e3 : 1e9, p))
			return -2;
		break;
	case T_RW:
		if (parse_rw(o, op, value, err))
			return -2;
		break;
	case T_FSERVICE:
		if (parse_fservice(o, op, value, err))
			return -2;
		break;
	case T_OFFSET:
		if (parse_offset(o, value)) {
			*err = "want a size or a percentage, 0% to 100%";
			return -2;
		}
		break;
	case T_ENGINE: {
		const struct load_engine *e = load_engine_find(value);

		if (!e) {
			*err = load_engines_text();
			return -2;
		}
		*(const struct load_engine **)p = e;
		break;
	}
	case T_CPUS:
		if (load_cpus_parse(value, p, err))
			return -2;
		break;
	case T_DIST:
		if (load_dist_parse(value, p, err))
			return -2;
		break;
	case T_PCT_F: {
		char *end;
		double v = strtod(value, &end);

		if (end == value || *end || !(v >= 0 && v <= 100)) {
			*err = "want a percentage from 0 to 100, e.g. 99.9";
			return -2;
		}
		*(double *)p = v;
		break;
	}
	case T_PATTERN:
		if (parse_pattern(value, p, err))
			return -2;
		break;
	case T_STEADY:
		if (load_steady_parse(value, o, err))
			return -2;
		break;
	case T_NOT:
		if (parse_bool(value, p))
			return -2;
		*(bool *)p = !*(bool *)p;
		break;
	case T_PCT_OTHER: {
		unsigned int v;

		if (parse_uint(value, 0, 100, &v, err))
			return -2;
		*(unsigned int *)p = 100 - v;
		break;
	}
	case T_BSRANGE:
	case T_BSSPLIT:
	case T_DIRSIZE:
	case T_DIRUINT:
	case T_DIRRATE:
	case T_PRIOSPLIT:
		if (set_dirs(o, op, value, err))
			return -2;
		break;
	case T_ENUM:
		if (choose(op->choices, value, p, err))
			return -2;
		break;
	case T_ENUMS:
		if (choose_set(op->choices, value, p, err))
			return -2;
		break;
	}
	if (op->type == T_SIZE && op->off == offsetof(struct load_job_opts, bs)) {
		if (!o->bs) {
			*err = "must be more than 0";
			return -2;
		}
		/* The last of --bs, --bsrange and --bssplit counts. */
		for (int d = 0; d < LOAD_DIRS; d++)
			o->bsz[d] = (struct load_bs){ .min = o->bs, .max = o->bs };
	}
	if (op->off == offsetof(struct load_job_opts, minimal) && o->minimal)
		o->format = LOAD_FMT_TERSE;
	/* By the table's own name: it outlives the caller's text, and
	 * the sweep asks for bs and direct by theirs. */
	remember(o, op->name, value ? value : "1");
	return 0;
}

void load_opts_each(void (*fn)(const char *name, const char *arg,
				const char *choices, const char *help, void *ctx),
		    void *ctx)
{
	char names[256];

	for (size_t i = 0; i < load_opt_table_n; i++) {
		const char *c = NULL;

		/* "want one of: a b c" without its first three words. */
		if (load_opt_table[i].choices)
			c = choices_text(load_opt_table[i].choices) + strlen("want one of: ");
		else if (load_opt_table[i].type == T_ENGINE)
			c = load_engines_text() + strlen("want one of: ");
		if (c) {
			snprintf(names, sizeof(names), "%s", c);
			c = names;
		}
		fn(load_opt_table[i].name, load_opt_table[i].arg, c, load_opt_table[i].help, ctx);
		for (size_t k = 0; k < load_opt_aliases_n; k++) {
			char same[64];

			if (strcmp(load_opt_aliases[k].of, load_opt_table[i].name))
				continue;
			snprintf(same, sizeof(same), "same as --%s", load_opt_table[i].name);
			fn(load_opt_aliases[k].name, load_opt_table[i].arg, c, same, ctx);
		}
	}
}

static void help_line(const char *name, const char *arg, const char *choices,
		      const char *help, void *f)
{
	char lhs[40];
	int col;

	(void)choices;
	snprintf(lhs, sizeof(lhs), "--%s%s%s", name, arg ? "=" : "", arg ? arg : "");
	/* Two spaces at least before the help: the man page's OPTIONS are
	 * read from these lines (tools/mkman.py). */
	col = fprintf(f, "  %-26s %s", lhs, strlen(lhs) >= 26 ? " " : "");
	wrap_text(f, help, col, 29);
}

void load_opts_help(FILE *f)
{
	load_opts_each(help_line, f);
}

static const char *choice_name(const struct load_choice *c, int val)
{
	for (; c->name; c++) {
		if (c->val == val)
			return c->name;
	}
	return "?";
}

const char *load_rw_name(int rw)
{
	return choice_name(find("rw")->choices, rw);
}
