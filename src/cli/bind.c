// SPDX-License-Identifier: GPL-2.0
/*
 * The parsing of every command: each option's value into the field of the
 * command's struct its row names, as its kind says (cli/optable.h), then
 * the command's operands and its checks of the whole.  A command's file
 * has its table and the parsers only it needs, not a loop of its own.
 */
#include <stdlib.h>
#include <string.h>
#include "cli/filters.h"
#include "cli/optable.h"
#include "lib/log.h"
#include "lib/parse.h"

/* One more item into the list of o at `at`: parsed first, so that a bad
 * one is named before a full list. */
static int add_item(const struct cli_opt *o, char *at, unsigned int *n,
		    const char *cmd, const char *arg)
{
	union {
		char bytes[CLI_ITEM_MAX];
		__u64 align;
	} item = {};

	if (o->set(&item, arg, cmd))
		return 2;
	if (*n == o->max)
		return usage_err(cmd, o->bad, o->max);
	memcpy(at + (size_t)(*n)++ * o->size, &item, o->size);
	return 0;
}

/* Option o's value into obj, the struct its table fills: 0 or 2. */
static int bind(const struct cli_opt *o, char *obj, const char *cmd,
		const char *arg)
{
	void *at = obj + o->at;
	char what[4] = { '-', (char)o->key };
	unsigned long long count;
	unsigned long v;
	__u64 ns;

	switch (o->kind) {
	case CLI_K_BOOL:
		*(bool *)at = true;
		return 0;
	case CLI_K_INT:
		*(int *)at = (int)o->val;
		return 0;
	case CLI_K_BITS:
		*(unsigned int *)at |= (unsigned int)o->val;
		return 0;
	case CLI_K_STRING:
		*(const char **)at = arg;
		return 0;
	case CLI_K_TIME:
		if (parse_duration(arg, 1e9, &ns) || (!ns && !o->val))
			return usage_err(cmd, o->bad, arg);
		*(__u64 *)at = ns;
		return 0;
	case CLI_K_COUNT:
		if (parse_count(arg, &v))
			return usage_err(cmd, o->bad, arg);
		count = v;
		/* Either type, as the field is (CLI_COUNT() checks). */
		if (o->size == sizeof(v))
			memcpy(at, &v, sizeof(v));
		else
			memcpy(at, &count, sizeof(count));
		return 0;
	case CLI_K_INTERVAL:
		return cli_interval(cmd, what, arg, at);
	case CLI_K_DISK:
		return cli_disk(cmd, arg, at, (int *)(obj + o->n));
	case CLI_K_LIST:
		return add_item(o, at, (unsigned int *)(obj + o->n), cmd, arg);
	case CLI_K_CALL:
		return o->set(at, arg, cmd);
	case CLI_K_NONE:
		break;
	}
	/* A row the parser reads that sets nothing: a bug of the table,
	 * found by any test of the command. */
	abort();
}

int cli_set(const struct cli_opt *t, void *obj, const char *cmd, int key,
	    const char *arg)
{
	for (; !cli_opt_end(t); t++) {
		int r;

		if (t->group) {
			r = cli_set(t->group, (char *)obj + t->at, cmd, key, arg);
			if (r == 1 && t->seen)
				t->seen(obj, key, arg);
			if (r)
				return r;
		} else if (!t->section && t->key == key) {
			return bind(t, obj, cmd, arg) ? 2 : 1;
		}
	}
	return 0;
}

/* A `leading` command's options, up to optind: CLI_DONE or CLI_HELP. */
static int take_leading(const struct cli_cmd *cmd, void *obj, int argc,
			char **argv)
{
	for (; optind < argc; optind++) {
		int key = cli_match(cmd, argv[optind]);

		if (key == 'h') {
			cli_help(stdout, cmd);
			return CLI_HELP;
		}
		if (!key)
			break;
		cli_set(cmd->opts, obj, cmd->name, key, NULL);
	}
	return CLI_DONE;
}

int cli_parse(const struct cli_cmd *cmd, void *obj, int argc, char **argv)
{
	struct cli_parser p;
	int c;

	cli_begin(&p, cmd, argc, argv);
	if (cmd->leading)
		c = take_leading(cmd, obj, argc, argv);
	else
		while ((c = cli_next(&p)) > 0) {
			if (cli_set(cmd->opts, obj, cmd->name, c, optarg) != 1)
				return 2;
		}
	if (c < 0)
		return cli_exit(c);
	if (cmd->operands) {
		if (cmd->operands((char *)obj + cmd->operands_at, argc, argv,
				  cmd->name))
			return 2;
	} else if (cli_no_operands(&p)) {
		return 2;
	}
	if (cmd->finish && cmd->finish(obj, cmd->name))
		return 2;
	return CLI_RUN;
}
