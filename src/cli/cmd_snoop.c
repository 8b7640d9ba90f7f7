// SPDX-License-Identifier: GPL-2.0
/* iolens snoop: its options; the tracing is snoop/. */
#include "cli/commands.h"
#include "cli/filters.h"
#include "snoop/snoop.h"
#include "trace/block_trace.h"

enum { OPT_CSV = CLI_LONG, OPT_STUCK, OPT_STACKS };

#define OPTS struct snoop_opts

static const struct cli_opt opts[] = {
	CLI_GROUP_AT(cli_rqfilter_opts, OPTS, filter, struct rqfilter),
	CLI_NOTE("(-p here also takes in the process's children)"),
	CLI_OPT('j', "json", NULL, "JSON lines, one object per request", CLI_INT(OPTS, mode, RQFMT_JSON)),
	CLI_OPT(OPT_CSV, "csv", NULL, "CSV with a header row", CLI_INT(OPTS, mode, RQFMT_CSV)),
	CLI_OPT_DURATION(CLI_TIME(OPTS, duration_ns, "bad duration '%s': seconds, e.g. 10 or 0.5 or 500ms")),
	CLI_OPT('n', "count", "N", "stop after N requests shown", CLI_COUNT(OPTS, max, "bad count '%s'")),
	CLI_OPT(OPT_STUCK, "stuck", "TIME", "a line on stderr for a request in flight this long\n(default 5s; 0 never)",
		CLI_TIME_OR_0(OPTS, stuck_ns, "bad --stuck '%s': seconds, e.g. 5 or 500ms, or 0")),
	CLI_OPT(OPT_STACKS, "stacks", NULL, "each request's submitting kernel stack (below\nits line; JSON \"stack\"; CSV: folded)",
		CLI_BOOL(OPTS, stacks)),
	CLI_OPT('F', "files", NULL, "the file each request's data belongs to: its path,\nor metadata, device, unknown (last column; JSON\n\"file\", \"file_kind\", \"file_dev\", \"file_ino\")",
		CLI_BOOL(OPTS, files)),
	CLI_END,
};

/* -p is followed live: its processes must be there. */
static int check_pids(void *obj, const char *cmd)
{
	const struct snoop_opts *o = obj;

	return cli_pids_live(cmd, o->filter.pid, o->filter.npid);
}

CLI_COMMAND_MAIN(snoop, .mode = RQFMT_TEXT, .stuck_ns = 5000000000ULL) = {
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
		"  iolens snoop -O write -c postgres -j\n"
		"  iolens snoop -F -d sda             which file each request is of\n",
	.finish = check_pids,
	.summary = "a line per block request: who, where, how long (iosnoop, biosnoop)",
	.order = 20,
	.uses = TRACE_USES({ .rings = -1 },
			   { .options = "--stacks", .rings = -1, .block_flags = BLOCK_TRACE_STACKS },
			   { .options = "--files", .rings = -1, .block_flags = BLOCK_TRACE_FILES }),
};
