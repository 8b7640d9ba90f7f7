// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "cli/optable.h"
#include "lib/log.h"
#include "lib/wrap.h"

static const struct cli_opt help_opt[] = {
	CLI_OPT('h', "help", NULL, "this help"),
	CLI_END,
};

/* Calls fn for every option row of `t`, groups opened, then for -h. */
static void walk(const struct cli_opt *t, bool top,
		 void (*fn)(const struct cli_opt *o, void *ctx), void *ctx)
{
	for (; !cli_opt_end(t); t++) {
		if (t->group)
			walk(t->group, false, fn, ctx);
		else
			fn(t, ctx);
	}
	if (top)
		fn(help_opt, ctx);
}

static void add_getopt(const struct cli_opt *o, void *ctx)
{
	struct cli_parser *p = ctx;
	size_t n = strlen(p->shortopts), nl = 0;

	if (o->section || !o->key)
		return;
	if (o->key < CLI_LONG) {
		p->shortopts[n++] = (char)o->key;
		if (o->arg)
			p->shortopts[n++] = ':';
		p->shortopts[n] = '\0';
	}
	if (!o->name)
		return;
	while (p->longopts[nl].name)
		nl++;
	/* The table is fixed: overflowing it is a bug, found by any test
	 * of the command. */
	if (nl == CLI_MAX_OPTS)
		abort();
	p->longopts[nl] = (struct option){
		o->name, o->arg ? required_argument : no_argument, NULL, o->key,
	};
}

void cli_begin(struct cli_parser *p, const struct cli_cmd *cmd, int argc,
	       char **argv)
{
	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->argc = argc;
	p->argv = argv;
	/* ':' first: getopt reports a missing value apart from an unknown
	 * option, and prints nothing itself. */
	p->shortopts[0] = ':';
	walk(cmd->opts, true, add_getopt, p);
	optind = 1;
	opterr = 0;
}

/* "-1" where a command takes numbers: a negative interval, not an option. */
static bool negative_number(const struct cli_parser *p)
{
	int i;

	if (!p->cmd->numbers || optopt < '0' || optopt > '9')
		return false;
	i = optind < p->argc && p->argv[optind][0] == '-' &&
	    p->argv[optind][1] == optopt ? optind : optind - 1;
	usage_err(p->cmd->name, "interval must be from 10ms to 1 week, not '%s'",
		  p->argv[i]);
	return true;
}

int cli_next(struct cli_parser *p)
{
	const char *cmd = p->cmd->name;
	int c = getopt_long(p->argc, p->argv, p->shortopts, p->longopts, NULL);

	switch (c) {
	case -1:
		return CLI_DONE;
	case 'h':
		cli_help(stdout, p->cmd);
		return CLI_HELP;
	case ':':
		usage_err(cmd, "option '%s' needs a value", p->argv[optind - 1]);
		return CLI_ERR;
	case '?':
		if (negative_number(p))
			return CLI_ERR;
		if (optopt)
			usage_err(cmd, "unknown option '-%c'", optopt);
		else
			usage_err(cmd, "unknown option '%s'", p->argv[optind - 1]);
		return CLI_ERR;
	}
	return c;
}

struct match {
	const char *arg;
	int key;
};

static void match_one(const struct cli_opt *o, void *ctx)
{
	struct match *m = ctx;
	const char *a = m->arg;

	if (o->section || !o->key || o->arg || m->key)
		return;
	if ((a[1] == '-' && o->name && !strcmp(a + 2, o->name)) ||
	    (o->key < CLI_LONG && a[1] == o->key && !a[2]))
		m->key = o->key;
}

int cli_match(const struct cli_cmd *cmd, const char *arg)
{
	struct match m = { .arg = arg };

	if (arg[0] == '-')
		walk(cmd->opts, true, match_one, &m);
	return m.key;
}

int cli_no_operands(struct cli_parser *p)
{
	if (optind < p->argc)
		return usage_err(p->cmd->name, "unexpected argument '%s'",
				 p->argv[optind]);
	return 0;
}

struct help {
	FILE *f;
	int width;	/* of the left column */
};

static int left(char *buf, size_t len, const struct cli_opt *o)
{
	char s[4] = "";

	if (o->key && o->key < CLI_LONG)
		snprintf(s, sizeof(s), "-%c", o->key);
	return snprintf(buf, len, "  %-2s%s%s%s%s%s", s,
			*s && o->name ? ", " : o->name ? "  " : "",
			o->name ? "--" : "", o->name ? o->name : "",
			o->arg ? " " : "", o->arg ? o->arg : "");
}

static void measure(const struct cli_opt *o, void *ctx)
{
	struct help *h = ctx;
	char buf[128];
	int n;

	if (o->section || (!o->key && !o->name))
		return;
	n = left(buf, sizeof(buf), o);
	if (n + 2 > h->width)
		h->width = n + 2;
}

static void print_row(const struct cli_opt *o, void *ctx)
{
	struct help *h = ctx;
	const char *s = o->help;
	char buf[128];

	if (o->section) {
		fprintf(h->f, "%s:\n", o->section);
		return;
	}
	if (!o->key && !o->name)
		fprintf(h->f, "%*s", h->width, "");
	else
		fprintf(h->f, "%-*s", h->width, (left(buf, sizeof(buf), o), buf));
	wrap_text(h->f, s, h->width, h->width);
}

void cli_help(FILE *f, const struct cli_cmd *cmd)
{
	struct help h = { .f = f, .width = 20 };

	walk(cmd->opts, true, measure, &h);
	fprintf(f, "%s\n%s\n", cmd->usage, cmd->about);
	if (!cmd->opts->section)
		fprintf(f, "options:\n");
	walk(cmd->opts, true, print_row, &h);
	if (cmd->fields) {
		fputc('\n', f);
		cmd->fields(f);
	}
	if (cmd->more)
		fprintf(f, "\n%s", cmd->more);
}

void cli_each_opt(const struct cli_cmd *cmd,
		  void (*fn)(const struct cli_opt *o, void *ctx), void *ctx)
{
	walk(cmd->opts, true, fn, ctx);
}
