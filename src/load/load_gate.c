// SPDX-License-Identifier: GPL-2.0
/*
 * fio's stonewall: a job marked so starts only when every job before it has
 * ended.  The jobs between two stonewalls form a wave that runs at once.
 * All threads are created up front and wait here for their wave, so that
 * whoever watches the threads (sampler, progress line) sees them all from
 * the start, the waiting ones as not yet started.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "load/job.h"
#include "lib/stop.h"

int load_gate_init(struct load_gate *g, const struct load_thread *th,
		   unsigned int n)
{
	g->nwaves = n ? th[n - 1].wave + 1 : 1;
	g->count = calloc(g->nwaves, sizeof(*g->count));
	if (!g->count)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		g->count[th[i].wave]++;
	g->wave = 0;
	g->left = g->count[0];
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	return 0;
}

void load_gate_free(struct load_gate *g)
{
	if (!g->count)
		return;
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
	free(g->count);
	g->count = NULL;
}

bool load_gate_enter(struct load_gate *g, unsigned int wave)
{
	bool go;

	pthread_mutex_lock(&g->lock);
	/* A stop raises only a flag: look at it every 50 ms. */
	while (g->wave < wave && !stop_requested()) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	}
	go = g->wave >= wave;
	pthread_mutex_unlock(&g->lock);
	return go && !stop_requested();
}

void load_gate_leave(struct load_gate *g)
{
	pthread_mutex_lock(&g->lock);
	if (!--g->left) {
		/* Every wave has a thread: the next one starts now. */
		if (++g->wave < g->nwaves)
			g->left = g->count[g->wave];
		pthread_cond_broadcast(&g->cond);
	}
	pthread_mutex_unlock(&g->lock);
}
