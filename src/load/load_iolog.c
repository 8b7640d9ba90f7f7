// SPDX-License-Identifier: GPL-2.0
/*
 * fio's logs of a job thread: every I/O a line "time, value, direction,
 * block size[, offset], priority" (time in ms since the job's statistics
 * started; latencies in ns, bandwidth in KiB/s, IOPS 1), or with
 * log_avg_msec one line per window and direction: the mean (or with
 * log_max_value the largest) latency, the bandwidth or IOPS over the
 * window, with block size and offset 0, as fio 3.33 writes them.  The
 * priority is the I/O's (load_prio.c): with log_prio its ioprio value in
 * hex, else 1 for the real-time class and 0 for any other; a window's, 0.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/log.h"
#include "lib/outfile.h"
#include "load/engine.h"
#include "load/iolog.h"
#include "load/job.h"
#include "load/load.h"

static const struct {
	const char *suffix;
	size_t prefix;		/* the option naming its file */
} kinds[LOAD_LOG_KINDS] = {
	[LOAD_LOG_LAT] = { "lat", offsetof(struct load_job_opts, lat_log) },
	[LOAD_LOG_SLAT] = { "slat", offsetof(struct load_job_opts, lat_log) },
	[LOAD_LOG_CLAT] = { "clat", offsetof(struct load_job_opts, lat_log) },
	[LOAD_LOG_BW] = { "bw", offsetof(struct load_job_opts, bw_log) },
	[LOAD_LOG_IOPS] = { "iops", offsetof(struct load_job_opts, iops_log) },
};

static const char *prefix_of(const struct load_job_opts *o, int k)
{
	return *(char *const *)((const char *)o + kinds[k].prefix);
}

