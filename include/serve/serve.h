/* SPDX-License-Identifier: GPL-2.0 */
/* iolens serve: a Prometheus/OpenMetrics exporter of the in-kernel
 * aggregation (trace/agg_trace.h). */
#ifndef IOLENS_SERVE_H
#define IOLENS_SERVE_H

#include <sys/socket.h>
#include "bpf/agg.h"

struct serve_opts {
	const char *listen;		/* as given, for messages */
	struct sockaddr_storage addr;	/* where to listen */
	socklen_t addrlen;
	unsigned int devs[IOLENS_MAX_DEV_FILTER];
	int ndev;			/* 0: every disk */
	/* Also what only per-request work in the kernel gives (its cost:
	 * docs/performance.md). */
	bool detail;
	unsigned int labels;		/* IOLENS_STAT_LABEL_* */
	long max_label_sets;
};

/* Serves until SIGTERM, SIGINT or SIGHUP; the exit code. */
int serve_run(const struct serve_opts *o);

#endif
