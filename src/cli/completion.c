// SPDX-License-Identifier: GPL-2.0
/*
 * `iolens completion bash|zsh|fish`: completion scripts written from the
 * command table and each command's option table (and load's fio options),
 * so that they cannot drift from --help.  What a value completes to comes
 * from the option: its choices (formats, charts, columns, ops), else its
 * name in --help: DEV a disk or partition, PID a process, USER a user, FILE
 * a file, PATH a directory (a cgroup).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/optable.h"
#include "lib/log.h"

enum value { V_NONE, V_ANY, V_CHOICE, V_LIST, V_DEV, V_PID, V_USER, V_FILE, V_DIR };

/* One option, as every shell needs it. */
struct copt {
	char sopt;		/* short form, or 0 */
	const char *lopt;	/* long form, or NULL */
	const char *help;	/* first line */
	size_t helplen;
	enum value v;
	char choices[512];	/* V_CHOICE, V_LIST: space-separated */
	bool eq;		/* load's fio options: --name=VALUE */
};

static enum value value_of(const char *arg, const char *choices, char *out, size_t len)
{
	size_t n;

	if (!arg)
		return V_NONE;
	if (choices) {
		snprintf(out, len, "%s", choices);
		n = strlen(out);
		if (n && out[n - 1] == ',') {
			out[n - 1] = '\0';
			return V_LIST;
		}
		return V_CHOICE;
	}
	if (!strcmp(arg, "DEV"))
		return V_DEV;
	if (!strcmp(arg, "PID"))
		return V_PID;
	if (!strcmp(arg, "USER"))
		return V_USER;
	if (!strcmp(arg, "FILE") || !strcmp(arg, "JOBFILE"))
		return V_FILE;
	if (!strcmp(arg, "PATH"))
		return V_DIR;
	return V_ANY;
}

/* ---- the options of a command, gathered ---- */

/* load's fio options are the most: 129 with their other names. */
#define MAX_COPTS 256

struct copts {
	struct copt v[MAX_COPTS];
	int n;
	bool full;		/* some did not fit: the script would lack them */
};

static void add_cli(const struct cli_opt *o, void *ctx)
{
	struct copts *c = ctx;
	struct copt *p;
	const char *nl;

	if (o->section || (!o->key && !o->name))
		return;
	if (c->n == MAX_COPTS) {
		c->full = true;
		return;
	}
	p = &c->v[c->n++];
	memset(p, 0, sizeof(*p));
	p->sopt = o->key && o->key < CLI_LONG ? (char)o->key : 0;
	p->lopt = o->name;
	p->help = o->help;
	nl = strchr(o->help, '\n');
	p->helplen = nl ? (size_t)(nl - o->help) : strlen(o->help);
	p->v = value_of(o->arg, o->choices ? o->choices() : NULL, p->choices,
			sizeof(p->choices));
}

static void add_own(const char *name, const char *arg, const char *choices,
		     const char *help, void *ctx)
{
	struct copts *c = ctx;
	struct copt *p;

	if (c->n == MAX_COPTS) {
		c->full = true;
		return;
	}
	p = &c->v[c->n++];
	memset(p, 0, sizeof(*p));
	p->lopt = name;
	p->help = help;
	p->helplen = strlen(help);
	p->eq = arg != NULL;
	p->v = value_of(arg, choices, p->choices, sizeof(p->choices));
	if (p->v == V_DIR || (p->v == V_ANY && !strcmp(name, "filename")))
		p->v = V_FILE;	/* --filename=PATH: a file or a device */
}

static void gather(const struct cli_command *cmd, struct copts *c)
{
	c->n = 0;
	c->full = false;
	if (cmd->cli->opts)
		cli_each_opt(cmd->cli, add_cli, c);
	else if (cmd->cli->opts_each)
		cmd->cli->opts_each(add_own, c);
}

/* s's first len bytes but those in `drop` (what the shell would take
 * apart: quotes, brackets, colons). */
static void put_cut(FILE *f, const char *s, size_t len, const char *drop)
{
	for (size_t i = 0; i < len && s[i]; i++)
		if (!strchr(drop, s[i]))
			fputc(s[i], f);
}

/* Help text as one shell-quoted line. */
static void put_help(FILE *f, const struct copt *o, const char *drop)
{
	put_cut(f, o->help, o->helplen, drop);
}

/* What each shell completes a value to, a row per kind of value: formats
 * whose '%s' is the option's choices.  (bash never gets V_NONE.) */
