// SPDX-License-Identifier: GPL-2.0
/*
 * The live progress line of iolens load, fio's:
 *
 *   Jobs: 1 (f=1): [r(1)][45.0%][r=810MiB/s][r=207k IOPS][eta 00m:03s]
 *
 * Where and when fio shows it: on stdout, ended by a carriage return and
 * rewritten about once a second; only when stdout is a terminal
 * (--eta=auto), always (--eta=always) or never (--eta=never), and never
 * when a JSON report goes to stdout, which it would corrupt.  Unlike fio
 * the last line is erased before the report, so that the report reads the
 * same on a terminal as in a file.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/clock.h"
#include "load/job.h"
#include "load/load.h"
#include "load/monitor.h"
#include "load/opts.h"
#include "load/report.h"

struct load_progress {
	FILE *f;
	unsigned int n;
	__u64 t0;			/* the start of the run */
	__u64 last_ns;			/* of the last line's counters */
	__u64 last_bytes[LOAD_DIRS], last_ios[LOAD_DIRS];
	int linelen;			/* widest line so far, to overwrite */
	char *states;			/* one letter a thread */
};

struct load_progress *load_progress_new(const struct load_job_opts *global,
					FILE *out, unsigned int n)
{
	struct load_progress *p;

	if (global->eta == LOAD_ETA_NEVER)
		return NULL;
	if ((global->format & ~LOAD_FMT_NORMAL) && out == stdout)
		return NULL;
	if (global->eta == LOAD_ETA_AUTO && !isatty(STDOUT_FILENO))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->states = calloc(n + 1, 1);
	if (!p->states) {
		free(p);
		return NULL;
	}
	p->f = stdout;
	p->n = n;
	p->t0 = p->last_ns = mono_ns();
	return p;
}

/* fio's letters: R W M sequential, r w m random, / ramp, P waiting behind
 * a stonewall, I setting up, _ done, X error. */
static char state_of(const struct load_thread *t, bool done, __u64 since)
{
	const struct load_job_opts *o = t->o;
	bool rnd = o->rw == LOAD_RW_RANDREAD || o->rw == LOAD_RW_RANDWRITE ||
		   o->rw == LOAD_RW_RANDRW;
	char c;

	if (done)
		return t->st.error ? 'X' : '_';
	if (!since)
		return o->stonewall ? 'P' : o->ramp_ns ? '/' : 'I';
	switch (o->rw) {
	case LOAD_RW_READ:
	case LOAD_RW_RANDREAD:
		c = 'r';
		break;
	case LOAD_RW_WRITE:
	case LOAD_RW_RANDWRITE:
		c = 'w';
		break;
	default:
		c = o->rwmixread == 100 ? 'r' : o->rwmixread == 0 ? 'w' : 'm';
	}
	return rnd ? c : c - 'a' + 'A';
}

/*
 * fio's thread_eta(): seconds left from the share of bytes done, or of
 * the runtime for a time-based job, capped by the runtime.  Before the
 * statistics start: the runtime and the ramp left, or 0 if no runtime.
 */
static long thread_eta(const struct load_thread *t, __u64 since, __u64 now,
		       __u64 t0, __u64 bytes)
{
	const struct load_job_opts *o = t->o;
	__u64 total = o->size / o->bs * o->bs;
	long elapsed, timeout = (long)(o->runtime_ns / 1000000000ULL), eta;
	double perc;

	if (!since) {
		if (!o->runtime_ns)
			return 0;
		eta = timeout;
		if (t0 + o->ramp_ns > now)
			eta += (long)((t0 + o->ramp_ns - now) / 1000000000ULL);
		return eta;
	}
	elapsed = (long)((now - since + 999999999) / 1000000000ULL);
	perc = total ? (double)bytes / total : 0;
	if (perc > 1)
		perc = 1;
	/* Time-based: the share of the runtime, as it goes over the range. */
	if (o->time_based && timeout && (double)elapsed / timeout < perc)
		perc = (double)elapsed / timeout;
	else if (o->time_based && !timeout)
		perc = 0;
	eta = perc > 0 ? (long)(elapsed / perc) - elapsed : timeout;
	if (timeout && eta > timeout - elapsed)
		eta = timeout - elapsed;
	return eta < 0 ? 0 : eta;
}

static void eta_str(char *buf, size_t len, long s)
{
	long d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60;

	if (d)
		snprintf(buf, len, "%02ldd:%02ldh:%02ldm:%02lds", d, h, m, s % 60);
	else if (h)
		snprintf(buf, len, "%02ldh:%02ldm:%02lds", h, m, s % 60);
	else
		snprintf(buf, len, "%02ldm:%02lds", m, s % 60);
}

