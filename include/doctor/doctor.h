/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolens doctor: what this kernel and this user can do, as rows of checks.
 * kernel.c checks the kernel, BTF, privileges, tracefs and the kernel
 * structures; hooks.c the hooks of the BPF objects and so each command;
 * programs.c loads a real program of each type; memory.c makes each
 * command's maps; doctor.c keeps the rows and prints them; run.c runs them.
 */
#ifndef IOLENS_DOCTOR_H
#define IOLENS_DOCTOR_H

#include <stdbool.h>
#include <sys/utsname.h>
#include <bpf/btf.h>

#define BTF_PATH	"/sys/kernel/btf/vmlinux"
#define KPROBE_PMU	"/sys/bus/event_source/devices/kprobe"

struct trace_use;

/* A command, and what it loads (trace/hooks.h): doctor's verdicts and
 * memory rows are those of the commands it is given. */
struct doctor_command {
	const char *name;
	const struct trace_use *uses;
};

struct doctor_opts {
	bool json;
	const struct doctor_command *cmds;
	int ncmds;
};

/* Runs every check and prints the rows; 1 if snoop/record cannot run. */
int doctor_run(const struct doctor_opts *o);

enum status { ST_OK, ST_MISSING, ST_FALLBACK, ST_NOPRIV };

struct row {
	char check[32];
	enum status status;
	char detail[80];
	char consequence[128];
};

#define MAX_ROWS	80
/* Disks whose issue-stamp path is shown, at most. */
#define MAX_DISK_ROWS	8
#define MAX_BLOCKERS	8
#define MAX_COMMANDS	32	/* as the command table (cli/commands.c) */

/* What a command can do on this kernel, from the hooks of its objects. */
enum verdict { V_OK, V_DEGRADED, V_CANNOT };

struct command_verdict {
	char name[16];
	enum verdict verdict;
	char why[192];		/* the hooks missing, and what is lost */
};

struct doctor {
	struct btf *btf;		/* vmlinux BTF, NULL if unreadable */
	bool tracefs;			/* mounted and readable by us */
	/* Otherwise why not, said after "tracefs": "could not be read
	 * (Permission denied)"; empty if the kernel has none. */
	char tracefs_why[96];
	bool may_load;			/* privileges to load tracing programs */
	struct row rows[MAX_ROWS];
	int nrows;
	/* What snoop/record need, collected while checking. */
	const char *blockers[MAX_BLOCKERS];
	int nblockers;
	const char *attach;		/* "tp_btf", "raw_tp" or NULL */
	bool unprobed;			/* a needed check lacked privileges */
	struct command_verdict cmds[MAX_COMMANDS];
	int ncmds;
};

extern const char *const doctor_status_name[];

/* Adds a row; the list is fixed, so one past MAX_ROWS goes nowhere. */
struct row *doctor_row(struct doctor *d, const char *check, enum status st,
		       const char *consequence, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Something snoop and record cannot run without. */
void doctor_block(struct doctor *d, const char *why);
/* "ENOENT", or "errno N" for a number without a name. */
const char *doctor_errno(int err);
bool doctor_path_exists(const char *path);

/* kernel.c: kernel, BTF, privileges, tracefs, every tracepoint. */
void doctor_check_kernel(struct doctor *d, const struct utsname *u);
/* hooks.c: every hook of every BPF object, and each command's verdict. */
void doctor_check_hooks(struct doctor *d, const struct doctor_opts *o);
extern const char *const doctor_verdict_name[];

/* kernel.c: the kernel structures read through BTF, the issue stamps. */
void doctor_check_structs(struct doctor *d);
/* programs.c: each program type loaded for real, the ring buffer. */
void doctor_check_programs(struct doctor *d);
/* memory.c: the kernel memory each command's maps take here. */
void doctor_check_memory(struct doctor *d, const struct doctor_opts *o);

void doctor_print_text(const struct doctor *d);
void doctor_print_json(const struct doctor *d, const char *release);

#endif
