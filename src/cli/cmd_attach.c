// SPDX-License-Identifier: GPL-2.0
/* iolens attach: its options, parsed into struct attach_opts for
 * attach_run() (src/attach/). */
#include <stdio.h>
#include "attach/attach.h"
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "lib/parse.h"

#define CMD "attach"

static const struct cli_opt opts[] = {
	CLI_GROUP(cli_rqfilter_opts),
	CLI_OPT('D', "duration", "TIME", "stop after TIME (seconds; or 500ms)"),
	CLI_OPT('j', "json", NULL, "JSON"),
	CLI_END,
};

static const struct cli_cmd attach_cli = {
	.name = CMD,
	.usage = "usage: iolens attach [-p PID]... [-c NAME]... [-G CGROUP] [OPTIONS]\n",
	.about =
		"Follows running processes (with -p: they, their children and all their\n"
		"threads) and, at Ctrl-C, --duration or when every -p process has exited,\n"
		"sums up what the disks did for them: requests, bytes, average size,\n"
		"latency (total = queue + device) percentiles, queue depth at issue,\n"
		"misaligned writes, per process; and the writes the kernel's flusher\n"
		"threads did meanwhile (writeback: found under the cgroup that dirtied the\n"
		"pages with -G on cgroup v2, else shown apart, unattributed).\n",
	.opts = opts,
	.more =
		"A child is known by its parent chain in /proc when its first request is\n"
		"read (within 20 ms): one that does I/O and exits faster is missed.\n"
		"\n"
		"examples:\n"
		"  fio job.fio & iolens attach -p $!\n"
		"  iolens attach -c postgres -D 60 -j\n",
};

static int parse_opts(struct attach_opts *a, int argc, char **argv)
{
	struct cli_parser p;
	int opt, r;

	cli_begin(&p, &attach_cli, argc, argv);
	while ((opt = cli_next(&p)) > 0) {
		switch (opt) {
		case 'D':
			if (parse_duration(optarg, 1e9, &a->duration_ns) ||
			    !a->duration_ns)
				return usage_err(CMD, "--duration takes a time (10, 2.5s, 500ms), not '%s'", optarg);
			break;
		case 'j':
			a->json = true;
			break;
		default:
			r = cli_rqfilter_opt(&a->filter, CMD, opt, optarg);
			if (r != 1)
				return 2;
		}
	}
	if (opt < 0)
		return opt == CLI_HELP ? -1 : 2;
	if (cli_no_operands(&p))
		return 2;
	if (!a->filter.npid && !a->filter.ncomm && !a->filter.cgroup)
		return usage_err(CMD, "say what to follow: -p PID, -c NAME or -G CGROUP");
	/* -p is matched with children here, not as the filter's exact pid. */
	if (cli_pids_live(CMD, a->filter.pid, a->filter.npid))
		return 2;
	for (int i = 0; i < a->filter.npid; i++)
		a->roots[a->nroots++] = (int)a->filter.pid[i];
	a->filter.npid = 0;
	return 0;
}

static int cmd_attach(int argc, char **argv)
{
	struct attach_opts o = {};
	int rc;

	rc = parse_opts(&o, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	return attach_run(&o);
}

CLI_COMMAND(attach) = {
	.name = "attach",
	.fn = cmd_attach,
	.cli = &attach_cli,
	.summary = "follow running processes (a benchmark) and sum up their disk I/O",
	.order = 90,
	.uses = TRACE_USES({ .rings = 1 }),
};
