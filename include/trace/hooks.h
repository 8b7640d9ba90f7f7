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

struct trace_hook {
	const char *object;	/* "block", "stat", "tasks", "check" */
	const char *point;	/* "block_rq_issue"; "syscalls": its every
				 * sys_enter_* and sys_exit_* event; "task":
				 * the task iterator */
	bool required;		/* the object does not load without it */
	const char *since;	/* the Linux release that added it; NULL:
				 * older than any iolens runs on */
	const char *without;	/* what is lost, or what takes its place */
};

struct trace_object {
	const char *name;
	const char *commands;	/* the commands that load it */
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
