// SPDX-License-Identifier: GPL-2.0
/* iolens bench: its own options, before the load's; bench_run() (src/bench/)
 * parses the load's. */
#include <stdio.h>
#include "bench/bench.h"
#include "cli/commands.h"
#include "cli/optable.h"

static const struct cli_opt opts[] = {
	CLI_OPT('j', "json", NULL, "JSON (before the load options)",
		CLI_BOOL(struct bench_opts, json)),
	CLI_END,
};

/* What follows bench's options is load's: its parser takes argv[0] as the
 * command name. */
static int take_load_args(void *at, int argc, char **argv, const char *cmd)
{
	struct bench_opts *o = at;

	(void)cmd;
	o->load_argc = argc - optind + 1;
	o->load_argv = argv + optind - 1;
	return 0;
}

CLI_COMMAND_MAIN(bench) = {
	.name = "bench",
	.usage = "usage: iolens bench [-j] [iolens load options | JOBFILE...]\n",
	.about =
		"Runs the load of 'iolens load' with the same options and job files, traces\n"
		"its block requests, and shows the application's view beside the device's:\n"
		"IOPS, bytes, average size, latency percentiles (the load's completion\n"
		"latency; the device's total = queue + device time), block requests per\n"
		"application I/O, queue depth, reads caused by writes (page-cache RMW),\n"
		"misaligned writes, write amplification, page-cache hit ratio.\n",
	.opts = opts,
	.more =
		"Writeback of buffered writes is done by the kernel's flusher threads: it\n"
		"is counted from the target disks while the load runs, whoever dirtied\n"
		"the pages.  Tracing costs the load: the figures are of a traced run.\n"
		"\n"
		"examples:\n"
		"  iolens bench --name=r --filename=/dev/loop0 --rw=randread --bs=4k \\\n"
		"      --direct=1 --ioengine=io_uring --iodepth=32 --runtime=10 --time_based\n"
		"  iolens bench -j job.fio\n",
	.leading = true,
	.operands = take_load_args,
	.summary = "run a load and trace it: the application's view beside the device's",
	.order = 80,
	.uses = TRACE_USES({ .rings = 1, .write_checks = true }),
};
