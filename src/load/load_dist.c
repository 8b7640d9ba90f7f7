// SPDX-License-Identifier: GPL-2.0
/*
 * fio's random_distribution: where a random job's offsets fall when not
 * every block is to be touched alike.
 *   zipf:THETA    block k+1 drawn with weight 1/(k+1)^THETA, by the rejection-
 *                 free method of Gray et al. ("Quickly generating billion-
 *                 record synthetic databases", SIGMOD 1994), as fio draws it
 *   pareto:H      the H of the 80/20 rule: n * u^(log H / log (1 - H))
 *   normal:DEV    fio's gauss: the mean of 12 uniform draws over the range
 *                 (near normal, its deviation a twelfth of the range),
 *                 moved by a uniform deviation of DEV percent of it
 * Each of these three takes fio's default parameter when none is given,
 * and a second postfix, the center (0 to 1), places the hottest block.
 *   zoned:A/R:..  A percent of the accesses in the next R percent of the
 *                 range, uniform within it; an empty R is the rest
 * As fio's, the hottest blocks of zipf and pareto are not the first ones:
 * each rank is scattered over the range by fio's own hash (a multiply by
 * the 64-bit golden ratio, then a random offset), so that the device's
 * locality does not flatter the job.  The same hash and not any good one:
 * on a power-of-two count of blocks it is a permutation, where a random
 * hash would fold about a third of the ranks onto others and change the
 * shape of the hits that fio's users compare.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "load/dist.h"

#define GOLDEN_RATIO_64 0x61C8864680B583EBULL

/* fio's limit of the items zipf's constant is summed over: past it the
 * sum grows too slowly to matter, and a large device would cost seconds. */
#define ZIPF_MAX_N 10000000ULL

static double unit(__u64 r)
{
	return (r >> 11) * (1.0 / 9007199254740992.0);	/* [0, 1) */
}

static __u64 mix(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static int parse_zones(char *s, struct load_dist *d, const char **err)
{
	unsigned int access = 0, range = 0, blank = 0;
	char *ent;

	*err = "want ACCESS/RANGE percentages separated by ':', e.g. zoned:50/5:50/95";
	if (strchr(s, ','))
		return -1;	/* fio's per-direction sets: not taken */
	while ((ent = strsep(&s, ":"))) {
		struct load_dist_zone *z = &d->zone[d->nzones];
		char *r = strchr(ent, '/'), *end;

		if (!r || d->nzones == LOAD_MAX_DIST_ZONES)
			return -1;
		*r++ = '\0';
		z->access = strtoul(ent, &end, 10);
		if (end == ent || *end || !isdigit((unsigned char)*ent) || z->access > 100)
			return -1;
		if (*r) {
			z->range = strtoul(r, &end, 10);
			if (*end || !isdigit((unsigned char)*r) || z->range > 100)
				return -1;
		} else {
			blank++;
		}
		access += z->access;
		range += z->range;
		d->nzones++;
	}
	/* An empty range takes what the others leave. */
	for (unsigned int i = 0; blank == 1 && range <= 100 && i < d->nzones; i++)
		if (!d->zone[i].range)
			d->zone[i].range = 100 - range, range = 100;
	*err = "the accesses and the ranges must each add up to 100";
	return access == 100 && range == 100 && blank <= 1 ? 0 : -1;
}

/* The distributions of one parameter: fio's names, defaults (fio.h's
 * FIO_DEF_ZIPF, FIO_DEF_PARETO; normal's 0) and bounds, the low one
 * taken in where lo_in.  zipf's theta must not be 1 (the method divides
 * by 1 - theta). */
static const struct shape {
	const char *name;
	int kind;
	double def, lo, hi;
	bool lo_in;
	const char *bounds;
} shapes[] = {
	{ "zipf", LOAD_DIST_ZIPF, 1.1, 0, INFINITY, false,
	  "zipf's theta must be above 0 and not 1" },
	{ "pareto", LOAD_DIST_PARETO, 0.2, 0, 1, false,
	  "pareto's h must be between 0 and 1" },
	{ "normal", LOAD_DIST_NORMAL, 0, 0, 100, true,
	  "normal's deviation must be from 0 to below 100 (percent of the range)" },
};

static bool in_bounds(const struct shape *sh, double v)
{
	return isfinite(v) && (v > sh->lo || (sh->lo_in && v == sh->lo)) &&
	       v < sh->hi && !(sh->kind == LOAD_DIST_ZIPF && v == 1.0);
}

/* "THETA" or "THETA:CENTER" (fio's split_parse_distr) into *d. */
static int parse_param(char *arg, const struct shape *sh, struct load_dist *d,
		       const char **err)
{
	char *c = strchr(arg, ':'), *end;

	if (c) {
		*c++ = '\0';
		d->center = strtod(c, &end);
		*err = "the center (after a second ':') must be from 0 to 1";
		if (end == c || *end || !(d->center >= 0 && d->center <= 1))
			return -1;
	}
	d->param = strtod(arg, &end);
	*err = sh->bounds;
	return end == arg || *end || !in_bounds(sh, d->param) ? -1 : 0;
}

int load_dist_parse(const char *value, struct load_dist *d, const char **err)
{
	char buf[256], *arg;

	memset(d, 0, sizeof(*d));
	d->center = -1;
	*err = "want random, zipf[:THETA], pareto[:H], normal[:DEV] or zoned:A/R:...";
	if (snprintf(buf, sizeof(buf), "%s", value) >= (int)sizeof(buf))
		return -1;
	arg = strchr(buf, ':');
	if (arg)
		*arg++ = '\0';
	if (!strcmp(buf, "random") && !arg)
		return 0;
	if (!strcmp(buf, "zoned") && arg) {
		d->kind = LOAD_DIST_ZONED;
		return parse_zones(arg, d, err);
	}
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		if (strcmp(buf, shapes[i].name))
			continue;
		d->kind = shapes[i].kind;
		d->param = shapes[i].def;
		return arg ? parse_param(arg, &shapes[i], d, err) : 0;
	}
	return -1;
}

