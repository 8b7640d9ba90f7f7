/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommand entry points, dispatched from the table in main.c.  Each returns
 * the process exit code: 0 ok, 1 runtime failure, 2 usage error. */
#ifndef IOLENS_COMMANDS_H
#define IOLENS_COMMANDS_H

int cmd_doctor(int argc, char **argv);
int cmd_snoop(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_lat(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* Their option tables (cli/optable.h): --help, completions, man pages.
 * load parses fio's options itself (load/load.h). */
struct cli_cmd;
extern const struct cli_cmd attach_cli;
extern const struct cli_cmd bench_cli;
extern const struct cli_cmd check_cli;
extern const struct cli_cmd doctor_cli;
extern const struct cli_cmd lat_cli;
extern const struct cli_cmd record_cli;
extern const struct cli_cmd report_cli;
extern const struct cli_cmd serve_cli;
extern const struct cli_cmd snoop_cli;
extern const struct cli_cmd stat_cli;
extern const struct cli_cmd top_cli;

/* A row of main.c's command table. */
struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct cli_cmd *cli;	/* its options; NULL: load's own */
	const char *summary;
};

/* `iolens completion bash|zsh|fish`: the completion script of the
 * commands `cmds`, from their option tables (cli/completion.c). */
int cmd_completion(int argc, char **argv, const struct cli_command *cmds, int n);

#endif
