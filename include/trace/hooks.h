/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooks of the BPF objects.  Which hooks an object has is read from
 * the object itself (its programs' sections, from the skeleton's ELF);
 * what each is for, and what is lost without it, is one table of notes in
 * hooks.c.  doctor reads both, so its list is the objects' own, and a hook
 * without a note is an error there and in the tests.
 */
#ifndef IOLENS_TRACE_HOOKS_H
#define IOLENS_TRACE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include "trace/agg_trace.h"

struct trace_hook {
	const char *object;	/* "block", "agg", "tasks", "check" */
	const char *point;	/* "block_rq_issue"; "syscalls": its every
				 * sys_enter_* and sys_exit_* event; "task":
				 * the task iterator */
	bool required;		/* the object does not load without it */
	const char *since;	/* the Linux release that added it; NULL:
				 * older than any iolens runs on */
	const char *without;	/* what is lost, or what takes its place */
};

/* What a command loads in the kernel, as it starts with no option; a
 * second use may follow with options that take more (serve --labels).
 * Each command's row (cli/commands.h) lists its uses: doctor judges the
 * command by the objects they load and makes their maps to say the
 * kernel memory each takes. */
struct trace_use {
	const char *options;		/* NULL, or the options of this use */
	struct agg_trace_opts agg;	/* the aggregation; kinds 0: none */
	int rings;			/* block tracer's rings; -1: one per
					 * consumer; 0: no block tracer */
	unsigned int block_flags;	/* its block_trace_start() flags */
	bool tasks;			/* the task scan */
	bool write_checks;		/* check's write and syscall hooks */
};

/* A command's uses, ending with an empty one. */
#define TRACE_USES(...) ((const struct trace_use[]){ __VA_ARGS__, { 0 } })

/* Whether `u` is the empty one that ends a list. */
bool trace_use_end(const struct trace_use *u);

struct trace_object {
	const char *name;
	/* Whether a use loads it. */
	bool (*used_by)(const struct trace_use *u);
	/* What takes its place when it does not load; NULL: the command
	 * cannot run. */
	const char *fallback;
	const void *(*elf)(size_t *sz);	/* its skeleton's object file */
};

extern const struct trace_object trace_objects[];
extern const int trace_nobjects;

/* Calls fn once for every attach point of `o`'s programs: its kind
 * ("tp_btf", "raw_tp", "tracepoint", "iter"; the first seen for a point
 * with several), its point, and its note (NULL: none, a bug).  0, or
 * -errno if the object cannot be read. */
int trace_hooks_of(const struct trace_object *o,
		   void (*fn)(const char *kind, const char *point,
			      const struct trace_hook *note, void *ctx),
		   void *ctx);

#endif
