// SPDX-License-Identifier: GPL-2.0
/*
 * iolens load: synthetic I/O with fio's option names, fio's reports, and
 * nothing written where it could destroy data (see load/load_target.c).
 * The parsing of its command line and job files, the run and the reports
 * are load's (src/load/), since `iolens bench` runs the same jobs.
 */
#include "cli/commands.h"
#include "load/load.h"

static int cmd_load(int argc, char **argv)
{
	struct load_jobs js = {};
	int rc = load_parse_args(argc, argv, &js);

	if (rc < 0)
		rc = 0;
	else if (!rc)
		rc = load_run(&js, NULL, NULL);
	load_jobs_free(&js);
	return rc;
}

CLI_COMMAND(load) = {
	.name = "load",
	.fn = cmd_load,
	.cli = NULL,
	.summary = "synthetic load with fio's options and output (psync, io_uring, libaio)",
	.order = 70,
};
