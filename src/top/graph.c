// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>
#include "top/graph.h"

/* The amount of second s, 0 where it is older than the ring. */
static double at(const struct graph *g, __u64 s)
{
	if (s >= g->last || s + GRAPH_SECS < g->last)
		return 0;
	return g->v[s % GRAPH_SECS];
}

void graph_add(struct graph *g, double t0, double t1, double amount)
{
	__u64 first, end;

	if (t0 < 0)
		t0 = 0;
	if (!(t1 > t0) || !(amount > 0))
		return;
	first = (__u64)t0;
	end = (__u64)ceil(t1);
	/* Seconds after the last one written start from zero (the last
	 * minute of them, what the ring holds). */
	if (end > g->last) {
		for (__u64 s = g->last + GRAPH_SECS < end ? end - GRAPH_SECS : g->last;
		     s < end; s++)
			g->v[s % GRAPH_SECS] = 0;
		g->last = end;
	}
	for (__u64 s = first; s < end; s++) {
		double lo = s > t0 ? s : t0, hi = s + 1 < t1 ? s + 1 : t1;

		if (s + GRAPH_SECS >= g->last)
			g->v[s % GRAPH_SECS] += amount * (hi - lo) / (t1 - t0);
	}
}

void graph_draw(char *buf, size_t len, const struct graph *g, double now,
		int width, bool utf8)
{
	static const char *const blocks[] = {
		"\u2581", "\u2582", "\u2583", "\u2584",
		"\u2585", "\u2586", "\u2587", "\u2588",
	};
	static const char ascii[] = "._-=+*#@";
	double p[GRAPH_SECS], max = 0;
	__u64 end = now > 0 ? (__u64)now : 0;
	size_t o = 0;

	if (width > GRAPH_SECS)
		width = GRAPH_SECS;
	if (width < 1 || len < 3 * (size_t)width + 1) {
		if (len)
			buf[0] = '\0';
		return;
	}
	/* Point i covers the seconds [i * 60 / width, (i + 1) * 60 / width)
	 * of the minute that ends with second `end` (which is still
	 * filling). */
	for (int i = 0; i < width; i++) {
		int a = i * GRAPH_SECS / width, b = (i + 1) * GRAPH_SECS / width;

		p[i] = 0;
		for (int k = a; k < b; k++)
			if (end + k + 1 >= GRAPH_SECS)
				p[i] += g ? at(g, end + k + 1 - GRAPH_SECS) : 0;
		p[i] /= b - a;
		max = p[i] > max ? p[i] : max;
	}
	for (int i = 0; i < width; i++) {
		int lvl = max > 0 ? (int)(p[i] / max * 8) : 0;

		if (lvl > 7)
			lvl = 7;
		if (p[i] <= 0) {
			buf[o++] = ' ';
		} else if (utf8) {
			memcpy(buf + o, blocks[lvl], 3);
			o += 3;
		} else {
			buf[o++] = ascii[lvl];
		}
	}
	buf[o] = '\0';
}