static const struct value_format {
	const char *bash, *zsh, *fish;
} values[] = {
	[V_NONE] = { .bash = "", .zsh = "", .fish = "" },
	/* A number, a time: nothing to offer. */
	[V_ANY] = { .bash = ":", .zsh = ":value: ", .fish = " -x" },
	[V_CHOICE] = { .bash = "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", .zsh = ":value:(%s)", .fish = " -x -a '%s'" },
	[V_LIST] = { .bash = "_iolens_list \"%s\" \"$cur\"", .zsh = ":value:_values -s , value %s", .fish = " -x -a '(__fish_complete_list , \"string split \\\" \\\" \\\"%s\\\"\")'" },
	[V_DEV] = { .bash = "COMPREPLY=($(compgen -W \"$(_iolens_devs)\" -- \"$cur\"))", .zsh = ":device:_iolens_devs", .fish = " -x -a '(string replace -r \".*/\" \"\" /sys/class/block/*)'" },
	[V_PID] = { .bash = "COMPREPLY=($(compgen -W \"$(_iolens_pids)\" -- \"$cur\"))", .zsh = ":pid:_pids", .fish = " -x -a '(__fish_complete_pids)'" },
	[V_USER] = { .bash = "COMPREPLY=($(compgen -u -- \"$cur\"))", .zsh = ":user:_users", .fish = " -x -a '(__fish_complete_users)'" },
	[V_FILE] = { .bash = "COMPREPLY=($(compgen -f -- \"$cur\"))", .zsh = ":file:_files", .fish = " -r -F" },
	[V_DIR] = { .bash = "COMPREPLY=($(compgen -d -- \"$cur\"))", .zsh = ":directory:_files -/", .fish = " -x -a '(__fish_complete_directories)'" },
};

/* ---- bash ---- */

static void bash_cmd(FILE *f, const struct cli_command *cmd, const struct copts *c)
{
	fprintf(f, "\t%s)\n\t\tcase $prev in\n", cmd->cli->name);
	for (int i = 0; i < c->n; i++) {
		const struct copt *o = &c->v[i];

		if (o->v == V_NONE)
			continue;
		fputs("\t\t", f);
		if (o->sopt)
			fprintf(f, "-%c%s", o->sopt, o->lopt ? "|" : "");
		if (o->lopt)
			fprintf(f, "--%s", o->lopt);
		fputs(") ", f);
		fprintf(f, values[o->v].bash, o->choices);
		fputs(" ;;\n", f);
	}
	fputs("\t\t*) COMPREPLY=($(compgen -W \"", f);
	for (int i = 0; i < c->n; i++) {
		const struct copt *o = &c->v[i];

		if (o->sopt)
			fprintf(f, "-%c ", o->sopt);
		if (o->lopt)
			fprintf(f, "--%s%s ", o->lopt, o->eq ? "=" : "");
	}
	fputs("\" -- \"$cur\"))\n", f);
	/* fio's --name=VALUE: no space after the '='. */
	if (!cmd->cli->opts)
		fputs("\t\t   [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace ;;\n", f);
	else
		fputs("\t\t   ;;\n", f);
	fputs("\t\tesac ;;\n", f);
}

/* ---- zsh ---- */

static void zsh_cmd(FILE *f, const struct cli_command *cmd, const struct copts *c)
{
	fprintf(f, "\t%s)\n\t\t_arguments -s", cmd->cli->name);
	for (int i = 0; i < c->n; i++) {
		const struct copt *o = &c->v[i];
		const char *val = o->v == V_NONE ? "" : o->eq ? "=" : "+";

		fputs(" \\\n\t\t\t'", f);
		if (o->sopt && o->lopt)
			fprintf(f, "(-%c --%s)'{-%c%s,--%s%s}'", o->sopt, o->lopt, o->sopt,
				val, o->lopt, o->v == V_NONE ? "" : "=");
		else if (o->sopt)
			fprintf(f, "-%c%s", o->sopt, val);
		else
			fprintf(f, "--%s%s", o->lopt, o->v == V_NONE ? "" : "=");
		fputc('[', f);
		put_help(f, o, "[]:'\\");
		fputc(']', f);
		fprintf(f, values[o->v].zsh, o->choices);
		fputc('\'', f);
	}
	fputs(" ;;\n", f);
}

/* ---- fish ---- */

static void fish_cmd(FILE *f, const struct cli_command *cmd, const struct copts *c)
{
	for (int i = 0; i < c->n; i++) {
		const struct copt *o = &c->v[i];

		fprintf(f, "complete -c iolens -n '__fish_seen_subcommand_from %s'", cmd->cli->name);
		if (o->sopt)
			fprintf(f, " -s %c", o->sopt);
		if (o->lopt)
			fprintf(f, " -l %s", o->lopt);
		fprintf(f, values[o->v].fish, o->choices);
		fputs(" -d '", f);
		put_help(f, o, "'\\");
		fputs("'\n", f);
	}
}

/* A script: its head, the list of commands (for each its name, '%s' of
 * `item`, then its summary without the bytes in `drop`, if any, then
 * `end`), what follows the list, a part per command, and its tail. */
