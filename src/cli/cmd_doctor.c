// SPDX-License-Identifier: GPL-2.0
/* iolens doctor: what this kernel and this user can do (src/doctor/). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "cli/commands.h"
#include "doctor/doctor.h"
#include "lib/log.h"
#include "lib/opts.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iolens doctor [-j] [-h]\n"
		"\n"
		"What this kernel and this user can do: BTF, privileges, every\n"
		"tracepoint iolens uses, the program types (each loaded for real),\n"
		"the ring buffer and the kernel structures read through BTF; for\n"
		"each, what falls back or stops working when it is missing.\n"
		"Run it as root for the program checks; as another user they show\n"
		"as no-privilege.\n"
		"\n"
		"options:\n"
		"  -j, --json   one JSON object: kernel, checks[], summary\n"
		"  -h, --help   this help\n"
		"\n"
		"exit status: 0 if snoop/record can run (or could not be probed\n"
		"without privileges), 1 if something they need is missing.\n"
		"\n"
		"examples:\n"
		"  sudo iolens doctor\n"
		"  sudo iolens doctor -j | jq -r '.checks[] | select(.status != \"ok\") | .check'\n");
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor *d;
	struct utsname u;
	bool json = false;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return opt_error("doctor", opt, argv);
		}
	}
	if (optind < argc)
		return usage_err("doctor", "unexpected argument '%s'",
				 argv[optind]);

	d = calloc(1, sizeof(*d));
	if (!d) {
		pr_err("doctor: out of memory");
		return 1;
	}
	if (uname(&u))
		memset(&u, 0, sizeof(u));

	doctor_check_kernel(d, &u);
	doctor_check_programs(d);
	doctor_check_structs(d);

	if (json)
		doctor_print_json(d, u.release);
	else
		doctor_print_text(d);

	ret = d->nblockers ? 1 : 0;
	btf__free(d->btf);
	free(d);
	return ret;
}
