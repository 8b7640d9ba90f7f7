// SPDX-License-Identifier: GPL-2.0
/* iolens: subcommand table and global options. */
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include "cli/commands.h"
#include "lib/log.h"

static const struct cli_command cmds[] = {
	{ "top",    cmd_top,    &top_cli,    "live I/O per process: disk, page cache and syscalls, devices on top" },
	{ "snoop",  cmd_snoop,  &snoop_cli,  "one line per block request: who, where, how long (iosnoop, biosnoop)" },
	{ "stat",   cmd_stat,   &stat_cli,   "iostat -x from the kernel, with latency percentiles and queue depth" },
	{ "lat",    cmd_lat,    &lat_cli,    "latency, size and queue-depth histograms, per disk, op or process" },
	{ "record", cmd_record, &record_cli, "write every block request to a compressed trace file" },
	{ "report", cmd_report, &report_cli, "a trace file as text, CSV, JSON lines, Perfetto, or a page of charts" },
	{ "load",   cmd_load,   NULL,        "synthetic load with fio's options and output (psync, io_uring, libaio)" },
	{ "bench",  cmd_bench,  &bench_cli,  "run a load and trace it: the application's view beside the device's" },
	{ "attach", cmd_attach, &attach_cli, "follow running processes (a benchmark) and sum up their disk I/O" },
	{ "check",  cmd_check,  &check_cli,  "misaligned writes, page-cache read-modify-write, partition alignment" },
	{ "serve",  cmd_serve,  &serve_cli,  "export metrics for Prometheus over HTTP (/metrics, OpenMetrics too)" },
	{ "doctor", cmd_doctor, &doctor_cli, "what this kernel and this user can do, and what falls back" },
};
#define NCMDS (int)(sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iolens [-v] COMMAND [ARGS]\n"
		"\n"
		"Block I/O observability on eBPF tracepoints.\n"
		"\n"
		"commands:\n");
	for (int i = 0; i < NCMDS; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "  %-10s %s\n", "completion",
		"a completion script for bash, zsh or fish (made from these tables)");
	fprintf(f,
		"\n"
		"global options:\n"
		"  -v, --verbose   show libbpf's log (twice: debug log too)\n"
		"  -h, --help      this help; 'iolens COMMAND --help' for a command\n"
		"  -V, --version   print the version\n"
		"\n"
		"examples:\n"
		"  iolens doctor\n"
		"  iolens snoop -d loop0\n"
		"  iolens record -o trace.iol --duration 10 && iolens report trace.iol\n");
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			log_verbose++;
		} else if (!strcmp(a, "-vv")) {
			log_verbose += 2;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("iolens %s (%s)\n", IOLENS_VERSION, IOLENS_COMMIT);
			return 0;
		} else {
			fprintf(stderr, "iolens: unknown option '%s' (see 'iolens --help')\n", a);
			return 2;
		}
	}
	if (i == argc) {
		usage(stderr);
		return 2;
	}
	/* One thread: stdio need not take a lock per call, which is a good
	 * part of printing a JSON line per request at 200k requests/s. */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	log_setup_libbpf();
	for (int c = 0; c < NCMDS; c++) {
		if (!strcmp(argv[i], cmds[c].name))
			return cmds[c].fn(argc - i, argv + i);
	}
	if (!strcmp(argv[i], "completion"))
		return cmd_completion(argc - i, argv + i, cmds, NCMDS);
	fprintf(stderr, "iolens: unknown command '%s' (see 'iolens --help')\n", argv[i]);
	return 2;
}