static const struct shell {
	const char *name;
	const char *head;
	const char *item, *drop, *end;
	const char *body;
	void (*cmd)(FILE *f, const struct cli_command *cmd, const struct copts *c);
	const char *tail;
} shells[] = {
	{
		.name = "bash",
		.head =
			"# bash completion for iolens: written by 'iolens completion bash' from its\n"
			"# option tables.\n"
			"_iolens_list() {\n"
			"\tlocal pre= cur=$2\n"
			"\tif [[ $cur == *,* ]]; then pre=${cur%,*},; cur=${cur##*,}; fi\n"
			"\tCOMPREPLY=($(compgen -P \"$pre\" -W \"$1\" -- \"$cur\"))\n"
			"\tcompopt -o nospace 2>/dev/null\n"
			"}\n"
			"_iolens_devs() { local d; for d in /sys/class/block/*; do echo \"${d##*/}\"; done; }\n"
			"_iolens_pids() { local p; for p in /proc/[0-9]*; do echo \"${p##*/}\"; done; }\n"
			"_iolens() {\n"
			"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
			"\t# \"--opt=value\": '=' is a word of its own in COMP_WORDS.\n"
			"\tif [[ $cur == = ]]; then cur=; elif [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n"
			"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
			"\t\tcase ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n"
			"\tdone\n"
			"\tcase $cmd in\n"
			"\t\"\") COMPREPLY=($(compgen -W \"",
		.item = "%s ", .end = "",
		.body = "completion -v --verbose -h --help -V --version\" -- \"$cur\")) ;;\n",
		.cmd = bash_cmd,
		.tail =
			"\tcompletion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")) ;;\n"
			"\tesac\n"
			"}\n"
			"complete -F _iolens iolens\n",
	}, {
		.name = "zsh",
		.head =
			"#compdef iolens\n"
			"# zsh completion for iolens: written by 'iolens completion zsh' from its\n"
			"# option tables.\n"
			"_iolens_devs() { local -a d; d=(/sys/class/block/*(N:t)); compadd -a d }\n"
			"_iolens() {\n"
			"\tlocal -a cmds\n"
			"\tcmds=(",
		.item = "'%s:", .drop = "':", .end = "' ",
		.body =
			"'completion:a completion script for bash, zsh or fish')\n"
			"\tif (( CURRENT == 2 )); then _describe -t commands 'iolens command' cmds; return; fi\n"
			"\tlocal cmd=$words[2]\n"
			"\tshift words; (( CURRENT-- ))\n"
			"\tcase $cmd in\n",
		.cmd = zsh_cmd,
		.tail =
			"\tcompletion) _values shell bash zsh fish ;;\n"
			"\tesac\n"
			"}\n"
			"_iolens \"$@\"\n",
	}, {
		.name = "fish",
		.head =
			"# fish completion for iolens: written by 'iolens completion fish' from its\n"
			"# option tables.\n"
			"complete -c iolens -f\n",
		.item = "complete -c iolens -n __fish_use_subcommand -a %s -d '", .drop = "'\\", .end = "'\n",
		.body =
			"complete -c iolens -n __fish_use_subcommand -a completion -d 'a completion script'\n"
			"complete -c iolens -n '__fish_seen_subcommand_from completion' -x -a 'bash zsh fish'\n",
		.cmd = fish_cmd,
		.tail = "",
	},
};

/* 0, or 1 after one line if a command has more options than it keeps. */
static int write_script(FILE *f, const struct shell *sh,
			const struct cli_command *cmds, int n)
{
	static struct copts c;

	fputs(sh->head, f);
	for (int i = 0; i < n; i++) {
		fprintf(f, sh->item, cmds[i].cli->name);
		if (sh->drop)
			put_cut(f, cmds[i].cli->summary, SIZE_MAX, sh->drop);
		fputs(sh->end, f);
	}
	fputs(sh->body, f);
	for (int i = 0; i < n; i++) {
		gather(&cmds[i], &c);
		if (c.full) {
			pr_err("completion: %s has more than %d options; raise MAX_COPTS",
			       cmds[i].cli->name, MAX_COPTS);
			return 1;
		}
		sh->cmd(f, &cmds[i], &c);
	}
	fputs(sh->tail, f);
	return 0;
}

int cmd_completion(int argc, char **argv, const struct cli_command *cmds, int n)
{
	const struct shell *sh = NULL;

	for (size_t i = 0; argc == 2 && i < sizeof(shells) / sizeof(shells[0]); i++)
		if (!strcmp(argv[1], shells[i].name))
			sh = &shells[i];
	if (sh) {
		return write_script(stdout, sh, cmds, n);
	} else if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: iolens completion bash|zsh|fish\n\n"
		       "A completion script for that shell, made from iolens's option tables:\n"
		       "  iolens completion bash > /etc/bash_completion.d/iolens\n");
	} else {
		return usage_err("completion", "which shell? bash, zsh or fish");
	}
	return 0;
}
