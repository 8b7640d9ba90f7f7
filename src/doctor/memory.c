// SPDX-License-Identifier: GPL-2.0
/*
 * What each command takes in the kernel on this machine: its maps made as
 * the command makes them (sized for these disks and CPUs), no program
 * loaded, and the kernel's own count of their memory.
 */
#include <bpf/libbpf.h>
#include "doctor/doctor.h"
#include "trace/block_trace.h"
#include "trace/check_trace.h"
#include "trace/agg_trace.h"
#include "trace/task_trace.h"

/* The commands' map sets, as they start with no option. */
static const struct {
	const char *check;
	const char *who;
	struct agg_trace_opts agg;	/* kinds 0: no aggregation */
	int rings;			/* block tracer's; -1: a ring per consumer */
	bool tasks, write_checks;
} uses[] = {
	{ .check = "memory stat", .who = "stat", .agg = { .kinds = AGG_KINDS_STAT } },
	{ .check = "memory lat", .who = "lat",
	  .agg = { .kinds = AGG_KINDS_LAT, .lat = true } },
	{ .check = "memory top", .who = "top",
	  .agg = { .kinds = AGG_KINDS_TOP, .by_proc = true }, .tasks = true },
	{ .check = "memory serve", .who = "serve",
	  .agg = { .kinds = AGG_KINDS_SERVE, .rmw = true } },
	{ .check = "memory serve labels", .who = "serve --labels comm,cgroup",
	  .agg = { .kinds = AGG_KINDS_SERVE, .rmw = true, .max_labels = 1000,
		    .labels = IOLENS_STAT_LABEL_COMM | IOLENS_STAT_LABEL_CGROUP } },
	{ .check = "memory snoop", .who = "snoop", .rings = -1 },
	{ .check = "memory record", .who = "record, attach, bench", .rings = 1 },
	{ .check = "memory check", .who = "check", .write_checks = true },
};

void doctor_check_memory(struct doctor *d)
{
	int ncpu = libbpf_num_possible_cpus();

	for (size_t i = 0; i < sizeof(uses) / sizeof(uses[0]); i++) {
		__u64 bytes = 0;
		bool failed = false;

		if (!d->may_load) {
			doctor_row(d, uses[i].check, ST_NOPRIV, "unknown: rerun as root to see",
				   "not made");
			continue;
		}
		if (uses[i].agg.kinds) {
			__u64 n = agg_trace_memory(&uses[i].agg);

			bytes += n;
			failed |= !n;
		}
		if (uses[i].tasks)
			bytes += task_trace_memory();
		if (uses[i].rings) {
			__u64 n = block_trace_memory(uses[i].rings < 0 ? block_trace_nconsumers() :
						     uses[i].rings);

			bytes += n;
			failed |= !n;
		}
		if (uses[i].write_checks) {
			__u64 n = check_trace_memory();

			bytes += n;
			failed |= !n;
		}
		if (failed)
			doctor_row(d, uses[i].check, ST_MISSING, "its maps cannot be made here",
				   "%s", uses[i].who);
		else
			doctor_row(d, uses[i].check, ST_OK, uses[i].who,
				   "%.1f MiB of kernel memory (%d CPUs)", bytes / 1048576.0, ncpu);
	}
}
