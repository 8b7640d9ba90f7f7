// SPDX-License-Identifier: GPL-2.0
/* iolens record: its options; the recording is record/. */
#include <sys/stat.h>
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "record/record.h"

static const struct cli_opt opts[] = {
	CLI_OPT('o', "output", "FILE", "trace file to write (required; replaced if it exists)"),
	CLI_OPT('D', "duration", "TIME", "stop after TIME (seconds; or 500ms)"),
	CLI_GROUP(cli_rqfilter_opts),
	CLI_END,
};

static const struct cli_cmd record_cli = {
	.name = "record",
	.usage = "usage: iolens record -o FILE [options]\n",
	.about =
		"Write every completed block request to FILE (gzip-compressed, with\n"
		"host, kernel, time base and each disk's block sizes), until Ctrl-C,\n"
		"SIGTERM or --duration.  Read it with 'iolens report FILE'.\n",
	.opts = opts,
	.more =
		"examples:\n"
		"  iolens record -o boot.iol -D 30\n"
		"  iolens record -o db.iol -d nvme0n1 -c postgres\n"
		"  iolens report -f perfetto db.iol > db.json   # open in ui.perfetto.dev\n",
};

static int cmd_record(int argc, char **argv)
{
	struct record_opts o = {};
	struct cli_parser p;
	struct stat st;
	int opt, r;

	cli_begin(&p, &record_cli, argc, argv);
	while ((opt = cli_next(&p)) > 0) {
		r = cli_rqfilter_opt(&o.filter, "record", opt, optarg);
		if (r == 2)
			return 2;
		if (r)
			continue;
		switch (opt) {
		case 'o':
			o.path = optarg;
			break;
		case 'D':
			if (parse_duration(optarg, 1e9, &o.duration_ns) || !o.duration_ns)
				return usage_err("record", "bad duration '%s': seconds, e.g. 10 or 0.5 or 500ms", optarg);
			break;
		}
	}
	if (opt < 0)
		return cli_exit(opt);
	if (cli_no_operands(&p))
		return 2;
	if (!o.path || !*o.path)
		return usage_err("record", "no output file: give -o FILE");
	/* Never replace something that is not a plain file (a device!). */
	if (!stat(o.path, &st) && !S_ISREG(st.st_mode))
		return usage_err("record", "'%s' exists and is not a regular file", o.path);
	if (cli_pids_live("record", o.filter.pid, o.filter.npid))
		return 2;
	return record_run(&o);
}

CLI_COMMAND(record) = {
	.name = "record",
	.fn = cmd_record,
	.cli = &record_cli,
	.summary = "write every block request to a compressed trace file",
	.order = 50,
	.uses = TRACE_USES({ .rings = 1 }),
};
