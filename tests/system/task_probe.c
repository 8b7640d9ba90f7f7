// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver for src/task_trace.c (test_tasks.py builds it against the
 * objects of the build under test): no iolens command exposes the raw scan.
 *
 *   task_probe [-s] [-b N]
 *
 * Starts a task trace (-s: with syscall counting) and prints one JSON line
 * {"source": ..., "sys": bool}.  Then, for each line on stdin:
 *
 *   PID      one JSON line: process PID's sums over its threads (io + dead,
 *            sys + sys_dead), its tids, its records' flags, and its
 *            leader's uid, comm, cgroup and start_ns (comm unescaped: the
 *            tests name their processes); and the tids of its threads'
 *            last records (exit records) that came with this scan
 *   all      one JSON line: every tid of the scan, and whether the scan was
 *            oldest first
 *   hist SC  one JSON line: the count of syscall latency histogram SC
 *
 * With -b N it instead times N scans and prints wall and CPU time per scan
 * (user and system), the records of the last one, the RSS after them and
 * the peak RSS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <linux/types.h>
#include "bpf/tasks.h"
#include "lib/log.h"
#include "trace/task_trace.h"

#define IO_WORDS	(sizeof(struct iolens_ioac) / sizeof(__u64))
#define MAX_TIDS	100000

struct sums {
	__u32 pid;
	int n;
	__u32 flags_or, flags_and;
	struct iolens_task_rec leader;
	struct iolens_ioac io;
	struct iolens_sys sys;
	__u32 tids[1024];
	int nexited;
	__u32 exited[1024];
};

struct all {
	int n;
	bool ordered;
	__u64 last_start;
	__u32 tids[MAX_TIDS];
};

static void add_words(__u64 *d, const __u64 *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] += s[i];
}

static void one(const struct iolens_task_rec *r, void *arg)
{
	struct sums *s = arg;

	if (r->tgid != s->pid)
		return;
	/* Not of the scan: the last record of a thread that exited. */
	if (r->flags & IOLENS_TASK_EXITED) {
		if (s->nexited < 1024)
			s->exited[s->nexited++] = r->tid;
		return;
	}
	if (s->n < 1024)
		s->tids[s->n] = r->tid;
	s->n++;
	s->flags_or |= r->flags;
	s->flags_and &= r->flags;
	if (r->tid == r->tgid)
		s->leader = *r;
	add_words((__u64 *)&s->io, (const __u64 *)&r->io, IO_WORDS);
	add_words((__u64 *)&s->io, (const __u64 *)&r->dead, IO_WORDS);
	add_words((__u64 *)&s->sys, (const __u64 *)&r->sys,
		  sizeof(s->sys) / sizeof(__u64));
	add_words((__u64 *)&s->sys, (const __u64 *)&r->sys_dead,
		  sizeof(s->sys) / sizeof(__u64));
}

static void every(const struct iolens_task_rec *r, void *arg)
{
	struct all *a = arg;

	if (r->flags & IOLENS_TASK_EXITED)
		return;
	if (r->start_ns < a->last_start)
		a->ordered = false;
	a->last_start = r->start_ns;
	if (a->n < MAX_TIDS)
		a->tids[a->n++] = r->tid;
}

static void count(const struct iolens_task_rec *r, void *arg)
{
	if (!(r->flags & IOLENS_TASK_EXITED))
		++*(long *)arg;
}

static void print_arr(const char *name, const __u64 *v, int n)
{
	printf("\"%s\":[", name);
	for (int i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)v[i]);
	printf("]");
}

static int report_pid(struct task_trace *tt, __u32 pid)
{
	static const char *const io_names[IO_WORDS] = {
		"rchar", "wchar", "syscr", "syscw", "read_bytes",
		"write_bytes", "cancelled_write_bytes",
	};
	static struct sums s;
	const __u64 *io = (const __u64 *)&s.io;
	int err;

	memset(&s, 0, sizeof(s));
	s.pid = pid;
	s.flags_and = ~0U;
	err = task_trace_scan(tt, one, &s);
	if (err)
		return err;
	printf("{\"pid\":%u,\"threads\":%d,\"flags_or\":%u,\"flags_and\":%u,\"tids\":[",
	       pid, s.n, s.flags_or, s.n ? s.flags_and : 0);
	for (int i = 0; i < s.n && i < 1024; i++)
		printf("%s%u", i ? "," : "", s.tids[i]);
	printf("],\"uid\":%u,\"comm\":\"%s\",\"cgroup\":%llu,\"start_ns\":%llu,\"io\":{",
	       s.leader.uid, s.leader.comm, (unsigned long long)s.leader.cgroup,
	       (unsigned long long)s.leader.start_ns);
	for (size_t i = 0; i < IO_WORDS; i++)
		printf("%s\"%s\":%llu", i ? "," : "", io_names[i],
		       (unsigned long long)io[i]);
	printf("},\"sys\":{");
	print_arr("calls", s.sys.calls, IOLENS_SC_NR);
	putchar(',');
	print_arr("bytes", s.sys.bytes, IOLENS_SC_NR);
	putchar(',');
	print_arr("ns", s.sys.ns, IOLENS_SC_NR);
	printf("},\"exited\":[");
	for (int i = 0; i < s.nexited; i++)
		printf("%s%u", i ? "," : "", s.exited[i]);
	printf("]}\n");
	return 0;
}

