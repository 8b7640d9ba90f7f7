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

#define CMD "check"

static const struct cli_opt opts[] = {
	CLI_OPT_DEV,
	CLI_OPT('p', "pid", "PID", "only I/O of this process and its children; repeatable"),
	CLI_OPT('c', "comm", "NAME", "only I/O of processes with this command name"),
	CLI_OPT('a', "align", "BYTES", "judge against BYTES (a RAID stripe, a flash page;\nk, m suffixes) instead of each disk's physical block"),
	CLI_OPT('D', "duration", "TIME", "stop after TIME (seconds; or 500ms)"),
	CLI_OPT('t', "threshold", "PCT", "a finding fails above PCT percent of its total\n(default 0: any finding fails)"),
	CLI_OPT('j', "json", NULL, "JSON"),
	CLI_END,
};

static const struct cli_cmd check_cli = {
	.name = CMD,
	.usage =
		"usage: iolens check [OPTIONS]              trace, then report at Ctrl-C or --duration\n"
		"       iolens check [--align BYTES] DISK|IMAGE...   check their partitions only\n",
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
};

static int parse_opts(int argc, char **argv, struct check_opts *o)
{
	struct cli_parser p;
	int opt, rc;
	char *end;
	__u32 pid;
	__u64 v;

	cli_begin(&p, &check_cli, argc, argv);
	while ((opt = cli_next(&p)) > 0) {
		switch (opt) {
		case 'd':
			rc = cli_disk(CMD, optarg, o->devs, &o->ndev);
			if (rc)
				return rc;
			break;
		case 'p':
			if (parse_pid(optarg, &pid))
				return usage_err(CMD, "--pid takes a process id, not '%s'", optarg);
			if (cli_pids_live(CMD, &pid, 1))
				return 2;
			if (o->npid == CHECK_MAX_PIDS)
				return usage_err(CMD, "at most %d --pid", CHECK_MAX_PIDS);
			o->pids[o->npid++] = (int)pid;
			break;
		case 'c':
			o->comm = optarg;
			break;
		case 'a':
			if (parse_size(optarg, &v) || !v || v > (1U << 30) || v % 512)
				return usage_err(CMD, "--align takes a size in bytes, a multiple of 512 (4096, 64k), not '%s'", optarg);
			o->align = (unsigned int)v;
			break;
		case 'D':
			if (parse_duration(optarg, 1e9, &o->duration_ns) ||
			    !o->duration_ns)
				return usage_err(CMD, "--duration takes a time (10, 2.5s, 500ms), not '%s'", optarg);
			break;
		case 't':
			o->threshold = strtod(optarg, &end);
			if (*end || end == optarg || o->threshold < 0 || o->threshold > 100)
				return usage_err(CMD, "--threshold takes a percentage from 0 to 100, not '%s'", optarg);
			break;
		case 'j':
			o->json = true;
			break;
		}
	}
	if (opt < 0)
		return opt == CLI_HELP ? -1 : 2;
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	struct check_opts o = {};
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (optind < argc) {
		if (o.ndev || o.npid || o.comm || o.duration_ns)
			return usage_err(CMD, "DISK or IMAGE arguments check partitions only: -d, -p, -c and -D trace, and take none");
		o.paths = argv + optind;
		o.npaths = argc - optind;
	}
	return check_run(&o);
}

CLI_COMMAND(check) = {
	.name = "check",
	.fn = cmd_check,
	.cli = &check_cli,
	.summary = "misaligned writes, page-cache read-modify-write, partition alignment",
	.order = 100,
	.uses = TRACE_USES({ .write_checks = true }),
};
