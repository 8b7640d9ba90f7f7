// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/devices.h"
#include "lib/log.h"
#include "lib/opts.h"
#include "trace/reqflags.h"
#include "trace/rqfilter.h"

static int parse_ops(struct rqfilter *f, const char *cmd, const char *arg)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = 1;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int op = op_parse(tok);

		if (op < 0) {
			ret = usage_err(cmd, "unknown op '%s': use read, write, flush, discard, secure-erase, write-zeroes, zone, drv", tok);
			break;
		}
		f->ops |= 1U << op;
	}
	free(copy);
	return ret;
}

int rqfilter_opt(struct rqfilter *f, const char *cmd, int opt, const char *arg)
{
	char *end;
	long long ns;
	unsigned long pid;

	switch (opt) {
	case 'd':
		if (f->ndev == RQFILTER_MAX)
			return usage_err(cmd, "at most %d devices", RQFILTER_MAX);
		f->dev[f->ndev++] = arg;
		return 1;
	case 'p':
		pid = strtoul(arg, &end, 10);
		if (!*arg || *end || !pid || pid > 0x7fffffff)
			return usage_err(cmd, "bad pid '%s'", arg);
		if (f->npid == RQFILTER_MAX)
			return usage_err(cmd, "at most %d pids", RQFILTER_MAX);
		f->pid[f->npid++] = pid;
		return 1;
	case 'c':
		if (f->ncomm == RQFILTER_MAX)
			return usage_err(cmd, "at most %d command names", RQFILTER_MAX);
		snprintf(f->comm[f->ncomm++], IOLENS_COMM_LEN, "%s", arg);
		return 1;
	case 'G':
		if (arg[0] != '/')
			return usage_err(cmd, "cgroup '%s' must be a path from the cgroup root, like /system.slice", arg);
		f->cgroup = arg;
		return 1;
	case 'O':
		return parse_ops(f, cmd, arg);
	case 'm':
		ns = parse_duration_ns(arg, 1e3);
		if (ns < 0)
			return usage_err(cmd, "bad latency '%s': use a number of us, or 250us, 2ms, 1.5s", arg);
		f->min_lat_ns = ns;
		return 1;
	}
	return 0;
}

static bool dev_matches(const char *spec, const struct iolens_rq *rq,
			const char *devname)
{
	char num[24];

	if (!strncmp(spec, "/dev/", 5))
		spec += 5;
	snprintf(num, sizeof(num), "%u:%u", kdev_major(rq->dev), kdev_minor(rq->dev));
	return !strcmp(spec, num) || (devname && !strcmp(spec, devname));
}

static bool cgroup_matches(const char *want, const char *have)
{
	size_t n = strlen(want);

	if (!have)
		return false;
	if (n > 1 && want[n - 1] == '/')
		n--;
	return !strncmp(have, want, n) && (have[n] == '\0' || have[n] == '/' || n == 1);
}

bool rqfilter_match(const struct rqfilter *f, const struct iolens_rq *rq,
		    const char *devname, const char *cgroup,
		    const char *io_cgroup)
{
	int i;

	if (f->ndev) {
		for (i = 0; i < f->ndev && !dev_matches(f->dev[i], rq, devname); i++)
			;
		if (i == f->ndev)
			return false;
	}
	if (f->npid) {
		for (i = 0; i < f->npid && f->pid[i] != rq->pid; i++)
			;
		if (i == f->npid)
			return false;
	}
	if (f->ncomm) {
		for (i = 0; i < f->ncomm &&
			    strncmp(f->comm[i], rq->comm, IOLENS_COMM_LEN); i++)
			;
		if (i == f->ncomm)
			return false;
	}
	if (f->cgroup && !cgroup_matches(f->cgroup, cgroup) &&
	    !cgroup_matches(f->cgroup, io_cgroup))
		return false;
	if (f->ops && !(f->ops & (1U << rq->op)))
		return false;
	if (f->min_lat_ns) {
		/* Total latency if the start was seen, else device time; a
		 * request missing either end cannot be shown to be slow. */
		__u64 from = rq->ts_start ? rq->ts_start : rq->ts_issue;

		if (!from || !rq->ts_complete ||
		    rq->ts_complete - from < f->min_lat_ns)
			return false;
	}
	return true;
}
