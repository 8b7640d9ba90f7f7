// SPDX-License-Identifier: GPL-2.0
/* iolens attach: its options, parsed into struct attach_opts for
 * attach_run() (src/attach/). */
#include "attach/attach.h"
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "trace/block_trace.h"

#define OPTS struct attach_opts

static const struct cli_opt opts[] = {
	CLI_GROUP_AT(cli_rqfilter_opts, OPTS, filter, struct rqfilter),
	CLI_OPT_DURATION(CLI_TIME(OPTS, duration_ns, "--duration takes a time (10, 2.5s, 500ms), not '%s'")),
	CLI_OPT('j', "json", NULL, "JSON", CLI_BOOL(OPTS, json)),
	CLI_END,
};

/* Something to follow; -p's processes become the roots, followed with
 * their children, rather than the filter's exact pids. */
static int take_roots(void *obj, const char *cmd)
{
	struct attach_opts *a = obj;

	if (!a->filter.npid && !a->filter.ncomm && !a->filter.cgroup)
		return usage_err(cmd, "say what to follow: -p PID, -c NAME or -G CGROUP");
	if (cli_pids_live(cmd, a->filter.pid, a->filter.npid))
		return 2;
	for (int i = 0; i < a->filter.npid; i++)
		a->roots[a->nroots++] = (int)a->filter.pid[i];
	a->filter.npid = 0;
	return 0;
}

CLI_COMMAND_MAIN(attach) = {
	.name = "attach",
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
	.finish = take_roots,
	.summary = "follow running processes (a benchmark) and sum up their disk I/O",
	.order = 90,
	.uses = TRACE_USES({ .rings = 1, .block_flags = BLOCK_TRACE_BIOS }),
};
