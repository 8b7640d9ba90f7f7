// SPDX-License-Identifier: GPL-2.0
/*
 * The options of iolens load: one table, fio's names and meanings.  The
 * command line and the job files (load_jobfile.c) both feed it through
 * load_opt_set(), so that both accept exactly the same options.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "load.h"

enum opt_type { T_STR, T_SIZE, T_UINT, T_BOOL, T_TIME, T_ENUM, T_U64 };

struct choice {
	const char *name;
	int val;
};

struct opt {
	const char *name;
	enum opt_type type;
	size_t off;
	const struct choice *choices;	/* T_ENUM */
	unsigned int min, max;		/* T_UINT */
	const char *arg;		/* for --help */
	const char *help;
};

static const struct choice rw_choices[] = {
	{ "read", LOAD_RW_READ }, { "write", LOAD_RW_WRITE },
	{ "randread", LOAD_RW_RANDREAD }, { "randwrite", LOAD_RW_RANDWRITE },
	{ "rw", LOAD_RW_RW }, { "readwrite", LOAD_RW_RW },
	{ "randrw", LOAD_RW_RANDRW }, { NULL, 0 },
};

static const struct choice engine_choices[] = {
	{ "psync", LOAD_PSYNC }, { "io_uring", LOAD_IO_URING },
	{ "libaio", LOAD_LIBAIO }, { NULL, 0 },
};

static const struct choice format_choices[] = {
	{ "normal", LOAD_FMT_NORMAL }, { "json", LOAD_FMT_JSON }, { NULL, 0 },
};

#define OFF(f) offsetof(struct load_job_opts, f)

static const struct opt opts[] = {
	{ "name", T_STR, OFF(name), NULL, 0, 0, "NAME",
	  "start a new job (options before the first are global)" },
	{ "filename", T_STR, OFF(filename), NULL, 0, 0, "PATH",
	  "regular file (created if absent, never truncated) or block device" },
	{ "size", T_SIZE, OFF(size), NULL, 0, 0, "SIZE",
	  "bytes of I/O per job and the range used (default: to the end)" },
	{ "offset", T_SIZE, OFF(offset), NULL, 0, 0, "SIZE",
	  "start of the range" },
	{ "rw", T_ENUM, OFF(rw), rw_choices, 0, 0, "PATTERN",
	  "read write randread randwrite rw|readwrite randrw (default read)" },
	{ "readwrite", T_ENUM, OFF(rw), rw_choices, 0, 0, "PATTERN",
	  "same as --rw" },
	{ "rwmixread", T_UINT, OFF(rwmixread), NULL, 0, 100, "PCT",
	  "percent of reads in rw and randrw (default 50)" },
	{ "bs", T_SIZE, OFF(bs), NULL, 0, 0, "SIZE",
	  "block size (default 4k)" },
	{ "direct", T_BOOL, OFF(direct), NULL, 0, 0, "0|1",
	  "O_DIRECT: bypass the page cache" },
	{ "ioengine", T_ENUM, OFF(ioengine), engine_choices, 0, 0, "ENGINE",
	  "psync (default), io_uring, libaio" },
	{ "iodepth", T_UINT, OFF(iodepth), NULL, 1, 65535, "N",
	  "I/Os in flight per job (psync: 1)" },
	{ "numjobs", T_UINT, OFF(numjobs), NULL, 1, 4096, "N",
	  "threads running this job, each with its own file descriptor" },
	{ "runtime", T_TIME, OFF(runtime_ns), NULL, 0, 0, "TIME",
	  "stop after this long (seconds, or 500ms, 2m, 1h)" },
	{ "time_based", T_BOOL, OFF(time_based), NULL, 0, 0, NULL,
	  "run for --runtime, going over the range again" },
	{ "ramp_time", T_TIME, OFF(ramp_ns), NULL, 0, 0, "TIME",
	  "run this long before the statistics start" },
	{ "randseed", T_U64, OFF(randseed), NULL, 0, 0, "N",
	  "seed of the offsets and the read/write mix" },
	{ "norandommap", T_BOOL, OFF(norandommap), NULL, 0, 0, NULL,
	  "random offsets may repeat (default: each block once per pass)" },
	{ "fsync", T_UINT, OFF(fsync), NULL, 0, ~0U, "N",
	  "fsync after every N writes" },
	{ "end_fsync", T_BOOL, OFF(end_fsync), NULL, 0, 0, "0|1",
	  "fsync when the job ends" },
	{ "stonewall", T_BOOL, OFF(stonewall), NULL, 0, 0, NULL,
	  "start when every job before has ended; a new group" },
	{ "wait_for_previous", T_BOOL, OFF(stonewall), NULL, 0, 0, NULL,
	  "same as --stonewall" },
	{ "new_group", T_BOOL, OFF(new_group), NULL, 0, 0, NULL,
	  "a new reporting group, started with the jobs before" },
	{ "group_reporting", T_BOOL, OFF(group_reporting), NULL, 0, 0, NULL,
	  "one report for all jobs of a group" },
	{ "output-format", T_ENUM, OFF(format), format_choices, 0, 0, "FMT",
	  "normal or json" },
	{ "output", T_STR, OFF(output), NULL, 0, 0, "PATH",
	  "write the report to this file" },
	{ "allow-destroy", T_BOOL, OFF(allow_destroy), NULL, 0, 0, NULL,
	  "write to a device even if mounted, held or formatted" },
	{ "sweep", T_STR, OFF(sweep), NULL, 0, 0, "WHAT",
	  "iodepth: depths 1, 2, 4... to the best; zones[:N]: MB/s across it" },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

void load_opts_init(struct load_job_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->rw = LOAD_RW_READ;
	o->rwmixread = 50;
	o->bs = 4096;
	o->ioengine = LOAD_PSYNC;
	o->iodepth = 1;
	o->numjobs = 1;
	/* fio's default seed, so that runs repeat as fio's do. */
	o->randseed = 0x89;
}

static const struct opt *find(const char *name)
{
	for (size_t i = 0; i < NOPTS; i++) {
		if (!strcmp(opts[i].name, name))
			return &opts[i];
	}
	return NULL;
}

bool load_opt_known(const char *name)
{
	return find(name) != NULL;
}

/* fio takes these only on its command line, not in a job file. */
bool load_opt_cmdline_only(const char *name)
{
	return !strcmp(name, "output-format") || !strcmp(name, "output") ||
	       !strcmp(name, "allow-destroy") || !strcmp(name, "sweep");
}

bool load_opt_run_wide(const char *name)
{
	return load_opt_cmdline_only(name) || !strcmp(name, "group_reporting");
}

bool load_opt_is_flag(const char *name)
{
	const struct opt *op = find(name);

	return op && op->type == T_BOOL;
}

int load_parse_size(const char *s, __u64 *v)
{
	static const struct { const char *sfx; int shift; } sfx[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tb", 40 }, { "tib", 40 },
		{ "p", 50 }, { "pb", 50 }, { "pib", 50 },
	};
	unsigned long long n;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno)
		return -1;
	/* fio's default kb_base=1024: k, KB and KiB are all 1024. */
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		if (strcasecmp(end, sfx[i].sfx))
			continue;
		if (sfx[i].shift && n > (~0ULL >> sfx[i].shift))
			return -1;
		*v = n << sfx[i].shift;
		return 0;
	}
	return -1;
}

