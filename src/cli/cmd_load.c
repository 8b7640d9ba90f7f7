// SPDX-License-Identifier: GPL-2.0
/*
 * iolens load: synthetic I/O with fio's option names, fio's reports, and
 * nothing written where it could destroy data (see load/load_target.c).
 * The parsing of its command line and job files, the run and the reports
 * are load's (src/load/), since `iolens bench` runs the same jobs.
 */
#include "cli/commands.h"
#include "load/load.h"

CLI_COMMAND(load) = {
	.name = "load",
	.opts_each = load_opts_each,
	.summary = "synthetic load with fio's options, engines, job files and output",
	.order = 70,
};

static int cmd_load(int argc, char **argv)
{
	return load_run_cmdline(argc, argv);
}
