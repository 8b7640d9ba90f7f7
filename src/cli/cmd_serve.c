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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include "lib/clock.h"
#include "cli/commands.h"
#include "cli/filters.h"
#include "trace/block_trace.h"	/* mono_ns() */
#include "serve/httpd.h"
#include "lib/log.h"
#include "serve/metrics.h"
#include "trace/agg_trace.h"

#define CMD "serve"
#define DEFAULT_LISTEN "127.0.0.1:9633"
#define INTERVAL_NS 1000000000ULL
#define MAX_PROGS 8
#define DEFAULT_LABEL_SETS 1000

#define STR(x) #x
#define XSTR(x) STR(x)

enum { OPT_LISTEN = CLI_LONG, OPT_LABELS, OPT_MAX_SETS };

/* What parse_labels() takes: a list of these. */
static const char *label_choices(void)
{
	return "comm cgroup,";
}

static const struct cli_opt opts[] = {
	CLI_OPT(OPT_LISTEN, "listen", "ADDR:PORT", "where to listen (default " DEFAULT_LISTEN ", loopback\nonly); [ADDR]:PORT for IPv6, 0.0.0.0:PORT for all"),
	CLI_OPT_DEV,
	CLI_OPT_OF(OPT_LABELS, "labels", "LIST", label_choices, "also export requests and bytes by comm (the submitting\ntask's command name) and/or cgroup (the one the block\nlayer charges the request to): comm, cgroup or both"),
	CLI_OPT(OPT_MAX_SETS, "max-label-sets", "N", "at most N label sets (device, op, comm, cgroup) in the\nkernel (default " XSTR(DEFAULT_LABEL_SETS) "); the I/O of any beyond goes to\ncomm=\"(other)\" / cgroup=\"(other)\""),
	CLI_END,
};

const struct cli_cmd serve_cli = {
	.name = CMD,
	.usage =
		"usage: iolens serve [--listen ADDR:PORT] [-d DEV]... [--labels comm,cgroup]\n"
		"                    [--max-label-sets N]\n",
	.about =
		"Exports block I/O metrics for Prometheus: /metrics in the Prometheus text\n"
		"format, or OpenMetrics when the scraper asks for it; / links to it;\n"
		"/healthz answers ok while the collector reads the kernel every second.\n"
		"Counters count from serve's start and never reset.\n",
	.opts = opts,
	.more =
		"metrics (labels device= the whole disk, op= read|write|discard|flush):\n"
		"  iolens_requests_total, iolens_bytes_total, iolens_merged_total    by op\n"
		"  iolens_misaligned_writes_total, iolens_rmw_reads_total,\n"
		"  iolens_rmw_read_bytes_total, iolens_busy_seconds_total,\n"
		"  iolens_completions_missed_total                                    by device\n"
		"  iolens_request_duration_seconds, iolens_queue_duration_seconds,\n"
		"  iolens_device_duration_seconds      histograms, le = 1us..10s, 1-2.5-5,\n"
		"                                      each taken down to a bucket edge\n"
		"  iolens_queue_depth                  histogram of requests in flight at issue\n"
		"  iolens_cgroup_requests_total, iolens_cgroup_bytes_total,\n"
		"  iolens_comm_requests_total, iolens_comm_bytes_total    with --labels; a\n"
		"                      cgroup is its path (cgroup2) or CONTROLLER:/path (v1)\n"
		"  iolens_events_lost_total{reason}, iolens_process_cpu_seconds_total,\n"
		"  iolens_bpf_run_seconds_total, iolens_bpf_runs_total (only where the\n"
		"  kernel counts BPF run time: needs CAP_SYS_ADMIN or the sysctl\n"
		"  kernel.bpf_stats_enabled=1)\n"
		"\n"
		"SIGTERM and SIGINT stop it (exit 0); SIGHUP is ignored (nothing to reload).\n"
		"Exit 2 for a bad option, 1 if it cannot listen or trace.\n"
		"\n"
		"examples:\n"
		"  iolens serve\n"
		"  iolens serve --listen 0.0.0.0:9633 -d nvme0n1\n"
		"  iolens serve --labels cgroup --max-label-sets 200\n"
		"  curl -s localhost:9633/metrics | grep iolens_requests_total\n",
};

/* "comm", "cgroup" or both, comma-separated, into IOLENS_STAT_LABEL_*
 * bits.  0, or 2 after one line. */
