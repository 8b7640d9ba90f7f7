/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line helpers every subcommand shares. */
#ifndef IOLENS_OPTS_H
#define IOLENS_OPTS_H

/* getopt_long() must run with opterr = 0 and an optstring starting with
 * ':', so that this prints the one line for an option getopt returned as
 * '?' (unknown) or ':' (value missing).  Returns 2, the usage exit code. */
int opt_error(const char *cmd, int opt, char **argv);

/* Parses "1.5", "250us", "2ms", "1.5s", "900ns" into ns; a bare number is
 * in `unit_ns` (1e3 for microseconds, 1e9 for seconds).  -1 if bad. */
long long parse_duration_ns(const char *s, double unit_ns);

#endif
