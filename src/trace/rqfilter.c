// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/devices.h"
#include "trace/reqflags.h"
#include "trace/rqfilter.h"

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