static int parse_labels(const char *s, unsigned int *labels)
{
	*labels = 0;
	for (const char *t = s;; t++) {
		size_t n = strcspn(t, ",");

		if (n == 4 && !strncmp(t, "comm", n))
			*labels |= IOLENS_STAT_LABEL_COMM;
		else if (n == 6 && !strncmp(t, "cgroup", n))
			*labels |= IOLENS_STAT_LABEL_CGROUP;
		else
			return usage_err(CMD, "--labels '%s': want comm, cgroup or comm,cgroup", s);
		t += n;
		if (!*t)
			return 0;
	}
}

/* "A.B.C.D:PORT" or "[IPV6]:PORT", numeric only.  0, or 2 after one line. */
static int parse_listen(const char *s, struct sockaddr_storage *ss,
			socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *h = s, *end;
	size_t hl;
	char *e;
	long port;

	if (*s == '[') {
		h = s + 1;
		end = strchr(h, ']');
		colon = end && end[1] == ':' ? end + 1 : NULL;
	} else {
		colon = strrchr(s, ':');
		end = colon;
	}
	if (!colon || !end)
		return usage_err(CMD, "--listen '%s': want ADDR:PORT, as 127.0.0.1:9633 or [::1]:9633", s);
	hl = end - h;
	errno = 0;
	port = strtol(colon + 1, &e, 10);
	if (!colon[1] || *e || errno || port < 1 || port > 65535)
		return usage_err(CMD, "--listen '%s': the port must be 1 to 65535", s);
	if (hl == 0 || hl >= sizeof(host))
		return usage_err(CMD, "--listen '%s': want a numeric address, as 127.0.0.1 or [::1]", s);
	memcpy(host, h, hl);
	host[hl] = 0;
	memset(ss, 0, sizeof(*ss));
	if (*s == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		*len = sizeof(*a);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) == 1)
			return 0;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		*len = sizeof(*a);
		if (inet_pton(AF_INET, host, &a->sin_addr) == 1)
			return 0;
	}
	return usage_err(CMD, "--listen '%s': '%s' is not a numeric IPv4 address or a [bracketed] IPv6 one", s, host);
}

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
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v == 1;
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
		ts.tv_sec = (next - now) / 1000000000ULL;
		ts.tv_nsec = (next - now) % 1000000000ULL;
		sig = sigtimedwait(sigs, NULL, &ts);
		if (sig == SIGTERM || sig == SIGINT)
			return 0;
		if (sig == SIGHUP && !hup_said) {
			fprintf(stderr, "iolens serve: SIGHUP ignored: there is nothing to reload\n");
			hup_said = true;
		}
	}
}

int cmd_serve(int argc, char **argv)
{
	const char *listen_at = DEFAULT_LISTEN;
	unsigned int devs[IOLENS_MAX_DEV_FILTER];
	struct agg_trace_opts so = { 0 };
	struct sockaddr_storage ss;
	struct agg_trace *st = NULL;
	struct metrics *m = NULL;
	struct httpd *h = NULL;
	struct bpf_cost cost = { .stats_fd = -1 };
	sigset_t sigs, old;
	socklen_t sslen = 0;
	int ndev = 0, opt, fd, ret = 1;
	long max_sets = DEFAULT_LABEL_SETS;
	unsigned int labels = 0;
	struct cli_parser p;
	char *e;

	cli_begin(&p, &serve_cli, argc, argv);
	while ((opt = cli_next(&p)) > 0) {
		switch (opt) {
		case OPT_LISTEN: listen_at = optarg; break;
		case 'd':
			if (cli_disk(CMD, optarg, devs, &ndev))
				return 2;
			break;
		case OPT_LABELS:
			if (parse_labels(optarg, &labels))
				return 2;
			break;
		case OPT_MAX_SETS:
			errno = 0;
			max_sets = strtol(optarg, &e, 10);
			if (!*optarg || *e || errno || max_sets < 1 || max_sets > 1000000)
				return usage_err(CMD, "--max-label-sets '%s': want a count from 1 to 1000000", optarg);
			break;
		}
	}
	if (opt < 0)
		return cli_exit(opt);
	if (cli_no_operands(&p))
		return 2;
	if (parse_listen(listen_at, &ss, &sslen))
		return 2;
	fd = listen_on(listen_at, &ss, sslen);
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

	so.devs = devs;
	so.ndev = ndev;
	so.kinds = AGG_KINDS_SERVE;
	so.rmw = true;
	so.labels = labels;
	so.max_labels = max_sets;
	st = agg_trace_start(CMD, &so);
	m = st ? metrics_new(IOLENS_RMW_COUNTED, labels) : NULL;
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
	fprintf(stderr, "iolens serve: serving http://%s/metrics\n", listen_at);
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