void load_dist_init(const struct load_dist *d, struct load_dist_state *s, __u64 n,
		    __u64 seed)
{
	__u64 m = n < ZIPF_MAX_N ? n : ZIPF_MAX_N;
	double theta = d->param;

	memset(s, 0, sizeof(*s));
	s->n = n ? n : 1;
	s->offset = d->center < 0 ? mix(seed) : (__u64)(s->n * d->center);
	if (d->kind == LOAD_DIST_ZIPF) {
		for (__u64 i = 1; i <= m; i++)
			s->zetan += pow(1.0 / i, theta);
		s->zeta2 = 1.0 + pow(0.5, theta);
		s->alpha = 1.0 / (1.0 - theta);
		s->eta = (1.0 - pow(2.0 / s->n, 1.0 - theta)) / (1.0 - s->zeta2 / s->zetan);
	} else if (d->kind == LOAD_DIST_PARETO) {
		s->pow = log(theta) / log(1.0 - theta);
	} else if (d->kind == LOAD_DIST_NORMAL) {
		if (theta > 0)
			s->stddev = ceil(s->n * theta / 100.0);
		if (s->stddev > s->n / 2)
			s->stddev = s->n / 2;
		/* fio's gauss_init: no offset but the center's, which moves
		 * the middle of the range there (fio's n * (center - 0.5),
		 * taken modulo n where it would be below 0). */
		s->offset = d->center < 0 ? 0 : (__u64)(s->n * (d->center + 0.5)) % s->n;
	}
}

/*
 * fio's gauss_next(): the mean of 12 draws over [0, n], rounded up, then a
 * uniform deviation within stddev/2 either way, halved until the sum stays
 * in the range (fio's loop would not end at a sum of n and no deviation:
 * the caller clamps that one).  The draws come from r1, the deviation from
 * r2.
 */
static __u64 normal_rank(const struct load_dist_state *s, __u64 r1, __u64 r2)
{
	__u64 sum = 0;
	__s64 dev;

	for (__u64 i = 0; i < 12; i++)
		sum += mix(r1 + i * GOLDEN_RATIO_64) % (s->n + 1);
	sum = (sum + 11) / 12;
	if (!s->stddev)
		return sum;
	dev = (__s64)(unit(r2) * s->stddev) - (__s64)(s->stddev / 2);
	while (dev && ((__s64)sum + dev >= (__s64)s->n || (__s64)sum + dev < 0))
		dev /= 2;
	return sum + dev;
}

__u64 load_dist_next(const struct load_dist *d, const struct load_dist_state *s,
		     __u64 r1, __u64 r2)
{
	double u = unit(r1), z;
	__u64 rank, start = 0;

	switch (d->kind) {
	case LOAD_DIST_ZIPF:
		z = u * s->zetan;
		if (z < 1.0)
			rank = 0;
		else if (z < s->zeta2)
			rank = 1;
		else
			rank = (__u64)(s->n * pow(s->eta * u - s->eta + 1.0, s->alpha));
		break;
	case LOAD_DIST_PARETO:
		rank = (__u64)((s->n - 1) * pow(u, s->pow));
		break;
	case LOAD_DIST_NORMAL:
		rank = normal_rank(s, r1, r2);
		break;
	case LOAD_DIST_ZONED: {
		unsigned int pick = r2 % 100, sum = 0, from = 0;

		for (unsigned int i = 0; i < d->nzones; i++) {
			const struct load_dist_zone *zn = &d->zone[i];
			__u64 lo = s->n * from / 100, hi = s->n * (from + zn->range) / 100;

			sum += zn->access;
			from += zn->range;
			if (pick < sum || i == d->nzones - 1) {
				start = lo;
				rank = hi > lo ? (__u64)(u * (hi - lo)) : 0;
				return start + rank;
			}
		}
		return 0;
	}
	default:
		return (__u64)(u * s->n);
	}
	if (rank >= s->n)
		rank = s->n - 1;
	return (rank * GOLDEN_RATIO_64 + s->offset) % s->n;
}
