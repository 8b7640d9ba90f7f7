// SPDX-License-Identifier: GPL-2.0
/*
 * `iolens serve`'s exposition: a snapshot of its state (serve/metrics.c)
 * in the Prometheus text format or OpenMetrics, family by family.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "lib/container.h"
#include "lib/sanitize.h"
#include "lib/vec.h"
#include "serve/metrics_state.h"
#include "trace/agg_trace.h"
#include "trace/reqflags.h"

struct out {
	FILE *f;
	bool om;
	bool oom;	/* a part could not be formatted: no page at all */
};

/* # HELP and # TYPE of a family.  OpenMetrics names a counter's family
 * without its _total suffix, the text format names the sample. */
static void family(struct out *o, const char *name, const char *type,
		   const char *help)
{
	size_t len = strlen(name);

	if (o->om && !strcmp(type, "counter") && len > 6 &&
	    !strcmp(name + len - 6, "_total"))
		len -= 6;
	fprintf(o->f, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, name, help,
		(int)len, name, type);
}

static void seconds(FILE *f, __u64 ns)
{
	fprintf(f, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
		(unsigned long long)(ns % 1000000000ULL));
}

/* A label value: comm and cgroup are their owners' choice, device names
 * the kernel's; all escaped and made valid UTF-8 by lib/sanitize, as
 * the exposition format and promtool want. */
static void label(FILE *f, const char *s)
{
	san_fputs_label(f, s);
}

/* ,NAME="VALUE" when the value is not empty. */
static void label_opt(FILE *f, const char *name, const char *v, size_t n)
{
	char buf[256];

	if (!n)
		return;
	snprintf(buf, sizeof(buf), "%.*s", (int)n, v);
	fprintf(f, ",%s=\"", name);
	label(f, buf);
	fputc('"', f);
}

/* Who cgroup `path` is (lib/container.c): unit="nginx.service"; or
 * runtime, container_id and container_name; for a Kubernetes pod pod_uid,
 * and namespace, pod and container where the kubelet's files name them;
 * owner_uid alone in a subtree delegated to that user. */
static void identity_labels(FILE *f, const char *path)
{
	struct ctr_ident ci;
	const char *n = NULL;
	size_t l;

	if (*path != '/' && !strchr(path, ':'))
		return;		/* "(other)", "(gone)", "(unknown)" */
	ctr_ident_of(path, &ci);
	if (ci.kind == CTR_NONE)
		return;
	/* A user's subtree: its unit and container names are the user's
	 * claim, and a sum by unit or container_id must not take them in. */
	if (ci.delegated) {
		char uid[16];

		snprintf(uid, sizeof(uid), "%u", (unsigned int)ci.owner);
		label_opt(f, "owner_uid", uid, strlen(uid));
		return;
	}
	if (ci.kind == CTR_SERVICE || ci.kind == CTR_SCOPE) {
		label_opt(f, "unit", ci.name, strlen(ci.name));
		return;
	}
	if (ci.kind != CTR_POD) {
		label_opt(f, "runtime", ctr_kind_name(ci.kind), strlen(ctr_kind_name(ci.kind)));
		label_opt(f, "container_id", ci.id, strlen(ci.id));
		label_opt(f, "container_name", ci.name, strlen(ci.name));
		return;
	}
	label_opt(f, "container_id", ci.id, strlen(ci.id));
	label_opt(f, "pod_uid", ci.pod, strlen(ci.pod));
	/* "namespace/pod/container" */
	for (int i = 0, at = 0; i < 3 && ci.name[at]; i++) {
		static const char *const k[] = { "namespace", "pod", "container" };

		n = ci.name + at;
		l = strcspn(n, "/");
		label_opt(f, k[i], n, l);
		at += l + (n[l] == '/');
	}
}

static void labels(FILE *f, const struct mdev *d, int g)
{
	fputs("{device=\"", f);
	label(f, d->name);
	if (g >= 0)
		fprintf(f, "\",op=\"%s", agg_group_names[g]);
	fputc('"', f);
}

