// SPDX-License-Identifier: GPL-2.0
/*
 * `iolens completion bash|zsh|fish`: completion scripts written from the
 * command table and each command's option table (and load's fio options),
 * so that they cannot drift from --help.  What a value completes to comes
 * from the option: its choices (formats, charts, columns, ops), else its
 * name in --help: DEV a disk or partition, PID a process, USER a user, FILE
 * a file, PATH a directory (a cgroup).
 */
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

#define MAX_COPTS 64

struct copts {
	struct copt v[MAX_COPTS];
	int n;
};

static void add_cli(const struct cli_opt *o, void *ctx)
{
	struct copts *c = ctx;
	struct copt *p;
	const char *nl;

	if (o->section || (!o->key && !o->name) || c->n == MAX_COPTS)
		return;
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

	if (c->n == MAX_COPTS)
		return;
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
	if (cmd->cli->opts)
		cli_each_opt(cmd->cli, add_cli, c);
	else if (cmd->cli->opts_each)
		cmd->cli->opts_each(add_own, c);
}

/* Help text as one shell-quoted line: what the shell would take apart
 * (quotes, brackets, colons) left out. */
static void put_help(FILE *f, const struct copt *o, const char *drop)
{
	for (size_t i = 0; i < o->helplen; i++)
		if (!strchr(drop, o->help[i]))
			fputc(o->help[i], f);
}

/* ---- bash ---- */

