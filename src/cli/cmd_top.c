// SPDX-License-Identifier: GPL-2.0
/*
 * iolens top: per-process I/O at the syscall, page-cache and block level,
 * with the devices on top (src/top/).  This file reads the options.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/commands.h"
#include "cli/filters.h"
#include "cli/optable.h"
#include "lib/log.h"
#include "trace/block_trace.h"
#include "lib/parse.h"
#include "lib/proctree.h"
#include "lib/wrap.h"
#include "top/top.h"

enum { OPT_CGROUP = CLI_LONG, OPT_COLUMNS, OPT_STUCK, OPT_GROUP };

/* The column keys, from the column table. */
static const char *column_choices(void)
{
	static char buf[512];
	size_t n = 0;

	for (int c = 0; c < top_ncols && n < sizeof(buf) - 1; c++)
		n += snprintf(buf + n, sizeof(buf) - 1 - n, "%s%s", c ? " " : "",
			      top_cols[c].key);
	strcat(buf, ",");	/* a list */
	return buf;
}

/* The group views' words, from their table. */
static const char *group_choices(void)
{
	static char buf[64];
	size_t n = 0;

	for (int g = 0; g < TOP_GROUP_NR; g++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", g ? " " : "",
			      top_group_names[g]);
	return buf;
}

static int parse_group(void *at, const char *s, const char *cmd)
{
	struct top_opts *o = at;

	for (int g = 0; g < TOP_GROUP_NR; g++)
		if (!strcmp(s, top_group_names[g])) {
			o->group = g;
			return 0;
		}
	return usage_err(cmd, "bad --group '%s': one of %s", s, group_choices());
}

/* The columns, from their rows: key, title, what it is, and where its
 * value is in -j's objects.  Also the man page's FIELDS (tools/mkman.py). */
static void column_fields(FILE *f)
{
	fprintf(f, "columns (KEY for --columns, TITLE, what it is; -j: its key there):\n");
	for (int c = 0; c < top_ncols; c++) {
		const struct top_column *col = &top_cols[c];
		int at;

		fprintf(f, "  %-10s %-10s ", col->key, col->title);
		at = wrap_words(f, col->help, 24, 24);
		/* "(-j: KEY)" whole on a line: read back by its tests. */
		if (col->json && at + strlen(" (-j: )") + strlen(col->json) <= WRAP_COLUMNS)
			fprintf(f, " (-j: %s)", col->json);
		else if (col->json)
			fprintf(f, "\n%24s(-j: %s)", "", col->json);
		fputc('\n', f);
	}
}

static int add_pid(void *at, const char *arg, const char *cmd)
{
	struct top_opts *o = at;

	if (o->npids == (int)(sizeof(o->pids) / sizeof(o->pids[0])))
		return usage_err(cmd, "at most %zu -p", sizeof(o->pids) / sizeof(o->pids[0]));
	if (parse_pid(arg, &o->pids[o->npids]))
		return usage_err(cmd, "-p needs a process id, not '%s'", arg);
	if (cli_pids_live(cmd, &o->pids[o->npids], 1))
		return 2;
	o->npids++;
	return 0;
}

static int parse_user(void *at, const char *s, const char *cmd)
{
	struct top_opts *o = at;
	struct passwd *pw = getpwnam(s);
	char *end;
	unsigned long v;

	o->by_uid = true;
	if (pw) {
		o->uid = pw->pw_uid;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end)
		return usage_err(cmd, "no user '%s' here", s);
	o->uid = v;
	return 0;
}

static int parse_cgroup(void *at, const char *s, const char *cmd)
{
	struct top_opts *o = at;
	char path[4096];
	struct stat sb;

	/* A cgroup v2 id is the inode number of its directory. */
	snprintf(path, sizeof(path), "%s%s", s[0] == '/' && strncmp(s, "/sys/fs/cgroup", 14) ?
		 "/sys/fs/cgroup" : "", s);
	if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
		return usage_err(cmd, "no cgroup '%s' (a path under /sys/fs/cgroup)", s);
	o->by_cgroup = true;
	o->cgroup = sb.st_ino;
	return 0;
}

/* -j's frames are plain text's, in JSON. */
static int json_batch(void *obj, const char *cmd)
{
	struct top_opts *o = obj;

	(void)cmd;
	o->batch |= o->json;
	return 0;
}

