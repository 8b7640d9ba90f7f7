// SPDX-License-Identifier: GPL-2.0
/* iolens doctor: what this kernel and this user can do (src/doctor/). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "cli/commands.h"
#include "cli/optable.h"
#include "doctor/doctor.h"
#include "lib/log.h"

static const struct cli_opt opts[] = {
	CLI_OPT('j', "json", NULL, "one JSON object: kernel, checks[], summary"),
	CLI_END,
};

const struct cli_cmd doctor_cli = {
	.name = "doctor",
	.usage = "usage: iolens doctor [-j] [-h]\n",
	.about =
		"What this kernel and this user can do: BTF, privileges, every\n"
		"tracepoint iolens uses, the program types (each loaded for real),\n"
		"the ring buffer and the kernel structures read through BTF; for\n"
		"each, what falls back or stops working when it is missing.\n"
		"Run it as root for the program checks; as another user they show\n"
		"as no-privilege.\n",
	.opts = opts,
	.more =
		"exit status: 0 if snoop/record can run (or could not be probed\n"
		"without privileges), 1 if something they need is missing.\n"
		"\n"
		"examples:\n"
		"  sudo iolens doctor\n"
		"  sudo iolens doctor -j | jq -r '.checks[] | select(.status != \"ok\") | .check'\n",
};

int cmd_doctor(int argc, char **argv)
{
	struct cli_parser p;
	struct doctor *d;
	struct utsname u;
	bool json = false;
	int c, ret;

	cli_begin(&p, &doctor_cli, argc, argv);
	while ((c = cli_next(&p)) > 0)
		json |= c == 'j';
	if (c < 0)
		return cli_exit(c);
	if (cli_no_operands(&p))
		return 2;

	d = calloc(1, sizeof(*d));
	if (!d) {
		pr_err("doctor: out of memory");
		return 1;
	}
	if (uname(&u))
		memset(&u, 0, sizeof(u));

	doctor_check_kernel(d, &u);
	doctor_check_hooks(d);
	doctor_check_programs(d);
	doctor_check_memory(d);
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
