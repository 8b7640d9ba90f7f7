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

#endif
