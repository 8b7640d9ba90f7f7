/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command table.  Each src/cli/cmd_X.c adds its own row with
 * CLI_COMMAND(); everything else that lists the commands reads the table:
 * main's dispatch and --help, the completions, the man pages (from
 * --help), doctor's verdicts and memory rows (from each row's uses), the
 * Makefile's list (from the file names) and the kernel matrix (it checks
 * that every command of --help has its case).  Adding a command is its
 * cmd_X.c and the folder of its logic.
 */
#ifndef IOLENS_COMMANDS_H
#define IOLENS_COMMANDS_H

#include "cli/optable.h"
#include "trace/hooks.h"

struct cli_cmd;

/* A row of the command table. */
struct cli_command {
	const char *name;
	/* The command; returns the exit code: 0 ok, 1 runtime failure,
	 * 2 usage error. */
	int (*fn)(int argc, char **argv);
	const struct cli_cmd *cli;	/* its options; NULL: its own parser's */
	/* Without `cli`: calls fn once per option of the command's own
	 * parser (the completions' list). */
	void (*opts_each)(void (*fn)(const char *name, const char *arg,
				     const char *choices, const char *help,
				     void *ctx),
			  void *ctx);
	const char *summary;		/* a line of iolens --help */
	int order;			/* its place in iolens --help */
	/* What it loads in the kernel (TRACE_USES(...)); NULL: nothing. */
	const struct trace_use *uses;
};

/* Defines the row of command `id`, to be given after "=": the row itself
 * is static, and a pointer to it goes into the section iolens_commands,
 * which cli_commands() reads (the linker gathers every file's). */
#define CLI_COMMAND(id)							\
	static const struct cli_command id##_command;			\
	static const struct cli_command *const id##_command_ptr		\
	__attribute__((used, section("iolens_commands"))) = &id##_command; \
	static const struct cli_command id##_command

/* Defines cmd_X(), the `fn` of the row of a command X whose parsing is
 * all in its table X_cli: a struct X_opts, first as the initializers after
 * X say, filled by cli_parse(), then X_run() with it. */
#define CLI_MAIN(X, ...)						\
	static int cmd_##X(int argc, char **argv)			\
	{								\
		struct X##_opts o = { __VA_ARGS__ };			\
		int rc = cli_parse(&X##_cli, &o, argc, argv);		\
									\
		return rc == CLI_RUN ? X##_run(&o) : rc;		\
	}

/* The table, in the order of iolens --help; *n rows. */
const struct cli_command *cli_commands(int *n);

/* `iolens completion bash|zsh|fish`: the completion script of the
 * commands `cmds`, from their option tables (cli/completion.c). */
int cmd_completion(int argc, char **argv, const struct cli_command *cmds, int n);

#endif