static int report_all(struct task_trace *tt)
{
	static struct all a;
	int err;

	memset(&a, 0, sizeof(a));
	a.ordered = true;
	err = task_trace_scan(tt, every, &a);
	if (err)
		return err;
	printf("{\"ordered\":%s,\"tids\":[", a.ordered ? "true" : "false");
	for (int i = 0; i < a.n; i++)
		printf("%s%u", i ? "," : "", a.tids[i]);
	printf("]}\n");
	return 0;
}

static void report_hist(struct task_trace *tt, int sc)
{
	static __u64 h[HIST_BUCKETS];
	__u64 n = 0;

	task_trace_sys_hist(tt, sc, h);
	for (__u32 b = 0; b < HIST_BUCKETS; b++)
		n += h[b];
	printf("{\"hist\":%d,\"count\":%llu}\n", sc, (unsigned long long)n);
}

static double ts(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Resident set now, in KiB (VmRSS). */
static long rss_kb(void)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/self/status", "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strstr(buf, "VmRSS:");
	return p ? strtol(p + 6, NULL, 10) : -1;
}

static double tv(const struct timeval *t)
{
	return t->tv_sec + t->tv_usec / 1e6;
}

static int bench(struct task_trace *tt, int n)
{
	double w0, c0, w, c, u0, s0;
	struct rusage ru;
	long recs = 0;
	int err;

	/* The first scan sizes the buffers; time the steady state. */
	err = task_trace_scan(tt, count, &recs);
	if (err)
		return err;
	getrusage(RUSAGE_SELF, &ru);
	u0 = tv(&ru.ru_utime);
	s0 = tv(&ru.ru_stime);
	w0 = ts(CLOCK_MONOTONIC);
	c0 = ts(CLOCK_PROCESS_CPUTIME_ID);
	for (int i = 0; i < n; i++) {
		recs = 0;
		err = task_trace_scan(tt, count, &recs);
		if (err)
			return err;
	}
	w = ts(CLOCK_MONOTONIC) - w0;
	c = ts(CLOCK_PROCESS_CPUTIME_ID) - c0;
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"source\":\"%s\",\"scans\":%d,\"records\":%ld,\"wall_ms\":%.3f,\"cpu_ms\":%.3f,\"user_ms\":%.3f,\"sys_ms\":%.3f,\"rss_kb\":%ld,\"maxrss_kb\":%ld}\n",
	       task_trace_source(tt), n, recs, w * 1e3 / n, c * 1e3 / n,
	       (tv(&ru.ru_utime) - u0) * 1e3 / n, (tv(&ru.ru_stime) - s0) * 1e3 / n,
	       rss_kb(), ru.ru_maxrss);
	return 0;
}

int main(int argc, char **argv)
{
	struct task_trace_opts o = { 0 };
	struct task_trace *tt;
	char line[64];
	int opt, nbench = 0, err = 0;

	while ((opt = getopt(argc, argv, "sb:v")) != -1) {
		switch (opt) {
		case 's':
			o.syscalls = true;
			break;
		case 'b':
			nbench = atoi(optarg);
			break;
		case 'v':
			log_verbose++;
			break;
		default:
			fprintf(stderr, "usage: task_probe [-s] [-b N] [-v]\n");
			return 2;
		}
	}
	log_setup_libbpf();
	tt = task_trace_start("task_probe", &o);
	if (!tt)
		return 1;
	if (nbench) {
		err = bench(tt, nbench);
		goto out;
	}
	printf("{\"source\":\"%s\",\"sys\":%s}\n", task_trace_source(tt),
	       task_trace_syscalls(tt) ? "true" : "false");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "all", 3))
			err = report_all(tt);
		else if (!strncmp(line, "hist ", 5))
			report_hist(tt, atoi(line + 5));
		else
			err = report_pid(tt, strtoul(line, NULL, 10));
		if (err)
			break;
		fflush(stdout);
	}
out:
	if (err)
		fprintf(stderr, "task_probe: scan: %s\n", strerror(-err));
	task_trace_stop(tt);
	return err ? 1 : 0;
}