static void counter_op(struct out *o, const struct metrics *m, const char *name,
		       const char *help, size_t off)
{
	family(o, name, "counter", help);
	for (int i = 0; i < m->ndev; i++)
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			fputs(name, o->f);
			labels(o->f, &m->devs[i], g);
			fprintf(o->f, "} %llu\n", (unsigned long long)
				*(const __u64 *)((const char *)&m->devs[i].op[g] + off));
		}
}

/* A counter by device only: the field at `off` of struct mop, summed over
 * the op groups (each is counted in its own). */
static void device_counter(struct out *o, const struct metrics *m,
			   const char *name, const char *help, size_t off)
{
	family(o, name, "counter", help);
	for (int i = 0; i < m->ndev; i++) {
		__u64 v = 0;

		for (int g = 0; g < IOLENS_SG_NR; g++)
			v += *(const __u64 *)((const char *)&m->devs[i].op[g] + off);
		fputs(name, o->f);
		labels(o->f, &m->devs[i], -1);
		fprintf(o->f, "} %llu\n", (unsigned long long)v);
	}
}

/* A counter of seconds by device: the ns field at `off` of struct mdev. */
static void device_seconds(struct out *o, const struct metrics *m,
			   const char *name, const char *help, size_t off)
{
	family(o, name, "counter", help);
	for (int i = 0; i < m->ndev; i++) {
		fputs(name, o->f);
		labels(o->f, &m->devs[i], -1);
		fputs("} ", o->f);
		seconds(o->f, *(const __u64 *)((const char *)&m->devs[i] + off));
		fputc('\n', o->f);
	}
}

static void histogram(struct out *o, const struct metrics *m, int k,
		      const char *name, const char *help)
{
	bool dur = k != MH_QD;
	int n = dur ? METRICS_DUR_BOUNDS : METRICS_QD_BOUNDS;

	family(o, name, "histogram", help);
	for (int i = 0; i < m->ndev; i++) {
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			const struct mhist *h = &m->devs[i].op[g].h[k];
			__u64 cum = 0;

			for (int b = 0; b <= n; b++) {
				cum += h->b[b];
				fprintf(o->f, "%s_bucket", name);
				labels(o->f, &m->devs[i], g);
				if (b == n)
					fputs(",le=\"+Inf\"", o->f);
				else if (dur)
					fprintf(o->f, ",le=\"%.12g\"",
						metrics_dur_bounds_ns[b] / 1e9);
				else
					fprintf(o->f, ",le=\"%llu%s\"", (unsigned long long)
						metrics_qd_bounds[b], o->om ? ".0" : "");
				fprintf(o->f, "} %llu\n", (unsigned long long)cum);
			}
			fprintf(o->f, "%s_count", name);
			labels(o->f, &m->devs[i], g);
			fprintf(o->f, "} %llu\n", (unsigned long long)cum);
			/* Never a made-up sum: without it, no _sum line. */
			if (h->sum_unknown)
				continue;
			fprintf(o->f, "%s_sum", name);
			labels(o->f, &m->devs[i], g);
			fputs("} ", o->f);
			if (dur)
				seconds(o->f, h->sum);
			else
				fprintf(o->f, "%llu", (unsigned long long)h->sum);
			fputc('\n', o->f);
		}
	}
}

/* One sample of a label family: label sets summed by their values. */
struct lrow {
	int dev;		/* index in m->devs */
	int sg;
	const char *value;
	__u64 v;
};

static int lrow_cmp(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->sg != y->sg)
		return x->sg < y->sg ? -1 : 1;
	return strcmp(x->value, y->value);
}

/*
 * iolens_{cgroup,comm}_{requests,bytes}_total: the kernel's label sets
 * summed by the one label (comm and cgroup may both be kept), and per
 * device and op the sets beyond the cap as "(other)", so that a family
 * always adds up to iolens_requests_total or _bytes_total.  Sets whose
 * cgroup is not yet named are left out until it is.
 */