#define OPTS struct top_opts

static const struct cli_opt opts[] = {
	CLI_OPT('b', "batch", NULL, "plain text frames, no terminal control", CLI_BOOL(OPTS, batch)),
	CLI_OPT('j', "json", NULL, "one JSON object per frame (counts over the frame)", CLI_BOOL(OPTS, json)),
	CLI_OPT('n', "iter", "N", "N frames, then exit",
		CLI_COUNT(OPTS, frames, "-n needs a positive whole number, not '%s'")),
	CLI_OPT('d', "delay", "SECS", "time between frames (default 1; 500ms works)",
		CLI_INTERVAL(OPTS, delay_ns)),
	CLI_OPT('o', "only", NULL, "only processes with I/O in the frame", CLI_BOOL(OPTS, only_active)),
	CLI_OPT('t', "threads", NULL, "a row per thread, not per process", CLI_BOOL(OPTS, threads)),
	CLI_OPT('a', "accumulated", NULL, "totals since start instead of rates", CLI_BOOL(OPTS, accumulated)),
	CLI_OPT('N', "names", NULL, "devices by their stable names: /dev/mapper, /dev/md,\nelse /dev/disk/by-id",
		CLI_BOOL(OPTS, names)),
	CLI_OPT('p', "pid", "PID", "only this process and its children; repeatable", CLI_CALL_ALL(add_pid)),
	CLI_OPT('u', "user", "USER", "only this user's processes", CLI_CALL_ALL(parse_user)),
	CLI_OPT('c', "comm", "TEXT", "only commands whose name contains TEXT", CLI_STRING(OPTS, comm)),
	CLI_OPT(OPT_CGROUP, "cgroup", "PATH", "only tasks in this cgroup (v2 path)", CLI_CALL_ALL(parse_cgroup)),
	CLI_OPT_OF(OPT_GROUP, "group", "BY", group_choices,
		   "a row per user, cgroup or container (a systemd unit,\na Docker or Podman container, a Kubernetes pod's\ncontainer) summing its processes; pid: per process\n(the default; key g)",
		   CLI_CALL_ALL(parse_group)),
	CLI_OPT('F', "files", NULL, "the files with the most disk I/O in each frame, with\nthe processes behind them (key F; traces each request\nwhile on)",
		CLI_BOOL(OPTS, files)),
	CLI_OPT(OPT_STUCK, "stuck", "TIME", "a line for a request in flight this long (default 5s;\n0 never)",
		CLI_TIME_OR_0(OPTS, stuck_ns, "bad --stuck '%s': seconds, e.g. 5 or 500ms, or 0")),
	CLI_OPT_OF(OPT_COLUMNS, "columns", "LIST", column_choices, "the process table's columns, in order (pid,user,...;\nsee the list below); else those of toprc (key C)",
		   CLI_STRING(OPTS, columns)),
	CLI_END,
};

CLI_COMMAND_MAIN(top, .delay_ns = 1000000000ULL, .sort = -1, .stuck_ns = 5000000000ULL) = {
	.name = "top",
	.usage = "usage: iolens top [OPTIONS]\n",
	.about =
		"Live I/O per process: disk bytes (as /proc/PID/io), bytes read and\n"
		"written through syscalls on files and on pipes/sockets, the page-cache\n"
		"hit ratio of file reads, fsyncs, and the block requests each process\n"
		"submitted; the disks on top.  Keys: h.\n",
	.opts = opts,
	.fields = column_fields,
	.more =
		"IO> and SWAPIN need kernel.task_delayacct=1.\n"
		"\n"
		"examples:\n"
		"  iolens top\n"
		"  iolens top -b -o -n 5\n"
		"  iolens top --columns pid,io,disk_read,command\n"
		"  iolens top --group container -o\n",
	.finish = json_batch,
	.summary = "live I/O per process: disk, page cache and syscalls, devices on top",
	.order = 10,
	.uses = TRACE_USES({ .agg = { .kinds = AGG_KINDS_TOP, .by_proc = true }, .tasks = true },
			   { .options = "--files", .agg = { .kinds = AGG_KINDS_TOP, .by_proc = true },
			     .tasks = true, .rings = 1, .block_flags = BLOCK_TRACE_FILES }),
};
