/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load's own: the table of iolens load's options (load_opt_table.c, from
 * the rows of load/options.def), what load_opts.c parses by.  An option is
 * a row: its fio name, the kind of value, where it goes in struct
 * load_job_opts, and its help.
 */
#ifndef IOLENS_LOAD_OPT_TABLE_H
#define IOLENS_LOAD_OPT_TABLE_H

#include <stddef.h>

enum opt_type {
	T_STR, T_SIZE, T_UINT, T_BOOL, T_TIME, T_ENUM, T_U64,
	T_OFFSET,	/* a size or N% */
	T_ENGINE,	/* an engine of engines.c, by name */
	T_CPUS,		/* a CPU list */
	/* One value per direction, fio's "read,write,trim" form: */
	T_BSRANGE, T_BSSPLIT, T_DIRSIZE, T_DIRUINT, T_DIRRATE,
	T_PRIOSPLIT,	/* cmdprio_bssplit (load_prio.c) */
	T_STEADY,	/* ss (load_steady.c) */
	T_NOT,		/* a bool stored inverted: buffered is !direct */
	T_PCT_OTHER,	/* a percentage stored as 100 - it: rwmixwrite */
	T_DIST,		/* random_distribution (load_dist.c) */
	T_RW,		/* an rw choice and fio's ":SIZE" step after it */
	T_USEC,		/* a time whose bare number is microseconds */
	T_LOGNAME,	/* a string that may be left out in a job file */
	T_PCT_F,	/* a percentage with a fraction, 0 to 100, a double */
	T_PATTERN,	/* buffer_pattern (load_buf.c) */
	T_ENUMS,	/* choices separated by ',', their values or'ed */
	T_FSERVICE,	/* file_service_type: a choice and ":N" after it */
};

struct load_choice {
	const char *name;
	int val;
};

struct load_opt {
	const char *name;
	enum opt_type type;
	size_t off;
	const struct load_choice *choices;	/* T_ENUM(S), T_RW, T_FSERVICE */
	unsigned int min, max;		/* T_UINT, T_DIRUINT */
	const char *arg;		/* for --help */
	const char *help;
};

/* Other names fio gives an option; --help lists each after it. */
struct load_opt_alias {
	const char *name, *of;
};

extern const struct load_opt load_opt_table[];
extern const size_t load_opt_table_n;
extern const struct load_opt_alias load_opt_aliases[];
extern const size_t load_opt_aliases_n;

#endif