static void label_family(struct out *o, const struct metrics *m, bool cgroup,
			 bool bytes)
{
	const char *lname = cgroup ? "cgroup" : "comm";
	struct lrow *r = malloc((m->nlab + m->ndev * IOLENS_SG_NR + 1) * sizeof(*r));
	char name[64];
	int n = 0;
	bool found;

	if (!r) {
		o->oom = true;
		return;
	}
	for (int i = 0; i < m->nlab; i++) {
		const struct mlabel *l = &m->lab[i];

		if (l->pending)
			continue;
		r[n].dev = metrics_dev_pos(m, l->dev, &found);
		if (!found)
			continue;
		r[n].sg = l->key.sg;
		r[n].value = cgroup ? l->cgroup : l->comm;
		r[n++].v = bytes ? l->n.bytes : l->n.ios;
	}
	for (int i = 0; i < m->ndev; i++)
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			const struct mop *op = &m->devs[i].op[g];

			if (!(bytes ? op->other_bytes : op->other_ios))
				continue;
			r[n].dev = i;
			r[n].sg = g;
			r[n].value = "(other)";
			r[n++].v = bytes ? op->other_bytes : op->other_ios;
		}
	vec_sort(r, n, sizeof(*r), lrow_cmp);
	snprintf(name, sizeof(name), "iolens_%s_%s_total", lname,
		 bytes ? "bytes" : "requests");
	family(o, name, "counter", cgroup ?
	       (bytes ? "Bytes completed, by the cgroup the block layer charged the request to."
		      : "Requests completed, by the cgroup the block layer charged them to.") :
	       (bytes ? "Bytes completed, by the command name of the task that submitted the request."
		      : "Requests completed, by the command name of the task that submitted them."));
	for (int i = 0; i < n; i++) {
		__u64 v = r[i].v;

		while (i + 1 < n && !lrow_cmp(&r[i], &r[i + 1]))
			v += r[++i].v;
		fputs(name, o->f);
		labels(o->f, &m->devs[r[i].dev], r[i].sg);
		fprintf(o->f, ",%s=\"", lname);
		label(o->f, r[i].value);
		fputc('"', o->f);
		if (cgroup)
			identity_labels(o->f, r[i].value);
		fprintf(o->f, "} %llu\n", (unsigned long long)v);
	}
	free(r);
}

static int mfail_cmp(const void *a, const void *b)
{
	const struct mfail *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->sg != y->sg)
		return x->sg - y->sg;
	return x->status - y->status;
}

/*
 * iolens_requests_failed_total{device,op,status}: of iolens_requests_total,
 * those that ended with an error, by the kernel's status.  Failures the
 * table of them had no room for are in iolens_events_lost_total's
 * reason="no_fail_key".
 */
static void failed_family(struct out *o, struct metrics *m)
{
	bool found;

	family(o, "iolens_requests_failed_total", "counter",
	       "Requests completed with an error, by the kernel's status (blk_status_t: IOERR, TIMEOUT, MEDIUM, ...).");
	vec_sort(m->fails, m->nfails, sizeof(*m->fails), mfail_cmp);
	for (int k = 0; k < m->nfails; k++) {
		const struct mfail *e = &m->fails[k];
		int i = metrics_dev_pos(m, e->dev, &found);

		if (!found)
			continue;
		fputs("iolens_requests_failed_total", o->f);
		labels(o->f, &m->devs[i], e->sg);
		fprintf(o->f, ",status=\"%s\"} %llu\n", blk_status_name(e->status),
			(unsigned long long)e->ios);
	}
}

/* A gauge by device: the field at `off` of struct mdev. */
static void device_gauge(struct out *o, const struct metrics *m,
			 const char *name, const char *help, size_t off)
{
	family(o, name, "gauge", help);
	for (int i = 0; i < m->ndev; i++) {
		fputs(name, o->f);
		labels(o->f, &m->devs[i], -1);
		fprintf(o->f, "} %llu\n", (unsigned long long)
			*(const __u64 *)((const char *)&m->devs[i] + off));
	}
}

/* The counters by device (and op), a row each: by op the field at `off`
 * of struct mop, by device alone that field summed over the ops, or the
 * seconds of the ns field at `off` of struct mdev; and gauges of struct
 * mdev. */
static const struct counter_family {
	const char *name;
	const char *help;
	void (*write)(struct out *o, const struct metrics *m, const char *name,
		      const char *help, size_t off);
	size_t off;
	bool rmw;		/* only where RMW reads are counted */
	bool detail;		/* only with serve --detail */
	const char *lean_help;	/* without --detail, if it counts less */
} counters[] = {
/* A row names its field f by the struct its writer reads (and as the
 * __u64 it reads), so that a writer cannot be given another's offset. */
#define U64_AT(T, f) (offsetof(T, f) + 0 * sizeof(char[		\
	__builtin_types_compatible_p(__typeof__(((T *)0)->f), __u64) ? 1 : -1]))
