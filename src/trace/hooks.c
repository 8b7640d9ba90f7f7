// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "trace/block_trace.h"
#include "trace/check_trace.h"
#include "trace/hooks.h"
#include "trace/agg_trace.h"
#include "trace/task_trace.h"

static bool uses_block(const struct trace_use *u)
{
	return u->rings;
}

static bool uses_agg(const struct trace_use *u)
{
	return u->agg.kinds;
}

static bool uses_tasks(const struct trace_use *u)
{
	return u->tasks;
}

static bool uses_check(const struct trace_use *u)
{
	return u->write_checks;
}

bool trace_use_end(const struct trace_use *u)
{
	return !uses_block(u) && !uses_agg(u) && !uses_tasks(u) && !uses_check(u);
}

const struct trace_object trace_objects[] = {
	{ "block", uses_block, NULL, block_trace_elf },
	{ "agg", uses_agg, NULL, agg_trace_elf },
	/* top then reads the tasks from /proc. */
	{ "tasks", uses_tasks, "tasks read from /proc, no syscall level", task_trace_elf },
	{ "check", uses_check, NULL, check_trace_elf },
};

const int trace_nobjects = sizeof(trace_objects) / sizeof(trace_objects[0]);

#define SUBMITTER_AT_ISSUE \
	"taken where the request is issued: the submitter unless a kworker issues it"

static const struct trace_hook notes[] = {
	{ "block", "block_io_start", false, "6.5",
	  "submitter " SUBMITTER_AT_ISSUE " (or inserted; ctx in JSON)" },
	{ "block", "block_rq_insert", false, NULL,
	  "no insert time: queue time from the request's own stamps only" },
	{ "block", "block_rq_issue", true, NULL, NULL },
	{ "block", "block_rq_requeue", false, NULL, "requeues not counted" },
	{ "block", "block_rq_merge", false, NULL, "merges into requests not counted" },
	{ "block", "block_rq_complete", true, NULL, NULL },
	{ "block", "block_bio_queue", true, NULL, NULL },

	{ "agg", "block_io_start", false, "6.5",
	  "submitter, --pid/--comm/--cgroup and RMW reads " SUBMITTER_AT_ISSUE },
	{ "agg", "block_rq_issue", true, NULL, NULL },
	{ "agg", "block_rq_requeue", true, NULL, NULL },
	{ "agg", "block_rq_complete", true, NULL, NULL },
	{ "agg", "block_io_done", false, "6.5",
	  "times end at block_rq_complete, before the bios are ended: await up to a few us shorter than iostat's" },
	{ "agg", "block_bio_queue", true, NULL, NULL },
	{ "agg", "block_bio_complete", true, NULL, NULL },

	{ "tasks", "task", false, NULL, "tasks read from /proc: slower, and no syscall level" },
	{ "tasks", "syscalls", false, NULL,
	  "no syscall level: FILE READ, HIT%, FSYNC, RMW and syscall latency unknown" },
	{ "tasks", "block_io_start", false, "6.5", "RMW reads " SUBMITTER_AT_ISSUE },
	{ "tasks", "block_rq_issue", false, NULL,
	  "before Linux 6.5 (no block_io_start): no RMW reads" },
	{ "tasks", "sched_process_exit", false, NULL,
	  "syscall counts of exited threads lost" },

	{ "check", "syscalls", true, NULL, NULL },
	{ "check", "block_io_start", false, "6.5",
	  "RMW reads and writers " SUBMITTER_AT_ISSUE },
	{ "check", "block_rq_issue", true, NULL, NULL },
};

static const struct trace_hook *note_of(const char *object, const char *point)
{
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		if (!strcmp(notes[i].object, object) && !strcmp(notes[i].point, point))
			return &notes[i];
	return NULL;
}

#define MAX_POINTS 32

int trace_hooks_of(const struct trace_object *o,
		   void (*fn)(const char *kind, const char *point,
			      const struct trace_hook *note, void *ctx),
		   void *ctx)
{
	char seen[MAX_POINTS][48];
	int nseen = 0, i;
	struct bpf_object *obj;
	struct bpf_program *p;
	const void *elf;
	size_t sz;

	elf = o->elf(&sz);
	obj = bpf_object__open_mem(elf, sz, NULL);
	if (!obj)
		return -errno;
	bpf_object__for_each_program(p, obj) {
		const char *sec = bpf_program__section_name(p), *slash;
		char kind[16], point[48];

		slash = strchr(sec, '/');
		if (!slash || slash - sec >= (long)sizeof(kind))
			continue;
		snprintf(kind, sizeof(kind), "%.*s", (int)(slash - sec), sec);
		/* Per-syscall events are one hook: they stand or fall with
		 * the syscall tracepoints and tracefs. */
		if (!strncmp(slash + 1, "syscalls/", 9))
			snprintf(point, sizeof(point), "syscalls");
		else
			snprintf(point, sizeof(point), "%s", slash + 1);
		for (i = 0; i < nseen && strcmp(seen[i], point); i++)
			;
		if (i < nseen || nseen == MAX_POINTS)
			continue;
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", point);
		fn(kind, point, note_of(o->name, point), ctx);
	}
	bpf_object__close(obj);
	return 0;
}
