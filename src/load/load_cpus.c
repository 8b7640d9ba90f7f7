// SPDX-License-Identifier: GPL-2.0
/*
 * Where the job threads of iolens load run: fio's cpus_allowed and
 * cpus_allowed_policy, with one difference.  fio's default is "shared"
 * (every job may run on every CPU, where the scheduler puts it); iolens's
 * is that only while one job thread runs at a time, and "split" over the
 * CPUs the process may use when several do: the nth job thread stays on
 * the (n mod count)th of them.
 *
 * Why: several threads left to the scheduler pile up and move (psync QD1,
 * two jobs on two CPUs: 74k IOPS split, fio's unpinned 50k).  A single
 * thread has nothing to spread, and at low queue depth its rate is set by
 * where it runs against the device's worker (loop's kworker, an NVMe
 * queue's interrupt): on one CPU they hand over without idling, on two
 * each waits with its CPU idle, and waking an idle CPU is an interrupt (in
 * a guest at guest_halt_poll_ns=0, a VM exit).  Pinned, the thread cannot
 * follow the worker: tools/bench_load.py counts the CPUs' idle entries per
 * I/O, 0.74 to 0.94 pinned against fio's 0.42 to 0.64 unpinned, at 0.80 to
 * 0.95 of fio's IOPS (on a host of 2026-11; on the one before, pinning
 * had been 20% faster).  Only the job threads are placed; the main
 * thread, which samples and prints, runs where the scheduler likes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "load/cpus.h"
#include "load/engine.h"
#include "load/load.h"

/* "names a CPU this process may not run on (it may: 0-1,4)" */
static const char *allowed_text(const cpu_set_t *set)
{
	static char msg[256];
	const char *sep = "";
	size_t n;
	int lo, hi;

	n = snprintf(msg, sizeof(msg),
		     "names a CPU this process may not run on (it may: ");
	for (lo = 0; lo < CPU_SETSIZE && n < sizeof(msg) - 24; lo = hi + 1) {
		hi = lo;
		if (!CPU_ISSET(lo, set))
			continue;
		while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
			hi++;
		n += snprintf(msg + n, sizeof(msg) - n,
			      lo == hi ? "%s%d" : "%s%d-%d", sep, lo, hi);
		sep = ",";
	}
	snprintf(msg + n, sizeof(msg) - n, ")");
	return msg;
}

int load_cpus_parse(const char *s, cpu_set_t *set, const char **err)
{
	cpu_set_t allowed, both;

	*err = "want a CPU list, e.g. 0-3,6";
	CPU_ZERO(set);
	while (*s) {
		unsigned long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*s))
			return -1;
		lo = hi = strtoul(s, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			hi = strtoul(end + 1, &end, 10);
		}
		if (hi < lo || hi >= CPU_SETSIZE)
			return -1;
		for (; lo <= hi; lo++)
			CPU_SET(lo, set);
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	if (!CPU_COUNT(set))
		return -1;
	/* Refused now, not as an EINVAL in a job thread after the start. */
	if (!sched_getaffinity(0, sizeof(allowed), &allowed)) {
		CPU_AND(&both, &allowed, set);
		if (!CPU_EQUAL(&both, set)) {
			*err = allowed_text(&allowed);
			return -1;
		}
	}
	return 0;
}

int load_cpus_place(const struct load_job_opts *o, int index, int together)
{
	int policy = o->cpus_policy;
	cpu_set_t set = o->cpus, one;
	int k, cpu;

	if (policy == LOAD_CPUS_DEFAULT)
		policy = together > 1 ? LOAD_CPUS_SPLIT : LOAD_CPUS_SHARED;
	if (!CPU_COUNT(&set)) {
		/* The C library's AIO threads take the mask of the job
		 * thread that starts them: pinned by iolens's default they
		 * would all share its one CPU, where fio's run anywhere. */
		if (policy == LOAD_CPUS_SHARED || o->ioengine->own_threads)
			return 0;
		/* A new thread has the mask of the process's main thread,
		 * which nothing here narrows. */
		if (sched_getaffinity(0, sizeof(set), &set))
			return -errno;
	}
	if (policy == LOAD_CPUS_SPLIT) {
		k = index % CPU_COUNT(&set);
		for (cpu = 0; !CPU_ISSET(cpu, &set) || k--; cpu++)
			;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		set = one;
	}
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}