#define ROW(n, h, fn, at, ...) \
	{ .name = (n), .help = (h), .write = (fn), .off = (at), __VA_ARGS__ }
#define BY_OP(n, f, h)		ROW(n, h, counter_op, U64_AT(struct mop, f))
#define BY_DEVICE(n, f, h, ...)	ROW(n, h, device_counter, U64_AT(struct mop, f), __VA_ARGS__)
#define SECONDS(n, f, h, ...)	ROW(n, h, device_seconds, U64_AT(struct mdev, f), __VA_ARGS__)
#define GAUGE(n, f, h)		ROW(n, h, device_gauge, U64_AT(struct mdev, f))
	BY_OP("iolens_requests_total", ios,
	      "Block requests completed, as /proc/diskstats counts them."),
	BY_OP("iolens_bytes_total", bytes, "Bytes completed."),
	BY_OP("iolens_merged_total", merges, "Bios merged into requests that were issued."),
	BY_OP("iolens_requeues_total", requeues,
	      "Requests the driver sent back to the queue (busy device, no resources), to be issued again."),
	ROW("iolens_timeouts_total",
	    "Requests requeued or completed at or past their deadline: the block layer's timeout handler ran for them, or was due.",
	    counter_op, U64_AT(struct mop, timeouts),
	    .lean_help = "Requests requeued at or past their deadline: the block layer's timeout handler ran for them (with serve --detail, also those completed past it)."),
	BY_DEVICE("iolens_misaligned_writes_total", misaligned,
		  "Writes whose start or size is not a multiple of the physical block.",
		  .detail = true),
	BY_DEVICE("iolens_rmw_reads_total", rmw_reads,
		  "Data reads started inside a buffered write to a file: the page cache reading a page the write covers only partly (read-modify-write).",
		  .rmw = true),
	BY_DEVICE("iolens_rmw_read_bytes_total", rmw_bytes,
		  "Bytes of those reads, as started.", .rmw = true),
	SECONDS("iolens_busy_seconds_total", busy_ns,
		"Time with a request issued and not completed (the kernel's io_ticks over an interval where a completion was missed, and on bio-based devices).",
		.detail = true),
	SECONDS("iolens_io_time_seconds_total", io_ticks_ns,
		"The kernel's io_ticks: time with a request in the block layer, in whole jiffies (iostat's %util, node_exporter's node_disk_io_time_seconds_total)."),
	SECONDS("iolens_io_time_weighted_seconds_total", weighted_ns,
		"The kernel's weighted time: each request's time in the block layer, summed (its rate is iostat's aqu-sz, node_exporter's node_disk_io_time_weighted_seconds_total)."),
	GAUGE("iolens_inflight_requests", inflight_now,
	      "Requests in the block layer now, as the kernel counts them (diskstats' in flight; node_exporter's node_disk_io_now)."),
#undef GAUGE
#undef SECONDS
#undef BY_DEVICE
#undef BY_OP
#undef ROW
#undef U64_AT
};

/* The histograms exported, by MH_*. */
static const struct {
	const char *name;
	const char *help;
} histograms[MH_NR] = {
	[MH_TOTAL] = { "iolens_request_duration_seconds",
		       "Time from the request's start (the kernel's accounting) to its end, as iostat's await." },
	[MH_QUEUE] = { "iolens_queue_duration_seconds",
		       "Time from the request's start to its issue to the driver." },
	[MH_DEVICE] = { "iolens_device_duration_seconds",
			"Time from the request's issue to the driver to its end." },
	[MH_QD] = { "iolens_queue_depth",
		    "Requests in flight on the device at each issue, this one included." },
};

