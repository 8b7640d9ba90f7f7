// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/filters.h"
#include "lib/cgroups.h"
#include "lib/devices.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "trace/reqflags.h"

static int keep_name(void *at, const char *arg, const char *cmd)
{
	(void)cmd;
	*(const char **)at = arg;
	return 0;
}

static int copy_comm(void *at, const char *arg, const char *cmd)
{
	(void)cmd;
	snprintf(at, IOLENS_COMM_LEN, "%s", arg);
	return 0;
}

static int any_pid(void *at, const char *arg, const char *cmd)
{
	return parse_pid(arg, at) ? usage_err(cmd, "bad pid '%s'", arg) : 0;
}

static int set_cgroup(void *at, const char *arg, const char *cmd)
{
	if (arg[0] != '/')
		return usage_err(cmd, "cgroup '%s' must be a path from the cgroup root, like /system.slice", arg);
	*(const char **)at = arg;
	return 0;
}

int cli_set_words(void *opts, const char *arg, const struct cli_word *words,
		  const char *cmd, const char *opt)
{
	char list[512], bad[LOG_EXCERPT_LEN];
	size_t at = 0;

	for (const char *p = arg; *p;) {
		size_t n = strcspn(p, ",");
		const struct cli_word *w = words;

		while (w->name && (strlen(w->name) != n || strncmp(p, w->name, n)))
			w++;
		if (!w->name)
			break;
		*(bool *)((char *)opts + w->at) = true;
		p += n + (p[n] == ',');
		if (!*p)
			return 0;
	}
	for (const struct cli_word *w = words; w->name && at < sizeof(list); w++)
		at += snprintf(list + at, sizeof(list) - at, "%s (%s), ", w->name, w->what);
	return usage_err(cmd, "bad %s '%s': %sor a list of them: %s,%s", opt,
			 log_excerpt(arg, bad, sizeof(bad)), list,
			 words[0].name, words[1].name ? words[1].name : words[0].name);
}

static int add_ops(void *at, const char *arg, const char *cmd)
{
	unsigned int *ops = at;
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int m = op_parse_mask(tok);

		if (!m) {
			ret = usage_err(cmd, "unknown op '%s': use read, write, flush, discard, secure-erase, write-zeroes, zone (or zone-append, zone-reset, zone-reset-all, zone-open, zone-close, zone-finish), drv, other", tok);
			break;
		}
		*ops |= m;
	}
	free(copy);
	if (!ret && !*ops)
		ret = usage_err(cmd, "-O needs at least one op: read, write, flush, discard, ...");
	return ret;
}

static int set_min_lat(void *at, const char *arg, const char *cmd)
{
	__u64 ns;

	if (parse_duration(arg, 1e3, &ns))
		return usage_err(cmd, "bad latency '%s': use a number of us, or 250us, 2ms, 1.5s", arg);
	*(__u64 *)at = ns;
	return 0;
}

const struct cli_opt cli_rqfilter_opts[] = {
	CLI_OPT_DEV(CLI_LIST(struct rqfilter, dev, ndev, keep_name, "at most %u devices")),
	CLI_OPT('p', "pid", "PID", "only requests submitted by this process; repeatable",
		CLI_LIST(struct rqfilter, pid, npid, any_pid, "at most %u pids")),
	CLI_OPT('c', "comm", "NAME", "only this command name; repeatable",
		CLI_LIST(struct rqfilter, comm, ncomm, copy_comm, "at most %u command names")),
	CLI_OPT('G', "cgroup", "PATH", "only this cgroup and below (submitter's or I/O owner's)",
		CLI_CALL(struct rqfilter, cgroup, set_cgroup)),
	CLI_OPT_OF('O', "op", "OPS", op_names_list, "only these ops: read,write,flush,discard,...",
		   CLI_CALL(struct rqfilter, ops, add_ops)),
	CLI_OPT('m', "min-lat", "TIME", "only requests slower than TIME (us; or 2ms, 1.5s)",
		CLI_CALL(struct rqfilter, min_lat_ns, set_min_lat)),
	CLI_OPT('E', "errors", NULL, "only requests that failed (with -m: or are slow)",
		CLI_BOOL(struct rqfilter, errors)),
	CLI_END,
};

