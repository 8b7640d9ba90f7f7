// SPDX-License-Identifier: GPL-2.0
/* `iolens stat`'s options, parsed into a struct stat_opts for stat_run()
 * (src/stat/). */
#include <stddef.h>
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "stat/stat.h"

#define OPTS struct stat_opts

enum { OPT_STUCK = CLI_LONG, OPT_BY };

/* --by: what a disk's line is split by besides ops, comma-separated. */
static const struct cli_word by_words[] = {
	{ "hwq", offsetof(OPTS, by_hwq), "a line per hardware queue of each disk" },
	{ "cgroup", offsetof(OPTS, by_cgroup), "per cgroup the kernel charged" },
	{ 0 }
};

static int set_by(void *at, const char *arg, const char *cmd)
{
	return cli_set_words(at, arg, by_words, cmd, "--by");
}

static const struct cli_opt opts[] = {
	CLI_AGG_DEV(OPTS),
	CLI_OPT('p', "partitions", NULL, "also a line per partition", CLI_BOOL(OPTS, partitions)),
	CLI_OPT('S', "stack", NULL, "stacked devices (dm, md) with the devices under them\nindented below; with -d, those devices too",
		CLI_BOOL(OPTS, stack)),
	CLI_OPT('y', "skip-boot", NULL, "omit the report since boot", CLI_BOOL(OPTS, skip_boot)),
	CLI_AGG_PROC(OPTS),
	CLI_OPT('z', "active", NULL, "omit devices without I/O in the interval", CLI_BOOL(OPTS, active_only)),
	CLI_OPT('N', "names", NULL, "devices by their stable names: /dev/mapper (LVM vg-lv,\ndm-crypt), /dev/md, else /dev/disk/by-id",
		CLI_BOOL(OPTS, names)),
	CLI_OPT('j', "json", NULL, "one JSON object per report (iostat's key names)", CLI_BOOL(OPTS, a.json)),
	CLI_OPT('H', "human", NULL, "sizes with units (4.0k, 1.2M) instead of kB", CLI_BOOL(OPTS, human)),
	CLI_OPT(OPT_STUCK, "stuck", "TIME", "warn of a request in flight this long (default 5s;\n0 never)",
		CLI_TIME_OR_0(OPTS, stuck_ns, "bad --stuck '%s': seconds, e.g. 5 or 500ms, or 0")),
	CLI_OPT(OPT_BY, "by", "hwq,cgroup", "also a line per hardware queue of each disk (an NVMe\nsubmission or poll queue): requests, await, depth;\nper cgroup the kernel charged the I/O to (on cgroup2\nwriteback goes to the cgroup that dirtied the pages)",
		CLI_CALL_ALL(set_by)),
	CLI_AGG_OWN_CLOCK(OPTS),
	CLI_END,
};

CLI_COMMAND_MAIN(stat, .stuck_ns = 5000000000ULL) = {
	.name = "stat",
	.usage = "usage: iolens stat [OPTIONS] [INTERVAL [COUNT]]\n",
	.about =
		"iostat -x per device, computed in the kernel, plus latency percentiles,\n"
		"queue vs device time, queue depth at issue and misaligned writes.\n"
		"Without INTERVAL: one report since boot from /proc/diskstats, as iostat.\n"
		"With it: the first report is since boot (unless -y), then one per\n"
		"INTERVAL (seconds, or 500ms), COUNT times or until Ctrl-C, which prints\n"
		"the interval so far.\n",
	.opts = opts,
	.more =
		"columns: iostat -x's, and\n"
		"  %util  the kernel's io_ticks over the interval, as iostat: time with a\n"
		"         request in the block layer, queued or at the device, counted in\n"
		"         whole jiffies (1-10 ms)\n"
		"  busy%  iolens's exact time with a request issued to the device and not\n"
		"         completed; - where unknown (a completion never delivered, a\n"
		"         partition, a bio-based device)\n"
		"bio-based devices (zram, dm, md, NVMe multipath heads): counts and times\n"
		"are the kernel's (diskstats), latency percentiles those of their bios.\n"
		"examples:\n"
		"  iolens stat -y 1\n"
		"  iolens stat -d loop0 -j 2 5\n",
	CLI_AGG_OPERANDS(OPTS),
	.summary = "iostat -x from the kernel, with latency percentiles and queue depth",
	.order = 30,
	.uses = TRACE_USES({ .agg = { .kinds = AGG_KINDS_STAT } }),
};
