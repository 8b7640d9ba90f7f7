// SPDX-License-Identifier: GPL-2.0
/* iolens check: its options, parsed into struct check_opts for check_run()
 * (src/check/). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "check/check.h"
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "lib/parse.h"

static int set_align(void *at, const char *arg, const char *cmd)
{
	__u64 v;

	if (parse_size(arg, &v) || !v || v > (1U << 30) || v % 512)
		return usage_err(cmd, "--align takes a size in bytes, a multiple of 512 (4096, 64k), not '%s'", arg);
	*(unsigned int *)at = (unsigned int)v;
	return 0;
}

static int set_threshold(void *at, const char *arg, const char *cmd)
{
	double *pct = at;
	char *end;

	*pct = strtod(arg, &end);
	if (*end || end == arg || *pct < 0 || *pct > 100)
		return usage_err(cmd, "--threshold takes a percentage from 0 to 100, not '%s'", arg);
	return 0;
}

#define OPTS struct check_opts

static const struct cli_opt opts[] = {
	CLI_OPT_DEV(CLI_DISKS(OPTS, devs, ndev)),
	CLI_OPT('p', "pid", "PID", "only I/O of this process and its children; repeatable",
		CLI_PIDS(OPTS, pids, npid)),
	CLI_OPT('c', "comm", "NAME", "only I/O of processes with this command name",
		CLI_STRING(OPTS, comm)),
	CLI_OPT('a', "align", "BYTES", "judge against BYTES (a RAID stripe, a flash page;\nk, m suffixes) instead of each disk's physical block",
		CLI_CALL(OPTS, align, set_align)),
	CLI_OPT_DURATION(CLI_TIME(OPTS, duration_ns, "--duration takes a time (10, 2.5s, 500ms), not '%s'")),
	CLI_OPT('t', "threshold", "PCT", "a finding fails above PCT percent of its total\n(default 0: any finding fails)",
		CLI_CALL(OPTS, threshold, set_threshold)),
	CLI_OPT('j', "json", NULL, "JSON", CLI_BOOL(OPTS, json)),
	CLI_END,
};

/* DISK|IMAGE...: their partitions are checked, nothing is traced. */
static int take_paths(void *at, int argc, char **argv, const char *cmd)
{
	struct check_opts *o = at;

	if (optind == argc)
		return 0;
	if (o->ndev || o->npid || o->comm || o->duration_ns)
		return usage_err(cmd, "DISK or IMAGE arguments check partitions only: -d, -p, -c and -D trace, and take none");
	o->paths = argv + optind;
	o->npaths = argc - optind;
	return 0;
}

CLI_COMMAND_MAIN(check) = {
	.name = "check",
	.usage =
		"usage: iolens check [OPTIONS]                    trace, report at Ctrl-C\n"
		"       iolens check [--align BYTES] DISK|IMAGE...   their partitions only\n",
	.about =
		"Validates an I/O pattern while a workload runs, with a verdict and a fix:\n"
		"  misaligned writes   write requests whose start or length is not a multiple\n"
		"                      of the disk's physical block (or --align), by process\n"
		"                      and file;\n"
		"  page-cache RMW      reads the page cache issues inside a buffered write to a\n"
		"                      page it does not hold (partial-page writes), with the\n"
		"                      offsets and sizes of the writes that caused them;\n"
		"  small direct I/O    O_DIRECT writes below the physical sector of a 512e disk\n"
		"                      (logical 512, physical 4096): the disk does the RMW;\n"
		"  refused direct I/O  O_DIRECT writes the kernel refused (EINVAL) as not\n"
		"                      aligned to the disk's logical block (4096 on 4Kn);\n"
		"  partitions          starts not on the physical block (or --align), read from\n"
		"                      sysfs or from the partition table itself (libblkid).\n",
	.opts = opts,
	.more =
		"An image file has no physical block: without --align it is judged against\n"
		"4096 bytes, and says so.  Exit 0 when every check passes, 1 when one fails\n"
		"(or on a runtime error), 2 on a usage error.\n"
		"\n"
		"examples:\n"
		"  iolens check -D 30 -p $(pidof postgres)\n"
		"  iolens check --align 64k -d md0 -D 10\n"
		"  iolens check disk.img\n",
	.operands = take_paths,
	.summary = "misaligned writes, page-cache read-modify-write, partition offsets",
	.order = 100,
	.uses = TRACE_USES({ .write_checks = true }),
};
