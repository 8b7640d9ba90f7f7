/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each command's options, described once: a table that gives getopt_long
 * its arguments and --help its text.  -h/--help is in every table without
 * being written there.
 */
#ifndef IOLENS_CLI_OPTABLE_H
#define IOLENS_CLI_OPTABLE_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* Keys of options without a short form: CLI_LONG + n. */
#define CLI_LONG 0x100

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
};

#define CLI_OPT(k, n, a, h)	{ .key = (k), .name = (n), .arg = (a), .help = (h) }
/* An option whose values c() names. */
#define CLI_OPT_OF(k, n, a, c, h) \
	{ .key = (k), .name = (n), .arg = (a), .help = (h), .choices = (c) }
/* A line of help under the option before it. */
#define CLI_NOTE(h)		{ .help = (h) }
#define CLI_GROUP(table)	{ .group = (table) }
#define CLI_SECTION(title)	{ .section = (title) }
#define CLI_END			{ 0 }

struct cli_cmd {
	const char *name;	/* "stat" */
	const char *usage;	/* "usage: iolens stat [OPTIONS]...\n" */
	const char *about;	/* what it does */
	const struct cli_opt *opts;	/* ends with CLI_END */
	/* After the options: the fields of a command whose fields are a
	 * table (top's columns), written from that table; then `more`. */
	void (*fields)(FILE *f);
	const char *more;	/* after the options: notes, examples */
	/* Its operands are numbers (INTERVAL [COUNT]): "-1" is a bad one,
	 * not an unknown option. */
	bool numbers;
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

#endif
