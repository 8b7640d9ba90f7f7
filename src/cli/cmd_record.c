// SPDX-License-Identifier: GPL-2.0
/* iolens record: its options; the recording is record/. */
#include <sys/stat.h>
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "record/record.h"
#include "trace/block_trace.h"

#define OPTS struct record_opts

enum { OPT_STACKS = CLI_LONG };

static const struct cli_opt opts[] = {
	CLI_OPT('o', "output", "FILE", "trace file to write (required; replaced if it exists)",
		CLI_STRING(OPTS, path)),
	CLI_OPT_DURATION(CLI_TIME(OPTS, duration_ns, "bad duration '%s': seconds, e.g. 10 or 0.5 or 500ms")),
	CLI_GROUP_AT(cli_rqfilter_opts, OPTS, filter, struct rqfilter),
	CLI_OPT(OPT_STACKS, "stacks", NULL, "with each request's submitting kernel stack",
		CLI_BOOL(OPTS, stacks)),
	CLI_OPT('F', "files", NULL, "with the file each request's data belongs to, and\nits path", CLI_BOOL(OPTS, files)),
	CLI_END,
};

static int check_output(void *obj, const char *cmd)
{
	const struct record_opts *o = obj;
	struct stat st;

	if (!o->path || !*o->path)
		return usage_err(cmd, "no output file: give -o FILE");
	/* Never replace something that is not a plain file (a device!). */
	if (!stat(o->path, &st) && !S_ISREG(st.st_mode))
		return usage_err(cmd, "'%s' exists and is not a regular file", o->path);
	return cli_pids_live(cmd, o->filter.pid, o->filter.npid);
}

CLI_COMMAND_MAIN(record) = {
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
	.finish = check_output,
	.summary = "write every block request to a compressed trace file",
	.order = 50,
	.uses = TRACE_USES({ .rings = 1 },
			   { .options = "--stacks", .rings = 1, .block_flags = BLOCK_TRACE_STACKS },
			   { .options = "--files", .rings = 1, .block_flags = BLOCK_TRACE_FILES }),
};
