// SPDX-License-Identifier: GPL-2.0
/*
 * iolens doctor: every hook of every BPF object, as the objects themselves
 * list them (trace/hooks.c), present or not on this kernel; and from them
 * what each command can do.
 */
#include <stdio.h>
#include <string.h>
#include "doctor/doctor.h"
#include "trace/tracefs.h"
#include "trace/hooks.h"

struct object_state {
	struct doctor *d;
	const struct trace_object *o;
	bool loads;		/* every required hook is there */
	bool unreadable;	/* a required hook unknown: tracefs unreadable */
	char lost[192];		/* optional hooks missing */
};

/* A hook here, not here, or not known: the syscall events when tracefs
 * cannot be read (not mounted and not mountable, or mode 0700 to a user
 * with only CAP_BPF and CAP_PERFMON) are neither. */
enum presence { ABSENT, HERE, UNKNOWN };

static bool btf_has(const struct btf *btf, const char *name, __u32 kind)
{
	return btf && btf__find_by_name_kind(btf, name, kind) > 0;
}

/* Whether the kernel has the point: a tracepoint by its BTF typedef (what
 * tp_btf attaches to; raw_tp needs the same tracepoint), the syscall
 * events by tracefs, the task iterator by its BTF function. */
static enum presence present(const struct doctor *d, const char *kind,
			     const char *point, const char **how)
{
	char name[80];

	if (!strcmp(kind, "iter")) {
		snprintf(name, sizeof(name), "bpf_iter_%s", point);
		*how = "BTF";
		return btf_has(d->btf, name, BTF_KIND_FUNC);
	}
	if (!strcmp(point, "syscalls")) {
		*how = "tracefs";
		if (!d->tracefs)
			return d->tracefs_why[0] ? UNKNOWN : ABSENT;
		snprintf(name, sizeof(name), "%s/events/syscalls/sys_enter_write",
			 tracefs_dir());
		return doctor_path_exists(name);
	}
	snprintf(name, sizeof(name), "btf_trace_%s", point);
	*how = "BTF";
	return btf_has(d->btf, name, BTF_KIND_TYPEDEF);
}

static void append(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", n ? "; " : "", s);
}

static void one_hook(const char *kind, const char *point,
		     const struct trace_hook *note, void *ctx)
{
	struct object_state *os = ctx;
	struct doctor *d = os->d;
	char check[32];
	const char *how;
	enum presence pr = present(d, kind, point, &how);
	bool here = pr == HERE;
	bool required = !note || note->required;
	enum status st = here ? ST_OK : pr == UNKNOWN ? ST_NOPRIV :
			 required ? ST_MISSING : ST_FALLBACK;

	snprintf(check, sizeof(check), "%s:%s", os->o->name, point);
	if (pr == UNKNOWN) {
		char what[128];

		/* Not absent: it cannot attach as this user, and the user
		 * may change that. */
		snprintf(what, sizeof(what),
			 "cannot attach as this user: run as root, or let it read %s",
			 tracefs_dir());
		if (required) {
			os->loads = false;
			os->unreadable = true;
		} else if (note) {
			append(os->lost, sizeof(os->lost), note->without);
		}
		doctor_row(d, check, st, what, "%s unknown: tracefs %s", kind,
			   d->tracefs_why);
		return;
	}
	if (!here && required) {
		os->loads = false;
		if (!strcmp(os->o->name, "block"))
			doctor_block(d, note ? note->point : point);
	} else if (!here) {
		append(os->lost, sizeof(os->lost), note->without);
	}
	doctor_row(d, check, st,
		   !note ? "no note for this hook in trace/hooks.c: a bug" :
		   here ? (required ? "needed" : "used") :
		   required ? "the object does not load" : note->without,
		   "%s %s in %s%s%s%s", kind, here ? "present" : "absent", how,
		   note && note->since ? " (Linux " : "",
		   note && note->since ? note->since : "",
		   note && note->since ? "+)" : "");
}

/* `cmd` uses `o`: the worst of what each object it loads allows. */
static void judge(struct doctor *d, const char *cmd, const struct object_state *os)
{
	struct command_verdict *v = NULL;
	enum verdict now;

	for (int i = 0; i < d->ncmds && !v; i++)
		if (!strcmp(d->cmds[i].name, cmd))
			v = &d->cmds[i];
	if (!v) {
		if (d->ncmds == MAX_COMMANDS)
			return;
		v = &d->cmds[d->ncmds++];
		snprintf(v->name, sizeof(v->name), "%s", cmd);
	}
	if (!os->loads && !os->o->fallback) {
		now = V_CANNOT;
		append(v->why, sizeof(v->why), os->unreadable ?
		       "a hook it needs is not known: tracefs could not be read" :
		       "a hook it needs is absent");
	} else if (!os->loads) {
		now = V_DEGRADED;
		append(v->why, sizeof(v->why), os->o->fallback);
	} else {
		now = os->lost[0] ? V_DEGRADED : V_OK;
		if (os->lost[0])
			append(v->why, sizeof(v->why), os->lost);
	}
	if (now > v->verdict)
		v->verdict = now;
}

static bool loads(const struct trace_use *uses, const struct trace_object *o)
{
	for (const struct trace_use *u = uses; u && !trace_use_end(u); u++)
		if (o->used_by(u))
			return true;
	return false;
}

#define MAX_OBJECTS 8

void doctor_check_hooks(struct doctor *d, const struct doctor_opts *opts)
{
	struct object_state os[MAX_OBJECTS];
	int n = trace_nobjects < MAX_OBJECTS ? trace_nobjects : MAX_OBJECTS;

	for (int i = 0; i < n; i++) {
		os[i] = (struct object_state){ .d = d, .o = &trace_objects[i], .loads = true };
		if (trace_hooks_of(os[i].o, one_hook, &os[i])) {
			doctor_row(d, os[i].o->name, ST_MISSING, "cannot read the object",
				   "built into iolens");
			os[i].loads = false;
		}
	}
	/* A verdict for each command that loads BPF, from its own row. */
	for (int c = 0; c < opts->ncmds; c++)
		for (int i = 0; i < n; i++)
			if (loads(opts->cmds[c].uses, os[i].o))
				judge(d, opts->cmds[c].name, &os[i]);
}
