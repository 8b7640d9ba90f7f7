// SPDX-License-Identifier: GPL-2.0
/*
 * What the main thread of iolens load does while the jobs run, the part
 * fio gives its helper thread: it sleeps until the next bw/IOPS sample,
 * steady state check or progress line is due, or until a job ends, and
 * does that.  The jobs
 * never wait for it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/clock.h"
#include "load/job.h"
#include "lib/log.h"
#include "load/monitor.h"
#include "load/steady.h"
#include "lib/stop.h"

#define PROGRESS_NS 1000000000ULL

/* One run per process: the jobs' wrapper reaches these without an
 * argument of its own. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ended;
static struct load_thread *threads;
static bool *done;		/* under lock, by index in threads */
static unsigned int nended;	/* under lock */

static void *job_main(void *arg)
{
	struct load_thread *t = arg;

	load_thread_run(t);
	pthread_mutex_lock(&lock);
	done[t - threads] = true;
	nended++;
	pthread_cond_signal(&ended);
	pthread_mutex_unlock(&lock);
	return NULL;
}

unsigned int load_monitor_start(struct load_thread *th, unsigned int n)
{
	pthread_condattr_t ca;
	unsigned int i;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ended, &ca);
	pthread_condattr_destroy(&ca);
	threads = th;
	nended = 0;
	done = calloc(n ? n : 1, sizeof(*done));
	if (!done) {
		pr_err("out of memory");
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (pthread_create(&th[i].tid, NULL, job_main, &th[i])) {
			pr_err("cannot start a thread: %s", strerror(errno));
			stop_request();
			break;
		}
	}
	return i;
}

void load_monitor_wait(struct load_thread *th, unsigned int n,
		       const struct load_job_opts *global, FILE *out)
{
	struct load_sampler *smp = load_samples_new(th, n);
	struct load_progress *prog = load_progress_new(global, out, n);
	struct load_steady_run *steady = load_steady_new(th, n, global->group_reporting);
	bool *seen = calloc(n ? n : 1, sizeof(*seen));
	__u64 *next = calloc(n ? n : 1, sizeof(*next));
	__u64 now = mono_ns(), next_prog = now + PROGRESS_NS, wake;
	struct timespec until;
	bool all = false;

	if (!smp || !seen || !next) {
		pr_err("out of memory: no bw and IOPS samples");
		load_samples_store(smp);
		smp = NULL;
	}
	while (smp && done && !all) {
		pthread_mutex_lock(&lock);
		memcpy(seen, done, n * sizeof(*seen));
		pthread_mutex_unlock(&lock);
		now = mono_ns();
		wake = prog ? next_prog : now + 60 * PROGRESS_NS;
		for (unsigned int i = 0; i < n; i++) {
			if (seen[i])
				continue;	/* its last, partial interval is dropped */
			if (now >= next[i])
				next[i] = load_samples_take(smp, i, now);
			if (next[i] < wake)
				wake = next[i];
		}
		if (steady) {
			__u64 next_ss = load_steady_check(steady, seen, now);

			if (next_ss < wake)
				wake = next_ss;
		}
		if (prog && now >= next_prog) {
			load_progress_show(prog, th, seen, now);
			next_prog += PROGRESS_NS;
			if (next_prog <= now)
				next_prog = now + PROGRESS_NS;
			if (next_prog < wake)
				wake = next_prog;
		}
		until = ns_timespec(wake);
		pthread_mutex_lock(&lock);
		if (nended < n)
			pthread_cond_timedwait(&ended, &lock, &until);
		all = nended == n;
		pthread_mutex_unlock(&lock);
	}
	for (unsigned int i = 0; i < n; i++)
		pthread_join(th[i].tid, NULL);
	load_progress_end(prog);
	load_steady_end(steady);
	if (smp)
		load_samples_store(smp);
	free(seen);
	free(next);
	free(done);
	done = NULL;
	threads = NULL;
	pthread_cond_destroy(&ended);
}