/* "r(2),_(1)": runs of the same letter, as fio condenses them. */
static int condensed(char *buf, size_t len, const char *s)
{
	int l = 0;

	while (*s && l < (int)len) {
		size_t nr = strspn(s, (char[]){ *s, 0 });

		l += snprintf(buf + l, len - l, "%s%c(%zu)", l ? "," : "", *s, nr);
		s += nr;
	}
	return l;
}

static int rates(char *buf, size_t len, const double *bw, const double *iops)
{
	static const char c[LOAD_DIRS] = { 'r', 'w', 't' };
	char v[32];
	int l = 0, d, k;

	for (k = 0; k < 2; k++) {
		const char *sep = "";

		l += snprintf(buf + l, len - l, "[");
		for (d = 0; d < LOAD_DIRS; d++) {
			if (!bw[d] && !iops[d])
				continue;
			if (k)
				load_num2str(v, sizeof(v), iops[d], 1000, load_iops_units);
			else
				load_num2str(v, sizeof(v), bw[d], 1024, load_bin_units);
			l += snprintf(buf + l, len - l, "%s%c=%s%s", sep, c[d], v,
				      k ? "" : "/s");
			sep = ",";
		}
		l += snprintf(buf + l, len - l, "%s]", k ? " IOPS" : "");
	}
	return l;
}

void load_progress_show(struct load_progress *p, const struct load_thread *th,
			const bool *done, __u64 now)
{
	char line[512], run[256], when[32];
	__u64 bytes[LOAD_DIRS] = {}, ios[LOAD_DIRS] = {};
	double bw[LOAD_DIRS] = {}, iops[LOAD_DIRS] = {}, dt;
	unsigned int running = 0;
	long eta = 0, eta_stone = 0, elapsed;
	bool any_rate = false, all_ramp = true;
	int l;

	for (unsigned int i = 0; i < p->n; i++) {
		const struct load_thread *t = &th[i];
		__u64 since = __atomic_load_n(&t->start_ns, __ATOMIC_ACQUIRE);
		__u64 tb = 0;
		long e;

		p->states[i] = state_of(t, done[i], since);
		if (done[i])
			continue;
		/* fio counts the running and the ramping, not those set up or
		 * waiting behind a stonewall. */
		running += !strchr("PI", p->states[i]);
		for (int d = 0; since && d < LOAD_DIRS; d++) {
			__u64 b = __atomic_load_n(&t->st.dir[d].bytes, __ATOMIC_RELAXED);

			bytes[d] += b;
			ios[d] += __atomic_load_n(&t->st.dir[d].ios, __ATOMIC_RELAXED);
			tb += b;
		}
		all_ramp &= !since;
		e = thread_eta(t, since, now, p->t0, tb);
		/* Jobs behind a stonewall run after the others, as fio adds. */
		if (!since && t->o->stonewall)
			eta_stone += e;
		else if (e > eta)
			eta = e;
	}
	eta += eta_stone;
	/* A job that ended takes its counters along: rates over those
	 * still running, never negative. */
	dt = (now - p->last_ns) / 1e9;
	for (int d = 0; d < LOAD_DIRS; d++) {
		if (dt > 0 && bytes[d] >= p->last_bytes[d] && ios[d] >= p->last_ios[d]) {
			bw[d] = (bytes[d] - p->last_bytes[d]) / dt;
			iops[d] = (ios[d] - p->last_ios[d]) / dt;
		}
		any_rate |= bw[d] || iops[d];
		p->last_bytes[d] = bytes[d];
		p->last_ios[d] = ios[d];
	}
	p->last_ns = now;

	l = snprintf(line, sizeof(line), "Jobs: %u (f=%u)", running, running);
	if (running) {
		condensed(run, sizeof(run), p->states);
		l += snprintf(line + l, sizeof(line) - l, ": [%s]", run);
		elapsed = (long)((now - p->t0 + 999999999) / 1000000000ULL);
		if (all_ramp || (!eta && !any_rate))
			l += snprintf(line + l, sizeof(line) - l, "[-.-%%]");
		else
			l += snprintf(line + l, sizeof(line) - l, "[%.1f%%]",
				      100.0 * elapsed / (elapsed + eta));
		if (any_rate)
			l += rates(line + l, sizeof(line) - l, bw, iops);
		eta_str(when, sizeof(when), eta);
		l += snprintf(line + l, sizeof(line) - l, "[eta %s]", when);
	}
	if (l >= (int)sizeof(line))
		l = sizeof(line) - 1;
	/* Spaces over what a longer line before left on the screen. */
	fprintf(p->f, "%s%*s\r", line, p->linelen > l ? p->linelen - l : 0, "");
	fflush(p->f);
	if (l > p->linelen)
		p->linelen = l;
}

void load_progress_end(struct load_progress *p)
{
	if (!p)
		return;
	/* Each line ends with \r: the cursor is already at its start. */
	if (p->linelen) {
		fprintf(p->f, "%*s\r", p->linelen, "");
		fflush(p->f);
	}
	free(p->states);
	free(p);
}