/* What only per-request work in the kernel gives (serve --detail). */
static void detail_families(struct out *o, const struct metrics *m)
{
	FILE *f = o->f;

	family(o, "iolens_completions_missed_total", "counter",
	       "Completions the kernel did not run iolens's hook for.");
	for (int i = 0; i < m->ndev; i++) {
		fputs("iolens_completions_missed_total", f);
		labels(f, &m->devs[i], -1);
		fprintf(f, "} %llu\n", (unsigned long long)m->devs[i].missed);
	}
	family(o, "iolens_inflight_oldest_seconds", "gauge",
	       "Age of the oldest request issued to the device and not completed (a lower bound, within 0.27 s; 0: none; requests issued before iolens started are not seen).");
	for (int i = 0; i < m->ndev; i++) {
		if (m->devs[i].bio_based)
			continue;
		fputs("iolens_inflight_oldest_seconds", f);
		labels(f, &m->devs[i], -1);
		fputs("} ", f);
		seconds(f, m->devs[i].oldest_ns);
		fputc('\n', f);
	}
}

static void format(struct out *o, struct metrics *m)
{
	struct rusage ru;
	FILE *f = o->f;

	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		const struct counter_family *c = &counters[i];

		if ((!c->rmw || m->rmw) && (!c->detail || m->detail))
			c->write(o, m, c->name, !m->detail && c->lean_help ?
				 c->lean_help : c->help, c->off);
	}
	failed_family(o, m);
	for (int k = 0; k < MH_NR; k++)
		if (k != MH_QD || m->detail)
			histogram(o, m, k, histograms[k].name, histograms[k].help);
	if (m->detail)
		detail_families(o, m);
	if (m->labels & IOLENS_STAT_LABEL_CGROUP) {
		label_family(o, m, true, false);
		label_family(o, m, true, true);
	}
	if (m->labels & IOLENS_STAT_LABEL_COMM) {
		label_family(o, m, false, false);
		label_family(o, m, false, true);
	}
	family(o, "iolens_events_lost_total", "counter",
	       "Events the in-kernel aggregation could not keep, by reason.");
	fprintf(f, "iolens_events_lost_total{reason=\"no_slot\"} %llu\n",
		(unsigned long long)m->lost.no_slot);
	fprintf(f, "iolens_events_lost_total{reason=\"no_stamp\"} %llu\n",
		(unsigned long long)m->lost.no_stamp);
	fprintf(f, "iolens_events_lost_total{reason=\"no_fail_key\"} %llu\n",
		(unsigned long long)m->lost.no_fail_key);
	fprintf(f, "iolens_events_lost_total{reason=\"no_fail_mark\"} %llu\n",
		(unsigned long long)m->lost.no_fail_mark);
	if (m->labels & IOLENS_STAT_LABEL_COMM)
		fprintf(f, "iolens_events_lost_total{reason=\"no_owner\"} %llu\n",
			(unsigned long long)m->lost.no_owner);

	family(o, "iolens_process_cpu_seconds_total", "counter",
	       "User and system CPU time of the iolens process.");
	if (!getrusage(RUSAGE_SELF, &ru)) {
		__u64 us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ULL +
			   ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;

		fputs("iolens_process_cpu_seconds_total ", f);
		seconds(f, us * 1000);
		fputc('\n', f);
	}
	/* Unknown when the kernel does not count runs: no family at all. */
	if (m->bpf_known) {
		family(o, "iolens_bpf_run_seconds_total", "counter",
		       "Time iolens's BPF programs ran in the kernel.");
		fputs("iolens_bpf_run_seconds_total ", f);
		seconds(f, m->bpf_ns);
		fputc('\n', f);
		family(o, "iolens_bpf_runs_total", "counter",
		       "Runs of iolens's BPF programs.");
		fprintf(f, "iolens_bpf_runs_total %llu\n",
			(unsigned long long)m->bpf_runs);
	}
	if (o->om)
		fputs("# EOF\n", f);
}

char *metrics_format(struct metrics *m, bool openmetrics, size_t *len)
{
	struct out o = { .om = openmetrics };
	char *buf = NULL;
	bool bad;

	o.f = open_memstream(&buf, len);
	if (!o.f)
		return NULL;
	pthread_mutex_lock(&m->lock);
	format(&o, m);
	pthread_mutex_unlock(&m->lock);
	bad = ferror(o.f) || o.oom;
	if (fclose(o.f) || bad) {
		free(buf);
		return NULL;
	}
	return buf;
}
