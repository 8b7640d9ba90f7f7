// SPDX-License-Identifier: GPL-2.0
/* iolens serve: its options; the exporter is serve/. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "serve/serve.h"

#define DEFAULT_LISTEN "127.0.0.1:9633"
#define DEFAULT_LABEL_SETS 1000

#define STR(x) #x
#define XSTR(x) STR(x)

enum { OPT_LISTEN = CLI_LONG, OPT_DETAIL, OPT_LABELS, OPT_MAX_SETS };

/* What parse_labels() takes: a list of these. */
static const char *label_choices(void)
{
	return "comm cgroup,";
}

/* "comm", "cgroup" or both, comma-separated, into IOLENS_STAT_LABEL_*
 * bits.  0, or 2 after one line. */
static int parse_labels(void *at, const char *s, const char *cmd)
{
	unsigned int *labels = at;

	*labels = 0;
	for (const char *t = s;; t++) {
		size_t n = strcspn(t, ",");

		if (n == 4 && !strncmp(t, "comm", n))
			*labels |= IOLENS_STAT_LABEL_COMM;
		else if (n == 6 && !strncmp(t, "cgroup", n))
			*labels |= IOLENS_STAT_LABEL_CGROUP;
		else
			return usage_err(cmd, "--labels '%s': want comm, cgroup or comm,cgroup", s);
		t += n;
		if (!*t)
			return 0;
	}
}

/* "A.B.C.D:PORT" or "[IPV6]:PORT", numeric only.  0, or 2 after one line. */
static int parse_listen(const char *cmd, const char *s,
			struct sockaddr_storage *ss, socklen_t *len)
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
		return usage_err(cmd, "--listen '%s': want ADDR:PORT, as 127.0.0.1:9633 or [::1]:9633", s);
	hl = end - h;
	errno = 0;
	port = strtol(colon + 1, &e, 10);
	if (!colon[1] || *e || errno || port < 1 || port > 65535)
		return usage_err(cmd, "--listen '%s': the port must be 1 to 65535", s);
	if (hl == 0 || hl >= sizeof(host))
		return usage_err(cmd, "--listen '%s': want a numeric address, as 127.0.0.1 or [::1]", s);
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
	return usage_err(cmd, "--listen '%s': '%s' is not a numeric IPv4 address or a [bracketed] IPv6 one", s, host);
}

static int parse_max_sets(void *at, const char *arg, const char *cmd)
{
	long *max_sets = at;
	char *e;

	errno = 0;
	*max_sets = strtol(arg, &e, 10);
	if (!*arg || *e || errno || *max_sets < 1 || *max_sets > 1000000)
		return usage_err(cmd, "--max-label-sets '%s': want a count from 1 to 1000000", arg);
	return 0;
}

static int take_listen(void *obj, const char *cmd)
{
	struct serve_opts *o = obj;

	return parse_listen(cmd, o->listen, &o->addr, &o->addrlen);
}

#define OPTS struct serve_opts

static const struct cli_opt opts[] = {
	CLI_OPT(OPT_LISTEN, "listen", "ADDR:PORT", "where to listen (default " DEFAULT_LISTEN ", loopback\nonly); [ADDR]:PORT for IPv6, 0.0.0.0:PORT for all",
		CLI_STRING(OPTS, listen)),
	CLI_OPT_DEV(CLI_DISKS(OPTS, devs, ndev)),
	CLI_OPT(OPT_DETAIL, "detail", NULL, "also count in the kernel, per request, what diskstats\nlacks: queue depth at issue, busy time, misaligned\nwrites, read-modify-write reads, the oldest request in\nflight (several times the default's cost per I/O)",
		CLI_BOOL(OPTS, detail)),
	CLI_OPT_OF(OPT_LABELS, "labels", "LIST", label_choices, "also export requests and bytes by comm (the submitting\ntask's command name) and/or cgroup (the one the block\nlayer charges the request to): comm, cgroup or both",
		   CLI_CALL(OPTS, labels, parse_labels)),
	CLI_OPT(OPT_MAX_SETS, "max-label-sets", "N", "at most N label sets (device, op, comm, cgroup) in the\nkernel (default " XSTR(DEFAULT_LABEL_SETS) "); the I/O of any beyond goes to\ncomm=\"(other)\" / cgroup=\"(other)\"",
		CLI_CALL(OPTS, max_label_sets, parse_max_sets)),
	CLI_END,
};

CLI_COMMAND_MAIN(serve, .listen = DEFAULT_LISTEN, .max_label_sets = DEFAULT_LABEL_SETS) = {
	.name = "serve",
	.usage =
		"usage: iolens serve [--listen ADDR:PORT] [-d DEV]... [--detail]\n"
		"                    [--labels comm,cgroup] [--max-label-sets N]\n",
	.about =
		"Exports block I/O metrics for Prometheus: /metrics in the Prometheus text\n"
		"format, or OpenMetrics when the scraper asks for it; / links to it;\n"
		"/healthz answers ok while the collector reads the kernel every second.\n"
		"Counters count from serve's start and never reset.\n",
	.opts = opts,
	.more =
		"metrics (labels device= the whole disk, op= read|write|discard|flush):\n"
		"  iolens_requests_total, iolens_bytes_total, iolens_merged_total    by op,\n"
		"  iolens_io_time_seconds_total, iolens_io_time_weighted_seconds_total,\n"
		"  iolens_inflight_requests           by device: the kernel's diskstats\n"
		"  iolens_requeues_total, iolens_timeouts_total,\n"
		"  iolens_requests_failed_total{status}                              by op\n"
		"  iolens_request_duration_seconds, iolens_queue_duration_seconds,\n"
		"  iolens_device_duration_seconds      histograms, le = 1us..10s, 1-2.5-5,\n"
		"                                      each taken down to a bucket edge\n"
		"  with --detail: iolens_queue_depth (histogram of requests in flight at\n"
		"  issue), iolens_misaligned_writes_total, iolens_rmw_reads_total,\n"
		"  iolens_rmw_read_bytes_total, iolens_busy_seconds_total,\n"
		"  iolens_completions_missed_total, iolens_inflight_oldest_seconds by device\n"
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
		"  iolens serve --detail\n"
		"  iolens serve --labels cgroup --max-label-sets 200\n"
		"  curl -s localhost:9633/metrics | grep iolens_requests_total\n",
	.finish = take_listen,
	.summary = "export metrics for Prometheus over HTTP (/metrics, OpenMetrics too)",
	.order = 110,
	.uses = TRACE_USES({ .agg = { .kinds = AGG_KINDS_SERVE, .lat = true,
				      .issue_on_demand = true } },
			 { .options = "--detail",
			   .agg = { .kinds = AGG_KINDS_SERVE_DETAIL, .rmw = true } },
			 { .options = "--labels comm,cgroup",
			   .agg = { .kinds = AGG_KINDS_SERVE, .lat = true,
				    .issue_on_demand = true,
				    .max_labels = DEFAULT_LABEL_SETS,
				    .labels = IOLENS_STAT_LABEL_COMM | IOLENS_STAT_LABEL_CGROUP } }),
};