static int set_proc_comm(void *at, const char *arg, const char *cmd)
{
	if (!*arg || strlen(arg) >= IOLENS_COMM_LEN)
		return usage_err(cmd, "--comm takes a command name of 1 to %d characters, not '%s'",
				 IOLENS_COMM_LEN - 1, arg);
	strcpy(at, arg);
	return 0;
}

static int set_proc_cgroup(void *at, const char *arg, const char *cmd)
{
	struct iolens_proc_filter *f = at;

	if (cgroup_v2_id(arg, &f->cgroup_id, &f->cgroup_level))
		return usage_err(cmd, "no cgroup2 '%s' here (a path below the cgroup2 mount)", arg);
	if (!f->cgroup_level)
		f->cgroup_id = 0;	/* the root: everything */
	return 0;
}

const struct cli_opt cli_proc_opts[] = {
	CLI_OPT(CLI_PROC_PID, "pid", "PID", "only requests of this process, its children and\nthreads; repeatable",
		CLI_PIDS(struct iolens_proc_filter, pid, npid)),
	CLI_OPT(CLI_PROC_COMM, "comm", "NAME", "only requests of processes with this command name",
		CLI_CALL(struct iolens_proc_filter, comm, set_proc_comm)),
	CLI_OPT(CLI_PROC_CGROUP, "cgroup", "PATH", "only requests of processes in this cgroup2 and below",
		CLI_CALL_ALL(set_proc_cgroup)),
	CLI_END,
};

int cli_agg_operands(void *a, int argc, char **argv, const char *cmd)
{
	struct agg_cmd_opts *o = a;

	return cli_interval_count(cmd, argc, argv, &o->interval_ns, &o->count);
}

int cli_disk(const char *cmd, const char *s, unsigned int *devs, int *ndev)
{
	struct dev_info info;
	__u32 dev;

	if (*ndev == IOLENS_MAX_DEV_FILTER)
		return usage_err(cmd, "at most %d devices", IOLENS_MAX_DEV_FILTER);
	if (dev_parse(s, &dev) || dev_lookup(dev, &info))
		return usage_err(cmd, "no block device '%s' here", s);
	devs[(*ndev)++] = dev;
	return 0;
}

int cli_pids_live(const char *cmd, const __u32 *pids, int n)
{
	for (int i = 0; i < n; i++)
		if (kill((pid_t)pids[i], 0) && errno == ESRCH)
			return usage_err(cmd, "no process %u", pids[i]);
	return 0;
}

int cli_live_pid(void *at, const char *arg, const char *cmd)
{
	if (parse_pid(arg, at))
		return usage_err(cmd, "--pid takes a process id, not '%s'", arg);
	return cli_pids_live(cmd, at, 1);
}

int cli_interval(const char *cmd, const char *what, const char *arg, __u64 *ns)
{
	char shown[LOG_EXCERPT_LEN];

	if (parse_duration(arg, 1e9, ns) || *ns < CLI_INTERVAL_MIN_NS ||
	    *ns > CLI_INTERVAL_MAX_NS)
		return usage_err(cmd, "%s must be from 10ms to 1 week (seconds, or with a unit: 500ms, 2m), not '%s'",
				 what, log_excerpt(arg, shown, sizeof(shown)));
	return 0;
}

int cli_interval_count(const char *cmd, int argc, char **argv,
		       unsigned long long *interval_ns, unsigned long *count)
{
	__u64 ns;

	if (optind < argc) {
		if (cli_interval(cmd, "interval", argv[optind], &ns))
			return 2;
		*interval_ns = ns;
		optind++;
	}
	if (optind < argc) {
		if (parse_count(argv[optind], count))
			return usage_err(cmd, "count must be a positive whole number, not '%s'",
					 argv[optind]);
		optind++;
	}
	if (optind < argc)
		return usage_err(cmd, "unexpected argument '%s'", argv[optind]);
	return 0;
}
