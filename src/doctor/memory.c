// SPDX-License-Identifier: GPL-2.0
/*
 * What each command takes in the kernel on this machine: its maps made as
 * the command makes them (sized for these disks and CPUs), no program
 * loaded, and the kernel's own count of their memory.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "doctor/doctor.h"
#include "trace/block_trace.h"
#include "trace/check_trace.h"
#include "trace/fdlimit.h"
#include "trace/hooks.h"
#include "trace/agg_trace.h"
#include "trace/task_trace.h"

/* One row per use of each command, as the command starts with no option
 * (or with the use's options). */
static void use_row(struct doctor *d, const char *cmd, const struct trace_use *u,
		    int ncpu)
{
	char check[32], who[64];
	__u64 bytes = 0;
	bool failed = false;
	long need, limit;

	/* "memory serve labels" for serve's use with --labels comm,cgroup */
	if (u->options) {
		const char *opt = u->options + strspn(u->options, "-");

		snprintf(check, sizeof(check), "memory %s %.*s", cmd,
			 (int)strcspn(opt, " ="), opt);
		snprintf(who, sizeof(who), "%s %s", cmd, u->options);
	} else {
		snprintf(check, sizeof(check), "memory %s", cmd);
		snprintf(who, sizeof(who), "%s", cmd);
	}
	if (!d->may_load) {
		doctor_row(d, check, ST_NOPRIV, "unknown: rerun as root to see", "not made");
		return;
	}
	if (u->agg.kinds) {
		__u64 n = agg_trace_memory(&u->agg);

		bytes += n;
		failed |= !n;
	}
	if (u->tasks)
		bytes += task_trace_memory();
	if (u->rings) {
		__u64 n = block_trace_memory(u->rings < 0 ? block_trace_nconsumers() : u->rings,
					       u->block_flags);

		bytes += n;
		failed |= !n;
	}
	if (u->write_checks) {
		__u64 n = check_trace_memory();

		bytes += n;
		failed |= !n;
	}
	if (failed && fdlimit_refused(&need, &limit))
		doctor_row(d, check, ST_MISSING, "too few open files allowed (ulimit -n): raise the limit",
			   "%s: its maps need %ld open files, the limit is %ld",
			   who, need, limit);
	else if (failed)
		doctor_row(d, check, ST_MISSING, "its maps cannot be made here", "%s", who);
	else
		doctor_row(d, check, ST_OK, who, "%.1f MiB of kernel memory (%d CPUs)",
			   bytes / 1048576.0, ncpu);
}

void doctor_check_memory(struct doctor *d, const struct doctor_opts *o)
{
	int ncpu = libbpf_num_possible_cpus();

	for (int c = 0; c < o->ncmds; c++)
		for (const struct trace_use *u = o->cmds[c].uses; u && !trace_use_end(u); u++)
			use_row(d, o->cmds[c].name, u, ncpu);
}
