// SPDX-License-Identifier: GPL-2.0
/*
 * iolens top: per-process I/O at the syscall, page-cache and block level,
 * with the devices on top (src/top/).  This file reads the options.
 */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/opts.h"
#include "lib/proctree.h"
#include "top/top.h"

#define CMD "top"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iolens top [OPTIONS]\n"
		"\n"
		"Live I/O per process: disk bytes (as /proc/PID/io), bytes read and\n"
		"written through syscalls on files and on pipes/sockets, the page-cache\n"
		"hit ratio of file reads, fsyncs, and the block requests each process\n"
		"submitted; the disks on top.  Keys: h.\n"
		"\n"
		"options:\n"
		"  -b, --batch        plain text frames, no terminal control\n"
		"  -j, --json         one JSON object per frame (counts over the frame)\n"
		"  -n, --iter N       N frames, then exit\n"
		"  -d, --delay SECS   time between frames (default 1; 500ms works)\n"
		"  -o, --only         only processes with I/O in the frame\n"
		"  -t, --threads      a row per thread, not per process\n"
		"  -a, --accumulated  totals since start instead of rates\n"
		"  -p, --pid PID      only this process and its children; repeatable\n"
		"  -u, --user USER    only this user's processes\n"
		"  -c, --comm TEXT    only commands whose name contains TEXT\n"
		"      --cgroup PATH  only tasks in this cgroup (v2 path)\n"
		"  -h, --help         this help\n"
		"\n"
		"examples:\n"
		"  iolens top\n"
		"  iolens top -b -o -n 5\n");
}

/* --- options ------------------------------------------------------------ */

static int parse_user(struct top_opts *o, const char *s)
{
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
		return usage_err(CMD, "no user '%s' here", s);
	o->uid = v;
	return 0;
}

static int parse_cgroup(struct top_opts *o, const char *s)
{
	char path[4096];
	struct stat sb;

	/* A cgroup v2 id is the inode number of its directory. */
	snprintf(path, sizeof(path), "%s%s", s[0] == '/' && strncmp(s, "/sys/fs/cgroup", 14) ?
		 "/sys/fs/cgroup" : "", s);
	if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
		return usage_err(CMD, "no cgroup '%s' (a path under /sys/fs/cgroup)", s);
	o->by_cgroup = true;
	o->cgroup = sb.st_ino;
	return 0;
}

static int parse_opts(int argc, char **argv, struct top_opts *o)
{
	enum { OPT_CGROUP = 256 };
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "iter", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "only", no_argument, NULL, 'o' },
		{ "threads", no_argument, NULL, 't' },
		{ "accumulated", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' },
		{ "comm", required_argument, NULL, 'c' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	long long ns;
	char *end;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":bjn:d:otap:u:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o->batch = true; break;
		case 'j': o->json = o->batch = true; break;
		case 'n':
			errno = 0;
			o->frames = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !o->frames || optarg[0] == '-')
				return usage_err(CMD, "-n needs a positive whole number, not '%s'", optarg);
			break;
		case 'd':
			ns = parse_duration_ns(optarg, 1e9);
			if (ns < 10000000)
				return usage_err(CMD, "-d needs a delay of at least 10ms, not '%s'", optarg);
			o->delay_ns = ns;
			break;
		case 'o': o->only_active = true; break;
		case 't': o->threads = true; break;
		case 'a': o->accumulated = true; break;
		case 'p':
			errno = 0;
			if (o->npids == (int)(sizeof(o->pids) / sizeof(o->pids[0])))
				return usage_err(CMD, "at most %zu -p", sizeof(o->pids) / sizeof(o->pids[0]));
			o->pids[o->npids] = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !o->pids[o->npids])
				return usage_err(CMD, "-p needs a process id, not '%s'", optarg);
			o->npids++;
			break;
		case 'u':
			if (parse_user(o, optarg))
				return 2;
			break;
		case 'c': o->comm = optarg; break;
		case OPT_CGROUP:
			if (parse_cgroup(o, optarg))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return opt_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		return usage_err(CMD, "unexpected argument '%s'", argv[optind]);
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = { .delay_ns = 1000000000ULL,
			      .sort = top_col_find("DISK READ") };
	struct top_collector *c = NULL;
	struct top_frame f = {};
	struct proctree tree;
	int roots[16];
	int err = parse_opts(argc, argv, &o), ret = 1;

	if (err)
		return err < 0 ? 0 : err;
	for (int i = 0; i < o.npids; i++)
		roots[i] = (int)o.pids[i];
	proctree_init(&tree, roots, o.npids);
	o.tree = &tree;
	if (top_frame_init(&f)) {
		pr_err("out of memory");
		goto out;
	}
	/* Everything that can fail does so before the terminal is touched. */
	c = top_collect_start(CMD, &o);
	if (!c)
		goto out;
	if (o.batch)
		ret = top_batch_run(&o, &f, c);
	else
		ret = top_tui_run(&o, &f, top_collect, c);
out:
	top_frame_free(&f);
	top_collect_stop(c);
	proctree_free(&tree);
	return ret;
}