int load_parse_time(const char *s, double unit_ns, __u64 *ns)
{
	static const struct { const char *sfx; double ns; } sfx[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1e3 }, { "usec", 1e3 },
		{ "ms", 1e6 }, { "msec", 1e6 }, { "s", 1e9 }, { "sec", 1e9 },
		{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 }, { "hour", 3600e9 },
		{ "d", 86400e9 }, { "day", 86400e9 },
	};
	double v, mult = -1;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtod(s, &end);
	if (!*end)
		mult = unit_ns;
	for (size_t i = 0; *end && i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		if (!strcasecmp(end, sfx[i].sfx))
			mult = sfx[i].ns;
	}
	if (mult < 0 || !(v * mult < 9e18))
		return -1;
	*ns = (__u64)(v * mult + 0.5);
	return 0;
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

int load_opt_set(struct load_job_opts *o, const char *name, const char *value,
		 const char **err)
{
	const struct opt *op = find(name);
	void *p;

	if (!op) {
		*err = "unknown option";
		return -1;
	}
	p = (char *)o + op->off;
	if (!value && op->type != T_BOOL) {
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
	case T_SIZE:
		if (load_parse_size(value, p))
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
	case T_UINT: {
		unsigned long v;
		char *end;

		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno || end == value || *end || *value == '-' ||
		    v < op->min || v > op->max) {
			*err = "must be a whole number in range";
			return -2;
		}
		*(unsigned int *)p = v;
		break;
	}
	case T_BOOL:
		if (parse_bool(value, p))
			return -2;
		break;
	case T_TIME:
		if (load_parse_time(value, 1e9, p))
			return -2;
		break;
	case T_ENUM:
		for (const struct choice *c = op->choices;; c++) {
			if (!c->name)
				return -2;
			if (!strcmp(c->name, value)) {
				*(int *)p = c->val;
				break;
			}
		}
		break;
	}
	if (op->type == T_SIZE && op->off == OFF(bs) && !o->bs) {
		*err = "must be more than 0";
		return -2;
	}
	remember(o, op->name, value ? value : "1");
	return 0;
}

void load_opts_help(FILE *f)
{
	char lhs[40];

	for (size_t i = 0; i < NOPTS; i++) {
		snprintf(lhs, sizeof(lhs), "--%s%s%s", opts[i].name,
			 opts[i].arg ? "=" : "", opts[i].arg ? opts[i].arg : "");
		fprintf(f, "  %-26s %s\n", lhs, opts[i].help);
	}
}

static const char *choice_name(const struct choice *c, int val)
{
	for (; c->name; c++) {
		if (c->val == val)
			return c->name;
	}
	return "?";
}

const char *load_rw_name(int rw)
{
	return choice_name(rw_choices, rw);
}

const char *load_engine_name(int engine)
{
	return choice_name(engine_choices, engine);
}
