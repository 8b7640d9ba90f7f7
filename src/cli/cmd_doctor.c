// SPDX-License-Identifier: GPL-2.0
/* iolens doctor: what this kernel and this user can do (src/doctor/). */
#include <stdio.h>
#include "cli/commands.h"
#include "cli/optable.h"
#include "doctor/doctor.h"

static const struct cli_opt opts[] = {
	CLI_OPT('j', "json", NULL, "one JSON object: kernel, checks[], summary",
		CLI_BOOL(struct doctor_opts, json)),
	CLI_END,
};

CLI_COMMAND(doctor) = {
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
	.summary = "what this kernel and this user can do, and what falls back",
	.order = 120,
};

static int cmd_doctor(int argc, char **argv)
{
	struct doctor_command dc[32];
	struct doctor_opts o = { .cmds = dc };
	const struct cli_command *cmds;
	int n, rc = cli_parse(&doctor_cli, &o, argc, argv);

	if (rc != CLI_RUN)
		return rc;
	/* doctor judges the commands of the table by what they load. */
	cmds = cli_commands(&n);
	for (int i = 0; i < n && o.ncmds < (int)(sizeof(dc) / sizeof(dc[0])); i++)
		if (cmds[i].cli->uses)
			dc[o.ncmds++] = (struct doctor_command){ cmds[i].cli->name,
								 cmds[i].cli->uses };
	return doctor_run(&o);
}
