/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each command's options, described once: a table that gives getopt_long
 * its arguments, --help its text, the completions their values, and
 * cli_parse() what each does: the field of the command's struct it sets,
 * and how.  -h/--help is in every table without being written there.
 */
#ifndef IOLENS_CLI_OPTABLE_H
#define IOLENS_CLI_OPTABLE_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* Keys of options without a short form: CLI_LONG + n. */
#define CLI_LONG 0x100

/* What cli_parse() does with an option: it writes a field of the struct
 * the command's options fill, found by its offset.  The row macros below
 * (CLI_BOOL() ...) check the field's type where the row is written. */
enum cli_kind {
	CLI_K_NONE,	/* no field: a bug in a table cli_parse() reads */
	CLI_K_BOOL,	/* bool: true */
	CLI_K_INT,	/* int (an enum): val */
	CLI_K_BITS,	/* unsigned int: |= val */
	CLI_K_STRING,	/* const char *: the value as given */
	CLI_K_TIME,	/* __u64: a time above 0, in ns; else the line `bad` */
	CLI_K_COUNT,	/* unsigned long or long long (`size`): a positive
			 * whole number; else the line `bad` */
	CLI_K_INTERVAL,	/* unsigned long long: a report interval in ns (a
			 * short option's: -X in the message) */
	CLI_K_DISK,	/* __u32[]: one more disk or partition; `n` the int
			 * that counts them */
	CLI_K_LIST,	/* an array of `max` items of `size` bytes: one more,
			 * as set() parses it; `n` the int or __u32 that
			 * counts them; full, the line `bad` ('%u' max) */
	CLI_K_CALL,	/* set() parses it */
};

/* A CLI_K_CALL option's parser: `at` is its field (or the whole struct),
 * `arg` its value.  0, or 2 after one line (usage_err(cmd, ...)). */
typedef int cli_set_fn(void *at, const char *arg, const char *cmd);

/* One row: an option, or alone a heading or a shared table (below). */
struct cli_opt {
	int key;		/* the short option's letter, or CLI_LONG + n */
	const char *name;	/* the long name, without "--"; NULL: none */
	const char *arg;	/* the value's name in --help; NULL: no value */
	const char *help;	/* a '\n' starts another line */
	/* The values it takes, space-separated, from the table that defines
	 * them (for completions); a "," at the end: a comma-separated list of
	 * them.  NULL: any. */
	const char *(*choices)(void);
	const struct cli_opt *group;	/* that table's rows, in place */
	const char *section;		/* a heading: "what", "split" */

	/* What it sets (cli_parse()). */
	enum cli_kind kind;
	/* The offset of its field in the struct its table fills; on a group
	 * row, of the struct the group's rows fill. */
	size_t at;
	size_t size;		/* CLI_K_COUNT: the field's; CLI_K_LIST: an item's */
	size_t n;		/* CLI_K_DISK, CLI_K_LIST: the count's offset */
	unsigned int max;	/* CLI_K_LIST: the array's length */
	long long val;		/* CLI_K_INT, CLI_K_BITS */
	const char *bad;	/* the line for a bad value or a full list */
	cli_set_fn *set;	/* CLI_K_CALL; CLI_K_LIST: an item's parser */
	/* On a group row: called after each of the group's options, with
	 * the struct the table of the group row fills. */
	void (*seen)(void *obj, int key, const char *arg);
};

/* A row; its last arguments, if any, say what it sets (CLI_BOOL() ...). */
#define CLI_OPT(k, n, a, h, ...) \
	{ .key = (k), .name = (n), .arg = (a), .help = (h), __VA_ARGS__ }
/* An option whose values c() names. */
#define CLI_OPT_OF(k, n, a, c, h, ...) \
	{ .key = (k), .name = (n), .arg = (a), .help = (h), .choices = (c), __VA_ARGS__ }
/* A line of help under the option before it. */
#define CLI_NOTE(h)		{ .help = (h) }
#define CLI_GROUP(table)	{ .group = (table) }
/* A shared table whose rows fill the field f (of type `type`) of T. */
#define CLI_GROUP_AT(table, T, f, type, ...) \
	{ .group = (table), .at = CLI_FIELD(T, f, type), __VA_ARGS__ }
