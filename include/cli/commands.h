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

/* A row of the command table: a command's main, and what it is (its name,
 * summary, place and uses) and takes (its options), one struct cli_cmd. */
struct cli_command {
	/* Returns the exit code: 0 ok, 1 runtime failure, 2 usage error. */
	int (*fn)(int argc, char **argv);
	const struct cli_cmd *cli;
};

/* Command X, whose main is cmd_X() (defined after it): its struct cli_cmd
 * X_cli is given after "=", and its row goes into the section
 * iolens_commands, which cli_commands() reads (the linker gathers every
 * file's). */
#define CLI_COMMAND(X)							\
	static const struct cli_cmd X##_cli;				\
	static int cmd_##X(int argc, char **argv);			\
	static const struct cli_command X##_command = { cmd_##X, &X##_cli }; \
	static const struct cli_command *const X##_command_ptr		\
	__attribute__((used, section("iolens_commands"))) = &X##_command; \
	static const struct cli_cmd X##_cli

/* CLI_COMMAND() for a command whose parsing is all in its table, with
 * its main, cmd_X(): a struct X_opts, first as the initializers after X
 * say, filled by cli_parse(), then X_run() with it. */
#define CLI_COMMAND_MAIN(X, ...)					\
	static const struct cli_cmd X##_cli;				\
	static int cmd_##X(int argc, char **argv)			\
	{								\
		struct X##_opts o = { __VA_ARGS__ };			\
		int rc = cli_parse(&X##_cli, &o, argc, argv);		\
									\
		return rc == CLI_RUN ? X##_run(&o) : rc;		\
	}								\
	CLI_COMMAND(X)

/* The table, in the order of iolens --help; *n rows. */
const struct cli_command *cli_commands(int *n);

/* `iolens completion bash|zsh|fish`: the completion script of the
 * commands `cmds`, from their option tables (cli/completion.c). */
int cmd_completion(int argc, char **argv, const struct cli_command *cmds, int n);

#endif
