/* SPDX-License-Identifier: GPL-2.0 */
/* Request filters shared by snoop, record and report. */
#ifndef IOLENS_RQFILTER_H
#define IOLENS_RQFILTER_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/block.h"

#define RQFILTER_MAX 8

struct rqfilter {
	int ndev;
	const char *dev[RQFILTER_MAX];	/* "loop0", "/dev/loop0" or "7:0" */
	int npid;
	__u32 pid[RQFILTER_MAX];
	int ncomm;
	char comm[RQFILTER_MAX][IOLENS_COMM_LEN];
	const char *cgroup;		/* path prefix, NULL = any */
	unsigned int ops;		/* bit per enum iolens_op, 0 = any */
	__u64 min_lat_ns;		/* total (or device) latency, 0 = any */
	/* Only requests that failed; with min_lat_ns, those or slow ones. */
	bool errors;
};

/* Whether a (normalised) request passes; `devname`, `cgroup` and
 * `io_cgroup` are the resolved names of its disk, submitter cgroup and the
 * cgroup owning the I/O (NULL if unknown).  A cgroup filter matches either,
 * so writeback is found under the cgroup that dirtied the pages. */
bool rqfilter_match(const struct rqfilter *f, const struct iolens_rq *rq,
		    const char *devname, const char *cgroup,
		    const char *io_cgroup);

#endif