static void bash_value(FILE *f, const struct copt *o)
{
	switch (o->v) {
	case V_CHOICE: fprintf(f, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", o->choices); break;
	case V_LIST: fprintf(f, "_iolens_list \"%s\" \"$cur\"", o->choices); break;
	case V_DEV: fputs("COMPREPLY=($(compgen -W \"$(_iolens_devs)\" -- \"$cur\"))", f); break;
	case V_PID: fputs("COMPREPLY=($(compgen -W \"$(_iolens_pids)\" -- \"$cur\"))", f); break;
	case V_USER: fputs("COMPREPLY=($(compgen -u -- \"$cur\"))", f); break;
	case V_FILE: fputs("COMPREPLY=($(compgen -f -- \"$cur\"))", f); break;
	case V_DIR: fputs("COMPREPLY=($(compgen -d -- \"$cur\"))", f); break;
	default: fputs(":", f); break;	/* a number, a time: nothing to offer */
	}
}

static void bash_cmd(FILE *f, const struct cli_command *cmd)
{
	struct copts c;

	gather(cmd, &c);
	fprintf(f, "\t%s)\n\t\tcase $prev in\n", cmd->cli->name);
	for (int i = 0; i < c.n; i++) {
		const struct copt *o = &c.v[i];

		if (o->v == V_NONE)
			continue;
		fputs("\t\t", f);
		if (o->sopt)
			fprintf(f, "-%c%s", o->sopt, o->lopt ? "|" : "");
		if (o->lopt)
			fprintf(f, "--%s", o->lopt);
		fputs(") ", f);
		bash_value(f, o);
		fputs(" ;;\n", f);
	}
	fputs("\t\t*) COMPREPLY=($(compgen -W \"", f);
	for (int i = 0; i < c.n; i++) {
		const struct copt *o = &c.v[i];

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

static void bash(FILE *f, const struct cli_command *cmds, int n)
{
	fputs("# bash completion for iolens: written by 'iolens completion bash' from its\n"
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
	      "\t\"\") COMPREPLY=($(compgen -W \"", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s ", cmds[i].cli->name);
	fputs("completion -v --verbose -h --help -V --version\" -- \"$cur\")) ;;\n", f);
	for (int i = 0; i < n; i++)
		bash_cmd(f, &cmds[i]);
	fputs("\tcompletion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")) ;;\n"
	      "\tesac\n"
	      "}\n"
	      "complete -F _iolens iolens\n", f);
}

/* ---- zsh ---- */

static void zsh_action(FILE *f, const struct copt *o)
{
	switch (o->v) {
	case V_CHOICE: fprintf(f, ":value:(%s)", o->choices); break;
	case V_LIST: fprintf(f, ":value:_values -s , value %s", o->choices); break;
	case V_DEV: fputs(":device:_iolens_devs", f); break;
	case V_PID: fputs(":pid:_pids", f); break;
	case V_USER: fputs(":user:_users", f); break;
	case V_FILE: fputs(":file:_files", f); break;
	case V_DIR: fputs(":directory:_files -/", f); break;
	case V_ANY: fputs(":value: ", f); break;
	default: break;
	}
}

static void zsh_cmd(FILE *f, const struct cli_command *cmd)
{
	struct copts c;

	gather(cmd, &c);
	fprintf(f, "\t%s)\n\t\t_arguments -s", cmd->cli->name);
	for (int i = 0; i < c.n; i++) {
		const struct copt *o = &c.v[i];
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
		zsh_action(f, o);
		fputc('\'', f);
	}
	fputs(" ;;\n", f);
}

static void zsh(FILE *f, const struct cli_command *cmds, int n)
{
	fputs("#compdef iolens\n"
	      "# zsh completion for iolens: written by 'iolens completion zsh' from its\n"
	      "# option tables.\n"
	      "_iolens_devs() { local -a d; d=(/sys/class/block/*(N:t)); compadd -a d }\n"
	      "_iolens() {\n"
	      "\tlocal -a cmds\n"
	      "\tcmds=(", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "'%s:", cmds[i].cli->name);
		for (const char *s = cmds[i].cli->summary; *s; s++)
			if (*s != '\'' && *s != ':')
				fputc(*s, f);
		fputs("' ", f);
	}
	fputs("'completion:a completion script for bash, zsh or fish')\n"
	      "\tif (( CURRENT == 2 )); then _describe -t commands 'iolens command' cmds; return; fi\n"
	      "\tlocal cmd=$words[2]\n"
	      "\tshift words; (( CURRENT-- ))\n"
	      "\tcase $cmd in\n", f);
	for (int i = 0; i < n; i++)
		zsh_cmd(f, &cmds[i]);
	fputs("\tcompletion) _values shell bash zsh fish ;;\n"
	      "\tesac\n"
	      "}\n"
	      "_iolens \"$@\"\n", f);
}

/* ---- fish ---- */

static void fish_cmd(FILE *f, const struct cli_command *cmd)
{
	struct copts c;

	gather(cmd, &c);
	for (int i = 0; i < c.n; i++) {
		const struct copt *o = &c.v[i];

		fprintf(f, "complete -c iolens -n '__fish_seen_subcommand_from %s'", cmd->cli->name);
		if (o->sopt)
			fprintf(f, " -s %c", o->sopt);
		if (o->lopt)
			fprintf(f, " -l %s", o->lopt);
		switch (o->v) {
		case V_NONE: break;
		case V_CHOICE: fprintf(f, " -x -a '%s'", o->choices); break;
		case V_LIST: fprintf(f, " -x -a '(__fish_complete_list , \"string split \\\" \\\" \\\"%s\\\"\")'", o->choices); break;
		case V_DEV: fputs(" -x -a '(string replace -r \".*/\" \"\" /sys/class/block/*)'", f); break;
		case V_PID: fputs(" -x -a '(__fish_complete_pids)'", f); break;
		case V_USER: fputs(" -x -a '(__fish_complete_users)'", f); break;
		case V_FILE: fputs(" -r -F", f); break;
		case V_DIR: fputs(" -x -a '(__fish_complete_directories)'", f); break;
		default: fputs(" -x", f); break;
		}
		fputs(" -d '", f);
		put_help(f, o, "'\\");
		fputs("'\n", f);
	}
}

static void fish(FILE *f, const struct cli_command *cmds, int n)
{
	fputs("# fish completion for iolens: written by 'iolens completion fish' from its\n"
	      "# option tables.\n"
	      "complete -c iolens -f\n", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "complete -c iolens -n __fish_use_subcommand -a %s -d '", cmds[i].cli->name);
		for (const char *s = cmds[i].cli->summary; *s; s++)
			if (*s != '\'' && *s != '\\')
				fputc(*s, f);
		fputs("'\n", f);
	}
	fputs("complete -c iolens -n __fish_use_subcommand -a completion -d 'a completion script'\n"
	      "complete -c iolens -n '__fish_seen_subcommand_from completion' -x -a 'bash zsh fish'\n", f);
	for (int i = 0; i < n; i++)
		fish_cmd(f, &cmds[i]);
}

int cmd_completion(int argc, char **argv, const struct cli_command *cmds, int n)
{
	if (argc == 2 && !strcmp(argv[1], "bash"))
		bash(stdout, cmds, n);
	else if (argc == 2 && !strcmp(argv[1], "zsh"))
		zsh(stdout, cmds, n);
	else if (argc == 2 && !strcmp(argv[1], "fish"))
		fish(stdout, cmds, n);
	else if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		printf("usage: iolens completion bash|zsh|fish\n\n"
		       "A completion script for that shell, made from iolens's option tables:\n"
		       "  iolens completion bash > /etc/bash_completion.d/iolens\n");
	else
		return usage_err("completion", "which shell? bash, zsh or fish");
	return 0;
}