#define CLI_SECTION(title)	{ .section = (title) }
#define CLI_END			{ 0 }

static inline bool cli_opt_end(const struct cli_opt *o)
{
	return !o->key && !o->name && !o->group && !o->section && !o->help;
}

/* 0, and a compile error unless e. */
#define CLI_MUST(e)		(0 * sizeof(struct { int : (e) ? 1 : -1; }))
/* The offset of field f of T, which must be of type `type`. */
#define CLI_FIELD(T, f, type)						\
	(offsetof(T, f) +						\
	 CLI_MUST(__builtin_types_compatible_p(__typeof__(((T *)0)->f), type)))
#define CLI_FIELD_SIZE(T, f)	sizeof(((T *)0)->f)

/* What an option sets, as the last arguments of its CLI_OPT(): field f of
 * the struct T the command's options fill. */
#define CLI_BOOL(T, f)		.kind = CLI_K_BOOL, .at = CLI_FIELD(T, f, bool)
#define CLI_INT(T, f, v)	.kind = CLI_K_INT, .val = (v), \
	.at = offsetof(T, f) + CLI_MUST(CLI_FIELD_SIZE(T, f) == sizeof(int))
#define CLI_BITS(T, f, v)	.kind = CLI_K_BITS, .val = (v), \
	.at = CLI_FIELD(T, f, unsigned int)
#define CLI_STRING(T, f)	.kind = CLI_K_STRING, .at = CLI_FIELD(T, f, const char *)
#define CLI_TIME(T, f, b)	.kind = CLI_K_TIME, .bad = (b), \
	.at = CLI_FIELD(T, f, __u64)
/* A time where 0 means "never" (an alarm turned off). */
#define CLI_TIME_OR_0(T, f, b)	CLI_TIME(T, f, b), .val = 1
#define CLI_COUNT(T, f, b)	.kind = CLI_K_COUNT, .bad = (b), \
	.at = offsetof(T, f) + CLI_MUST((__typeof__(((T *)0)->f))-1 > 0 && \
		(CLI_FIELD_SIZE(T, f) == sizeof(unsigned long) || \
		 CLI_FIELD_SIZE(T, f) == sizeof(unsigned long long))), \
	.size = CLI_FIELD_SIZE(T, f)
#define CLI_INTERVAL(T, f)	.kind = CLI_K_INTERVAL, \
	.at = CLI_FIELD(T, f, unsigned long long)
#define CLI_DISKS(T, f, cnt)	.kind = CLI_K_DISK, \
	.at = CLI_FIELD(T, f, __u32[IOLENS_MAX_DEV_FILTER]), .n = CLI_FIELD(T, cnt, int)
/* An item of array f (of at most CLI_ITEM_MAX bytes) parsed by fn into
 * a place of its size, counted by cnt (an int or a __u32). */
#define CLI_ITEM_MAX		32
#define CLI_LIST(T, f, cnt, fn, b)	CLI_LIST_OF(T, f, cnt, fn, b, CLI_ITEM_MAX)
/* CLI_LIST() of items of `room` bytes at most. */
#define CLI_LIST_OF(T, f, cnt, fn, b, room) \
	.kind = CLI_K_LIST, .set = (fn), .bad = (b), \
	.at = offsetof(T, f) + CLI_MUST(sizeof(((T *)0)->f[0]) <= (room)), \
	.size = sizeof(((T *)0)->f[0]), \
	.max = CLI_FIELD_SIZE(T, f) / sizeof(((T *)0)->f[0]), \
	.n = offsetof(T, cnt) + CLI_MUST(CLI_FIELD_SIZE(T, cnt) == sizeof(__u32))
/* fn parses it into field f (of any type), or with CLI_CALL_ALL into the
 * whole struct. */
#define CLI_CALL(T, f, fn)	.kind = CLI_K_CALL, .at = offsetof(T, f), .set = (fn)
#define CLI_CALL_ALL(fn)	.kind = CLI_K_CALL, .set = (fn)

