/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolens bench: run a load (iolens load's options or fio job files) and
 * trace it in the same command, to show the application's view beside the
 * device's; src/bench/bench.c.  It composes load and the tracers, so it is
 * a layer above the command folders.
 */
#ifndef IOLENS_BENCH_H
#define IOLENS_BENCH_H

#include <stdbool.h>

struct bench_opts {
	bool json;		/* -j */
	/* The load's options and job files, passed through as they are:
	 * bench_run() parses them with load_parse_args(), which takes
	 * load_argv[0] as the command name. */
	int load_argc;
	char **load_argv;
};

/* Parses the load's arguments (their usage errors, and the load options
 * bench refuses, return 2 after one line), runs the load traced and
 * prints the report: the exit code. */
int bench_run(const struct bench_opts *o);

#endif
