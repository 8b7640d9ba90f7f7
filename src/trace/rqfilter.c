// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/devices.h"
#include "trace/reqflags.h"
#include "trace/rqfilter.h"

/* A -d as parsed once (per request, a printf was most of snoop's filter
 * cost): "MAJ:MIN" as a number; one naming a partition here, its disk and
 * sectors. */
struct part_range {
	const char *spec;
	bool is_num;
	__u32 num;
	bool part;
	__u32 disk;
	__u64 start, len;	/* sectors */
};

static const struct part_range *part_range(const char *spec)
{
	/* Per thread: snoop's consumers filter in parallel. */
	static __thread struct part_range cache[RQFILTER_MAX];
	static __thread int n;
	struct part_range *r;
	struct dev_info info;
	unsigned int ma, mi;
	char extra;
	__u64 v;
	__u32 dev;

	for (int i = 0; i < n; i++)
		if (cache[i].spec == spec)
			return &cache[i];
	if (n == RQFILTER_MAX)
		return NULL;
	r = &cache[n++];
	r->spec = spec;
	r->is_num = sscanf(spec, "%u:%u%c", &ma, &mi, &extra) == 2;
	r->num = r->is_num ? kdev_make(ma, mi) : 0;
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
	const struct part_range *p = part_range(spec);

	if (!p)
		return false;
	if (p->is_num ? rq->dev == p->num :
	    devname && !strcmp(spec + (strncmp(spec, "/dev/", 5) ? 0 : 5), devname))
		return true;
	return p->part && rq->dev == p->disk && rq->sector >= p->start &&
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
	if (f->errors && rq->ts_complete && rq->status)
		return true;
	if (f->min_lat_ns) {
		/* Total latency if the start was seen, else device time; a
		 * request missing either end cannot be shown to be slow. */
		__u64 from = rq->ts_start ? rq->ts_start : rq->ts_issue;

		return from && rq->ts_complete && rq->ts_complete - from >= f->min_lat_ns;
	}
	return !f->errors;
}
