// SPDX-License-Identifier: GPL-2.0
/* iolens: the global options and the dispatch to a command of the table
 * (cli/commands.h). */
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include "cli/commands.h"
#include "lib/log.h"


static void usage(FILE *f)
{
	const struct cli_command *cmds;
	int n;

	cmds = cli_commands(&n);
	fprintf(f,
		"usage: iolens [-v] COMMAND [ARGS]\n"
		"\n"
		"Block I/O observability on eBPF tracepoints.\n"
		"\n"
		"commands:\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].cli->name, cmds[i].cli->summary);
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
	const struct cli_command *cmds;
	int i, n;

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
	cmds = cli_commands(&n);
	for (int c = 0; c < n; c++) {
		if (!strcmp(argv[i], cmds[c].cli->name))
			return cmds[c].fn(argc - i, argv + i);
	}
	if (!strcmp(argv[i], "completion"))
		return cmd_completion(argc - i, argv + i, cmds, n);
	fprintf(stderr, "iolens: unknown command '%s' (see 'iolens --help')\n", argv[i]);
	return 2;
}
