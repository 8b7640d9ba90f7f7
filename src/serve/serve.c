// SPDX-License-Identifier: GPL-2.0
/*
 * iolens serve: a Prometheus/OpenMetrics exporter of the in-kernel
 * aggregation of `iolens stat`.  The main thread is the collector: it reads
 * the maps every second and adds the interval to the cumulative totals; the
 * HTTP thread only formats snapshots of those.  Signals are taken by
 * sigtimedwait() in the collector's sleep, not by handlers: every other
 * thread has them blocked.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include "lib/clock.h"
#include "lib/filescan.h"
#include "lib/log.h"
#include "serve/httpd.h"
#include "serve/metrics.h"
#include "serve/serve.h"
#include "trace/agg_trace.h"

#define CMD "serve"
#define INTERVAL_NS 1000000000ULL
#define MAX_PROGS 8

/* A listening socket, before anything is loaded: a port already taken is
 * found at once.  The fd, or -1 after one line. */
static int listen_on(const char *what, const struct sockaddr_storage *ss,
		     socklen_t len)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int one = 1;

	if (fd < 0) {
		fprintf(stderr, "iolens serve: socket: %s\n", strerror(errno));
		return -1;
	}
	/* A restart must not wait out the old connections' TIME_WAIT; it
	 * still cannot share a port another socket listens on. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) || listen(fd, 128)) {
		if (errno == EADDRINUSE)
			fprintf(stderr, "iolens serve: cannot listen on %s: the port is already in use\n", what);
		else
			fprintf(stderr, "iolens serve: cannot listen on %s: %s\n", what, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

struct bpf_cost {
	int stats_fd;		/* holds run-time statistics on while open */
	int fds[MAX_PROGS];
	int n;
};

static bool sysctl_stats_on(void)
{
	int v;

	return file_scan("/proc/sys/kernel/bpf_stats_enabled", "%d", &v) == 1 &&
	       v == 1;
}

/* Run-time statistics, only as long as this process holds the fd: nothing
 * is left behind in the sysctl.  The kernel asks CAP_SYS_ADMIN for that;
 * without it they are known only while someone set the sysctl. */
static void bpf_cost_start(struct bpf_cost *c, const struct agg_trace *st)
{
	c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (c->stats_fd < 0 && !sysctl_stats_on())
		fprintf(stderr, "iolens serve: no iolens_bpf_* metrics: cannot enable BPF run-time statistics (%s; needs CAP_SYS_ADMIN, or kernel.bpf_stats_enabled=1)\n",
			strerror(errno));
	c->n = agg_trace_prog_fds(st, c->fds, MAX_PROGS);
}

static void bpf_cost_read(const struct bpf_cost *c, struct metrics *m)
{
	__u64 ns = 0, runs = 0;

	if (c->stats_fd < 0 && !sysctl_stats_on()) {
		metrics_set_bpf(m, false, 0, 0);
		return;
	}
	for (int i = 0; i < c->n; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(c->fds[i], &info, &len)) {
			metrics_set_bpf(m, false, 0, 0);
			return;
		}
		ns += info.run_time_ns;
		runs += info.run_cnt;
	}
	metrics_set_bpf(m, true, ns, runs);
}

static int collect(struct agg_trace *st, struct metrics *m,
		   const struct bpf_cost *c)
{
	int err = agg_trace_read(st);

	err = err ?: metrics_collect(m, st);
	if (err) {
		fprintf(stderr, "iolens serve: cannot read the kernel's counters: %s\n", strerror(-err));
		return 1;
	}
	bpf_cost_read(c, m);
	return 0;
}

/* Collects every second until SIGTERM or SIGINT.  0 or 1. */
static int collector(struct agg_trace *st, struct metrics *m,
		     const struct bpf_cost *c, const sigset_t *sigs)
{
	__u64 next = mono_ns();
	bool hup_said = false;

	for (;;) {
		__u64 now = mono_ns();
		struct timespec ts = { 0, 0 };
		int sig;

		if (next <= now) {
			if (collect(st, m, c))
				return 1;
			next += INTERVAL_NS;
			/* Behind by more than an interval (a stopped VM):
			 * the next read is one interval from now. */
			if (next <= now)
				next = now + INTERVAL_NS;
			continue;
		}
		ts = ns_timespec(next - now);
		sig = sigtimedwait(sigs, NULL, &ts);
		if (sig == SIGTERM || sig == SIGINT)
			return 0;
		if (sig == SIGHUP && !hup_said) {
			fprintf(stderr, "iolens serve: SIGHUP ignored: there is nothing to reload\n");
			hup_said = true;
		}
	}
}

int serve_run(const struct serve_opts *o)
{
	struct agg_trace_opts so = { 0 };
	struct agg_trace *st = NULL;
	struct metrics *m = NULL;
	struct httpd *h = NULL;
	struct bpf_cost cost = { .stats_fd = -1 };
	sigset_t sigs, old;
	int fd, ret = 1;

	fd = listen_on(o->listen, &o->addr, o->addrlen);
	if (fd < 0)
		return 1;

	/* Blocked from here on in every thread made after: only the
	 * collector's sigtimedwait() takes them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	signal(SIGPIPE, SIG_IGN);

	so.devs = o->devs;
	so.ndev = o->ndev;
	/* By default the kernel only times requests, as `iolens lat` does
	 * (one hook at completion, the request's own stamps), and counts
	 * come from diskstats: what the rest costs per request is paid only
	 * with --detail. */
	so.lat = !o->detail;
	so.issue_on_demand = true;
	so.kinds = o->detail ? AGG_KINDS_SERVE_DETAIL : AGG_KINDS_SERVE;
	so.rmw = o->detail;
	so.labels = o->labels;
	so.max_labels = o->max_label_sets;
	st = agg_trace_start(CMD, &so);
	m = st ? metrics_new(o->detail, o->detail && IOLENS_RMW_COUNTED, o->labels,
			     o->devs, o->ndev) : NULL;
	if (!m) {
		close(fd);
		goto out;
	}
	bpf_cost_start(&cost, st);
	/* A first interval, so that the first scrape has every device. */
	if (collect(st, m, &cost)) {
		close(fd);
		goto out;
	}
	h = httpd_start(CMD, fd, m);
	if (!h)
		goto out;
	fprintf(stderr, "iolens serve: serving http://%s/metrics\n", o->listen);
	ret = collector(st, m, &cost, &sigs);
out:
	httpd_stop(h);
	agg_trace_stop(st);
	metrics_free(m);
	if (cost.stats_fd >= 0)
		close(cost.stats_fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}