int load_iolog_open(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;
	char name[4096], shown[128], why[200];

	for (int k = 0; k < LOAD_LOG_KINDS; k++) {
		const char *pre = prefix_of(o, k);
		int fd;

		if (!pre)
			continue;
		/* A bare write_bw_log in a job file: the job's name. */
		if (snprintf(name, sizeof(name), "%s_%s.%d.log", *pre ? pre : o->name,
			     kinds[k].suffix, t->job_index + 1) >= (int)sizeof(name)) {
			pr_err("job '%s': the name of its %s log is too long",
			       log_excerpt(o->name, shown, sizeof(shown)), kinds[k].suffix);
			return 1;
		}
		/* Replaced as fio replaces it, but never through a link
		 * someone planted anywhere on the way, nor into a FIFO
		 * nobody reads. */
		fd = outfile_open(name, O_WRONLY, OUTFILE_TRUNC, NULL, why, sizeof(why));
		t->log[k].f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!t->log[k].f) {
			pr_err("%s: %s", log_excerpt(name, shown, sizeof(shown)),
			       fd < 0 ? why : strerror(errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
		t->logging = true;
	}
	return 0;
}

static void line(struct load_thread *t, int k, __u64 ms, __u64 val, int dir, __u64 bs,
		 __u64 offset, __u16 ioprio)
{
	const struct load_job_opts *o = t->o;
	FILE *f = t->log[k].f;

	fprintf(f, "%llu, %llu, %d, %llu, ", (unsigned long long)ms,
		(unsigned long long)val, dir, (unsigned long long)bs);
	if (o->log_offset)
		fprintf(f, "%llu, ", (unsigned long long)offset);
	if (o->log_prio)
		fprintf(f, "0x%04x\n", ioprio);
	else
		fputs(ioprio >> 13 == 1 ? "1\n" : "0\n", f);
}

/* A latency kind's window, written once it has lasted log_avg_msec (or
 * at the end, `flush`), as fio's: the mean rounded, or the largest. */
static void window_lat(struct load_thread *t, int k, int dir, __u64 ms, bool flush)
{
	struct load_log *l = &t->log[k];
	__u64 avg = t->o->log_avg_ms;

	if (!flush && ms - l->from_ms[dir] < avg)
		return;
	if (l->n[dir])
		line(t, k, ms, t->o->log_max ? l->max[dir]
					     : (__u64)(l->sum[dir] / l->n[dir] + 0.5), dir, 0, 0, 0);
	l->sum[dir] = 0;
	l->n[dir] = l->max[dir] = 0;
	l->from_ms[dir] = ms - ms % avg;
}

static void add_lat(struct load_thread *t, int k, const struct load_io *io, __u64 ms,
		    __u64 ns, __u64 bs)
{
	int dir = io->dir;
	struct load_log *l = &t->log[k];

	if (!l->f)
		return;
	if (!t->o->log_avg_ms) {
		line(t, k, ms, ns, dir, bs, io->offset, io->ioprio);
		return;
	}
	l->sum[dir] += ns;
	l->n[dir]++;
	if (ns > l->max[dir])
		l->max[dir] = ns;
	window_lat(t, k, dir, ms, false);
}

/* Bandwidth (KiB/s) or IOPS over a window of log_avg_msec, from the
 * job's counts, as fio's sampler computes them. */
static void window_rate(struct load_thread *t, int k, int dir, __u64 ms, bool flush)
{
	struct load_log *l = &t->log[k];
	const struct load_dir_stats *d = &t->st.dir[dir];
	__u64 now = k == LOAD_LOG_BW ? d->bytes : d->ios, spent = ms - l->from_ms[dir];

	if (!l->f || (!flush && spent < t->o->log_avg_ms))
		return;
	if (now > l->done[dir] && spent)
		line(t, k, ms, k == LOAD_LOG_BW ? (now - l->done[dir]) * 1000 / spent / 1024
						: (now - l->done[dir]) * 1000 / spent, dir, 0, 0, 0);
	l->done[dir] = now;
	l->from_ms[dir] = ms;
}

void load_iolog_io(struct load_thread *t, const struct load_io *io, long res, __u64 now)
{
	__u64 ms = (now - t->start_ns) / 1000000, clat = now - io->t_issue;
	int dir = io->dir;

	add_lat(t, LOAD_LOG_LAT, io, ms, now - io->t_start, res);
	/* As the statistics: no submission time for a sync engine or a
	 * trim, done at once. */
	if (!t->eng->sync && dir != LOAD_TRIM)
		add_lat(t, LOAD_LOG_SLAT, io, ms, io->t_issue - io->t_start, res);
	add_lat(t, LOAD_LOG_CLAT, io, ms, clat, res);
	if (t->o->log_avg_ms) {
		window_rate(t, LOAD_LOG_BW, dir, ms, false);
		window_rate(t, LOAD_LOG_IOPS, dir, ms, false);
		return;
	}
	if (t->log[LOAD_LOG_BW].f)
		line(t, LOAD_LOG_BW, ms, clat ? (__u64)res * 1000000 / clat : 0, dir, res,
		     io->offset, io->ioprio);
	if (t->log[LOAD_LOG_IOPS].f)
		line(t, LOAD_LOG_IOPS, ms, 1, dir, res, io->offset, io->ioprio);
}

int load_iolog_close(struct load_thread *t, __u64 now)
{
	__u64 ms = t->start_ns ? (now - t->start_ns) / 1000000 : 0;
	int rc = 0;

	for (int k = 0; k < LOAD_LOG_KINDS; k++) {
		struct load_log *l = &t->log[k];

		if (!l->f)
			continue;
		for (int d = 0; t->o->log_avg_ms && d < LOAD_DIRS; d++) {
			if (k == LOAD_LOG_BW || k == LOAD_LOG_IOPS)
				window_rate(t, k, d, ms, true);
			else
				window_lat(t, k, d, ms, true);
		}
		if (ferror(l->f) | fclose(l->f))
			rc = -EIO;
		l->f = NULL;
	}
	return rc;
}
