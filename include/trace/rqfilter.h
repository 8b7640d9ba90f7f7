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
};

/* The getopt_long options every request command accepts, and their help. */
#define RQFILTER_OPTS \
	{ "dev", required_argument, NULL, 'd' }, \
	{ "pid", required_argument, NULL, 'p' }, \
	{ "comm", required_argument, NULL, 'c' }, \
	{ "cgroup", required_argument, NULL, 'G' }, \
	{ "op", required_argument, NULL, 'O' }, \
	{ "min-lat", required_argument, NULL, 'm' }
#define RQFILTER_SHORT "d:p:c:G:O:m:"
#define RQFILTER_HELP \
	"  -d, --dev DEV        only this disk (loop0, /dev/loop0 or 7:0); repeatable\n" \
	"  -p, --pid PID        only requests submitted by this process; repeatable\n" \
	"  -c, --comm NAME      only this command name; repeatable\n" \
	"  -G, --cgroup PATH    only this cgroup and below (submitter's or I/O owner's)\n" \
	"  -O, --op OPS         only these ops: read,write,flush,discard,...\n" \
	"  -m, --min-lat TIME   only requests slower than TIME (us; or 2ms, 1.5s)\n"

/* Handles one option of RQFILTER_OPTS: 1 if consumed, 0 if `opt` is not a
 * filter option, 2 after printing a usage error.  Devices are kept as given
 * and matched by name or number, so report can filter a file recorded on
 * another machine. */
int rqfilter_opt(struct rqfilter *f, const char *cmd, int opt, const char *arg);

/* Whether a (normalised) request passes; `devname`, `cgroup` and
 * `io_cgroup` are the resolved names of its disk, submitter cgroup and the
 * cgroup owning the I/O (NULL if unknown).  A cgroup filter matches either,
 * so writeback is found under the cgroup that dirtied the pages. */
bool rqfilter_match(const struct rqfilter *f, const struct iolens_rq *rq,
		    const char *devname, const char *cgroup,
		    const char *io_cgroup);

#endif
