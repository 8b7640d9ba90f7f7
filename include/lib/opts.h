/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line helpers every subcommand shares. */
#ifndef IOLENS_OPTS_H
#define IOLENS_OPTS_H

#include <getopt.h>
#include <stdbool.h>

/* getopt_long() must run with opterr = 0 and an optstring starting with
 * ':', so that this prints the one line for an option getopt returned as
 * '?' (unknown) or ':' (value missing).  Returns 2, the usage exit code. */
int opt_error(const char *cmd, int opt, char **argv);

/* Parses "1.5", "250us", "2ms", "1.5s", "900ns" into ns; a bare number is
 * in `unit_ns` (1e3 for microseconds, 1e9 for seconds).  -1 if bad. */
long long parse_duration_ns(const char *s, double unit_ns);

/* For getopt's '?' on "-1": a negative number where the interval goes.
 * Returns 2 after one line when that is what happened, else 0. */
int opt_negative_interval(const char *cmd, int opt, int argc, char **argv);

/* Parses the trailing "[INTERVAL [COUNT]]" from argv[optind] on: INTERVAL
 * in seconds or with a unit, COUNT a positive whole number; absent ones are
 * left as they were.  Returns 0, or 2 after one line. */
int opt_interval_count(const char *cmd, int argc, char **argv,
		       unsigned long long *interval_ns, unsigned long *count);

/* Adds the whole disk named `s` to devs[*ndev] (at most
 * IOLENS_MAX_DEV_FILTER).  Returns 0, or 2 after one line. */
int opt_disk(const char *cmd, const char *s, unsigned int *devs, int *ndev);

/* --pid, --comm and --cgroup of the aggregating commands (stat, lat): the
 * long options' values, past the single characters getopt uses. */
enum { OPT_PROC_PID = 0x180, OPT_PROC_COMM, OPT_PROC_CGROUP };

#define PROC_FILTER_OPTS \
	{ "pid", required_argument, NULL, OPT_PROC_PID }, \
	{ "comm", required_argument, NULL, OPT_PROC_COMM }, \
	{ "cgroup", required_argument, NULL, OPT_PROC_CGROUP }

#define PROC_FILTER_HELP \
	"  --pid PID            only requests of this process, its children and\n" \
	"                       threads; repeatable\n" \
	"  --comm NAME          only requests of processes with this command name\n" \
	"  --cgroup PATH        only requests of processes in this cgroup2 and below\n"

struct iolens_proc_filter;

/* Handles one option of PROC_FILTER_OPTS into `f`: 1 if consumed, 0 if
 * `opt` is not one, 2 after printing a usage error. */
int opt_proc(const char *cmd, int opt, const char *arg,
	     struct iolens_proc_filter *f);

/* Whether `f` filters anything. */
bool opt_proc_set(const struct iolens_proc_filter *f);

#endif
