// SPDX-License-Identifier: GPL-2.0
/*
 * When a job thread may start and when it must end, as fio orders jobs:
 *   stonewall  a job so marked starts once every job before it has ended;
 *              the jobs between two stonewalls form a wave that runs at once
 *   wait_for   a job starts once every thread of the named job has ended
 *   exitall    a job ending stops others: its group, every running job, or
 *              every job, those not started too (exit_what)
 * All threads are created up front and wait here, so that whoever watches
 * them (sampler, progress line) sees them all from the start, the waiting
 * ones as not yet started.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "load/job.h"
#include "lib/stop.h"

int load_gate_init(struct load_gate *g, struct load_thread *th, unsigned int n)
{
	g->th = th;
	g->n = n;
	g->nwaves = n ? th[n - 1].wave + 1 : 1;
	g->left = calloc(g->nwaves, sizeof(*g->left));
	if (!g->left)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		g->left[th[i].wave]++;
	g->wave = 0;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	return 0;
}

void load_gate_free(struct load_gate *g)
{
	if (!g->left)
		return;
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
	free(g->left);
	g->left = NULL;
}

bool load_thread_terminated(const struct load_thread *t)
{
	return __atomic_load_n(&t->terminate, __ATOMIC_RELAXED);
}

/* Every thread of the job t waits for has ended (g->lock held). */
static bool waitee_done(const struct load_gate *g, const struct load_thread *t)
{
	if (!t->o->wait_for)
		return true;
	for (unsigned int i = 0; i < g->n; i++) {
		const struct load_thread *w = &g->th[i];

		if (w != t && !strcmp(w->o->name, t->o->wait_for) && !w->ended)
			return false;
	}
	return true;
}

bool load_gate_enter(struct load_gate *g, struct load_thread *t)
{
	bool go;

	pthread_mutex_lock(&g->lock);
	/* A stop raises only a flag: look at it every 50 ms. */
	while ((g->wave < t->wave || !waitee_done(g, t)) &&
	       !stop_requested() && !load_thread_terminated(t)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	}
	go = !stop_requested() && !load_thread_terminated(t);
	if (go && g->starting) {
		int e = g->starting(g->ctx, t);

		if (e) {
			t->st.error = e;
			go = false;
		}
	}
	t->running = go;
	pthread_mutex_unlock(&g->lock);
	return go;
}

/* Whom a thread ending with exitall stops (g->lock held). */
static bool stopped_by(const struct load_thread *ender, const struct load_thread *t)
{
	switch (ender->o->exit_what) {
	case LOAD_EXIT_STONEWALL:
		return t->running;
	case LOAD_EXIT_ALL:
		return true;
	default:
		return t->o->groupid == ender->o->groupid;
	}
}

void load_gate_leave(struct load_gate *g, struct load_thread *t)
{
	pthread_mutex_lock(&g->lock);
	t->ended = true;
	t->running = false;
	/* The next wave starts once every thread of this one has ended,
	 * a thread stopped before its turn counting as ended. */
	g->left[t->wave]--;
	while (g->wave + 1 < g->nwaves && !g->left[g->wave])
		g->wave++;
	if (t->o->exitall) {
		for (unsigned int i = 0; i < g->n; i++) {
			if (!g->th[i].ended && stopped_by(t, &g->th[i]))
				__atomic_store_n(&g->th[i].terminate, true, __ATOMIC_RELAXED);
		}
	}
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}
