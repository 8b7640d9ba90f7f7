/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What moved over the last minute, a second at a time, and its picture in
 * a few characters: top's GRAPH column and the history of each device.
 */
#ifndef IOLENS_GRAPH_H
#define IOLENS_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define GRAPH_SECS	60

struct graph {
	__u64 last;		/* the latest second written (since start) + 1;
				 * 0: never written */
	float v[GRAPH_SECS];	/* v[s % GRAPH_SECS]: the amount in second s */
};

/* Adds `amount` spread evenly over [t0, t1), in seconds since start. */
void graph_add(struct graph *g, double t0, double t1, double amount);

/* The minute before `now` as `width` points (at most GRAPH_SECS), each the
 * mean of its seconds scaled to the largest point: block characters when
 * `utf8`, else ASCII.  Blank where nothing moved, and the lowest mark where
 * anything did.  buf takes 3 * width + 1 bytes. */
void graph_draw(char *buf, size_t len, const struct graph *g, double now,
		int width, bool utf8);

#endif
