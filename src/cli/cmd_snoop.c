// SPDX-License-Identifier: GPL-2.0
/* iolens snoop: its options; the tracing is snoop/. */
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "snoop/snoop.h"

enum { OPT_CSV = CLI_LONG };

static const struct cli_opt opts[] = {
	CLI_GROUP(cli_rqfilter_opts),
	CLI_NOTE("(-p here also takes in the process's children)"),
	CLI_OPT('j', "json", NULL, "JSON lines, one object per request"),
	CLI_OPT(OPT_CSV, "csv", NULL, "CSV with a header row"),
	CLI_OPT('D', "duration", "TIME", "stop after TIME (seconds; or 500ms)"),
	CLI_OPT('n', "count", "N", "stop after N requests shown"),
	CLI_END,
};

static const struct cli_cmd snoop_cli = {
	.name = "snoop",
	.usage = "usage: iolens snoop [options]\n",
	.about =
		"Print one line per completed block request: submitter, disk, op and\n"
		"flags, sector, size, queue time (start->issue), device time\n"
		"(issue->complete), total, requests in flight at issue, status.\n"
		"Times are microseconds with ns precision; '-' means the event it\n"
		"needs was not seen (request already in flight at start), never a guess.\n",
	.opts = opts,
	.more =
		"examples:\n"
		"  iolens snoop                       every request on every disk\n"
		"  iolens snoop -d nvme0n1 -m 10ms    requests slower than 10 ms\n"
		"  iolens snoop -O write -c postgres -j\n",
};

static int cmd_snoop(int argc, char **argv)
{
	struct snoop_opts o = { .mode = RQFMT_TEXT };
	struct cli_parser p;
	unsigned long max;
	int opt, r;

	cli_begin(&p, &snoop_cli, argc, argv);
	while ((opt = cli_next(&p)) > 0) {
		r = cli_rqfilter_opt(&o.filter, "snoop", opt, optarg);
		if (r == 2)
			return 2;
		if (r)
			continue;
		switch (opt) {
		case 'j':
			o.mode = RQFMT_JSON;
			break;
		case OPT_CSV:
			o.mode = RQFMT_CSV;
			break;
		case 'D':
			if (parse_duration(optarg, 1e9, &o.duration_ns) || !o.duration_ns)
				return usage_err("snoop", "bad duration '%s': seconds, e.g. 10 or 0.5 or 500ms", optarg);
			break;
		case 'n':
			if (parse_count(optarg, &max))
				return usage_err("snoop", "bad count '%s'", optarg);
			o.max = max;
			break;
		}
	}
	if (opt < 0)
		return cli_exit(opt);
	if (cli_no_operands(&p))
		return 2;
	if (cli_pids_live("snoop", o.filter.pid, o.filter.npid))
		return 2;
	return snoop_run(&o);
}

CLI_COMMAND(snoop) = {
	.name = "snoop",
	.fn = cmd_snoop,
	.cli = &snoop_cli,
	.summary = "one line per block request: who, where, how long (iosnoop, biosnoop)",
	.order = 20,
	.uses = TRACE_USES({ .rings = -1 }),
};