struct trace_use;

/* A command: its help, as its --help prints it, its options, and its row
 * of the command table. */
struct cli_cmd {
	const char *name;	/* "stat" */
	const char *usage;	/* "usage: iolens stat [OPTIONS]...\n" */
	const char *about;	/* what it does */
	const struct cli_opt *opts;	/* ends with CLI_END; NULL: see opts_each */
	/* Without opts, for a command with its own parser: calls fn once per
	 * option of that parser (the completions' list). */
	void (*opts_each)(void (*fn)(const char *name, const char *arg,
				     const char *choices, const char *help,
				     void *ctx),
			  void *ctx);
	/* After the options: the fields of a command whose fields are a
	 * table (top's columns), written from that table; then `more`. */
	void (*fields)(FILE *f);
	const char *more;	/* after the options: notes, examples */
	/* Its operands are numbers (INTERVAL [COUNT]): "-1" is a bad one,
	 * not an unknown option. */
	bool numbers;
	/* Its options, flags only, come before another parser's arguments
	 * (bench's before load's): they end at the first argument that is
	 * not one, where its operands begin. */
	bool leading;
	/* Takes its operands, argv[optind] on, into its struct at offset
	 * operands_at: 0, or 2 after one line.  NULL: it takes none. */
	int (*operands)(void *at, int argc, char **argv, const char *cmd);
	size_t operands_at;
	/* Then what the options and operands say together (one that needs
	 * another, a process that must be alive): 0, or 2 after one line. */
	int (*finish)(void *obj, const char *cmd);

	const char *summary;	/* its line of iolens --help */
	int order;		/* its place in iolens --help */
	/* What it loads in the kernel (TRACE_USES(...)); NULL: nothing. */
	const struct trace_use *uses;
};

/* What cli_next() returns besides an option's key. */
enum { CLI_DONE = 0, CLI_HELP = -1, CLI_ERR = -2 };

#define CLI_MAX_OPTS 48

struct cli_parser {
	const struct cli_cmd *cmd;
	int argc;
	char **argv;
	struct option longopts[CLI_MAX_OPTS + 1];
	char shortopts[3 * CLI_MAX_OPTS + 2];
};

void cli_begin(struct cli_parser *p, const struct cli_cmd *cmd, int argc,
	       char **argv);

/* The key of the next option, its value in optarg; CLI_DONE at the first
 * operand (argv[optind]); CLI_HELP after printing the help on stdout;
 * CLI_ERR after printing one line for an unknown option or a missing
 * value. */
int cli_next(struct cli_parser *p);

/* The exit code for CLI_HELP (0) or CLI_ERR (2). */
static inline int cli_exit(int c)
{
	return c == CLI_HELP ? 0 : 2;
}

void cli_help(FILE *f, const struct cli_cmd *cmd);

/* Calls fn for each option of cmd, shared tables opened, -h last. */
void cli_each_opt(const struct cli_cmd *cmd,
		  void (*fn)(const struct cli_opt *o, void *ctx), void *ctx);

/* For a command whose own options come before another parser's (bench
 * before load's): the key of `arg` if it is one of cmd's options without a
 * value, 'h' for -h/--help, else 0. */
int cli_match(const struct cli_cmd *cmd, const char *arg);

/* "unexpected argument 'x'" unless every operand was taken; 0 or 2. */
int cli_no_operands(struct cli_parser *p);

/* What cli_parse() returns when the command is to run. */
#define CLI_RUN (-1)

/* Every command's parsing: argv's options into obj, the struct the rows
 * of cmd's table fill, each as its row says; then cmd's operands and its
 * finish().  CLI_RUN, else the exit code: 0 after --help, 2 after one line
 * for a usage error. */
int cli_parse(const struct cli_cmd *cmd, void *obj, int argc, char **argv);

/* Option `key` of table t, value `arg`, into obj (the struct t's rows
 * fill): 1, 0 if t has no such option, 2 after a usage error. */
int cli_set(const struct cli_opt *t, void *obj, const char *cmd, int key,
	    const char *arg);

#endif
