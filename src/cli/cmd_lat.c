// SPDX-License-Identifier: GPL-2.0
/* `iolens lat`'s options, parsed into a struct lat_opts for lat_run()
 * (src/lat/). */
#include <stddef.h>
#include "cli/commands.h"
#include "cli/filters.h"
#include "lat/lat.h"
#include "lib/log.h"

enum { OPT_TOTAL = CLI_LONG, OPT_QD, OPT_FINE, OPT_BY };

#define OPTS struct lat_opts

/* --by's words. */
static const struct cli_word by_words[] = {
	{ "hwq", offsetof(OPTS, per_hwq), "hardware queue" },
	{ "status", offsetof(OPTS, per_status), "failures timed by status" },
	{ "cgroup", offsetof(OPTS, per_cgroup), "the one charged" },
	{ "stack", offsetof(OPTS, per_stack), "the kernel's submitting stack" },
	{ 0 }
};

static int set_by(void *at, const char *arg, const char *cmd)
{
	return cli_set_words(at, arg, by_words, cmd, "--by");
}

static const struct cli_opt opts[] = {
	CLI_SECTION("what"),
	CLI_OPT('Q', "queued", NULL, "queue time, device time and total latency\n(biolatency -Q is the total)",
		CLI_BITS(OPTS, kinds, 1U << IOLENS_H_QUEUE | 1U << IOLENS_H_DEVICE | 1U << IOLENS_H_TOTAL)),
	CLI_OPT(OPT_TOTAL, "total", NULL, "total latency only: accounting start to completion",
		CLI_BITS(OPTS, kinds, 1U << IOLENS_H_TOTAL)),
	CLI_OPT('S', "size", NULL, "request size at issue", CLI_BITS(OPTS, kinds, 1U << IOLENS_H_SIZE)),
	CLI_OPT(OPT_QD, "qd", NULL, "requests in flight on the disk at issue",
		CLI_BITS(OPTS, kinds, 1U << IOLENS_H_QD)),
	CLI_SECTION("split"),
	CLI_OPT('D', "disks", NULL, "a histogram per disk", CLI_BOOL(OPTS, per_disk)),
	CLI_OPT('F', "flags", NULL, "per op and request flags (sync, fua, meta, ...)", CLI_BOOL(OPTS, per_flags)),
	CLI_OPT('P', "pids", NULL, "per submitting process (the task that submitted\nthe bio; writeback shows as its kworker)",
		CLI_BOOL(OPTS, per_proc)),
	CLI_OPT(OPT_BY, "by", "hwq,status,cgroup,stack", "per hardware queue (an NVMe submission or poll\nqueue); per status: failed requests timed in\nhistograms of their status, not listed apart; per\ncgroup the kernel charged (on cgroup2 writeback goes\nto the cgroup that dirtied the pages); per kernel\nstack that submitted the request (journal commit,\nwriteback, readahead, direct I/O), busiest first",
		CLI_CALL_ALL(set_by)),
	CLI_SECTION("options"),
	CLI_AGG_DEV(OPTS),
	CLI_OPT(OPT_FINE, "fine", NULL, "also every non-empty fine bucket", CLI_BOOL(OPTS, fine)),
	CLI_AGG_PROC(OPTS),
	CLI_OPT('j', "json", NULL, "one JSON object per report, fine buckets included", CLI_BOOL(OPTS, a.json)),
	CLI_AGG_OWN_CLOCK(OPTS),
	CLI_END,
};

CLI_COMMAND_MAIN(lat) = {
	.name = "lat",
	.usage = "usage: iolens lat [OPTIONS] [INTERVAL [COUNT]]\n",
	.about =
		"Histograms aggregated in the kernel, like biolatency: by default the\n"
		"device time of each request, from issue to the driver's completion.\n"
		"Rows are powers of two; percentiles come from buckets 1/64 of a power\n"
		"of two wide (within 0.78%).  Without INTERVAL: one report at Ctrl-C.\n"
		"With it: one per INTERVAL (seconds, or 500ms), COUNT times or until\n"
		"Ctrl-C, which prints the interval so far.\n",
	.opts = opts,
	.more =
		"examples:\n"
		"  iolens lat -D 1 10\n"
		"  iolens lat -Q -P -d loop0\n"
		"  iolens lat --by stack -d nvme0n1 10 1\n",
	CLI_AGG_OPERANDS(OPTS),
	.summary = "latency, size and queue-depth histograms, per disk, op or process",
	.order = 40,
	.uses = TRACE_USES({ .agg = { .kinds = AGG_KINDS_LAT, .lat = true } },
			 { .options = "--by stack",
			   .agg = { .kinds = AGG_KINDS_LAT, .lat = true, .key_stack = true } }),
};
