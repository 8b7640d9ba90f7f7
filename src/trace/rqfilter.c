// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/devices.h"
#include "trace/reqflags.h"
#include "trace/rqfilter.h"

/* A -d naming a partition here: its disk and sectors, looked up once. */
struct part_range {
	const char *spec;
	bool part;
	__u32 disk;
	__u64 start, len;	/* sectors */
};

static const struct part_range *part_range(const char *spec)
{
	static struct part_range cache[RQFILTER_MAX];
	static int n;
	struct part_range *r;
	struct dev_info info;
	__u64 v;
	__u32 dev;

	for (int i = 0; i < n; i++)
		if (cache[i].spec == spec)
			return &cache[i];
	if (n == RQFILTER_MAX)
		return NULL;
	r = &cache[n++];
	r->spec = spec;
	if (dev_parse(spec, &dev) || dev_lookup(dev, &info) || info.disk == dev ||
	    dev_sysfs_u64s(dev, "start", &r->start, 1) ||
	    dev_sysfs_u64s(dev, "size", &v, 1))
		return r;
	r->part = true;
	r->disk = info.disk;
	r->len = v;
	return r;
}

/* Requests are the whole disk's, their sectors remapped from the
 * partition's before any hook sees them: a partition's are those of its
 * disk within its sectors. */
static bool dev_matches(const char *spec, const struct iolens_rq *rq,
			const char *devname)
{
	const struct part_range *p;
	char num[24];

	if (!strncmp(spec, "/dev/", 5))
		spec += 5;
	snprintf(num, sizeof(num), "%u:%u", kdev_major(rq->dev), kdev_minor(rq->dev));
	if (!strcmp(spec, num) || (devname && !strcmp(spec, devname)))
		return true;
	p = part_range(spec);
	return p && p->part && rq->dev == p->disk && rq->sector >= p->start &&
	       rq->sector < p->start + p->len;
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
