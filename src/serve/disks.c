// SPDX-License-Identifier: GPL-2.0
/*
 * serve's counts without a program per request: the kernel already counts
 * requests, sectors, merges, io_ticks, weighted time and requests in flight
 * for every disk (/proc/diskstats, what iostat and node_exporter read).
 * Only whole disks, and like iostat only those that did I/O since boot:
 * the unbound loop devices of most machines never show.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/diskstats.h"
#include "lib/vec.h"
#include "serve/disks.h"

/* A device of /proc/diskstats, as of the last read. */
struct disk_seen {
	__u32 dev;
	bool skip;		/* a partition, or not a disk asked for */
	struct diskstat last;
};

struct disks {
	struct disk_seen *v;
	int n;
	bool started;		/* the first read is done */
	__u32 *want;		/* disks asked for; none: all */
	int nwant;
};

struct disks *disks_new(const __u32 *devs, int ndev)
{
	struct disks *k = calloc(1, sizeof(*k));

	if (!k || !(k->want = calloc(ndev ? ndev : 1, sizeof(*k->want)))) {
		free(k);
		return NULL;
	}
	for (int i = 0; i < ndev; i++) {
		struct dev_info info;

		k->want[i] = dev_lookup(devs[i], &info) ? devs[i] : info.disk;
	}
	k->nwant = ndev;
	return k;
}

void disks_free(struct disks *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->want);
	free(k);
}

/* Whether `dev` is a whole disk asked for: looked up once per device. */
static bool wanted(const struct disks *k, __u32 dev)
{
	struct dev_info info;

	if (dev_lookup(dev, &info) || info.disk != dev)
		return false;
	for (int i = 0; i < k->nwant; i++)
		if (k->want[i] == dev)
			return true;
	return !k->nwant;
}

/* Its entry: where it was at the last read (/proc/diskstats keeps its
 * order), else found, else new.  NULL without memory. */
static struct disk_seen *seen(struct disks *k, int i, __u32 dev, bool *fresh)
{
	struct disk_seen *e;

	*fresh = false;
	if (i < k->n && k->v[i].dev == dev)
		return &k->v[i];
	e = vec_find(k->v, k->n, sizeof(*e), offsetof(struct disk_seen, dev),
		     &dev, sizeof(dev));
	if (e)
		return e;
	e = vec_add(&k->v, &k->n, sizeof(*e));
	if (!e)
		return NULL;
	e->dev = dev;
	e->skip = !wanted(k, dev);
	*fresh = true;
	return e;
}

/* Whether any count of `now` is below `was`'s: a disk made anew. */
static bool went_back(const struct diskstat *now, const struct diskstat *was)
{
	for (int g = 0; g < IOLENS_SG_NR; g++)
		if (now->ios[g] < was->ios[g] || now->sectors[g] < was->sectors[g] ||
		    now->merges[g] < was->merges[g])
			return true;
	return now->io_ticks_ms < was->io_ticks_ms || now->weighted_ms < was->weighted_ms;
}

static bool did_io(const struct diskstat *d)
{
	return d->ios[0] | d->ios[1] | d->ios[2] | d->ios[3];
}

int disks_read(struct disks *k, struct disk_delta **out)
{
	struct diskstat *ds, zero = { 0 };
	struct disk_delta *v;
	int n = diskstats_read(&ds), nv = 0;

	if (n < 0)
		return n;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		free(ds);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		const struct diskstat *now = &ds[i];
		const struct diskstat *was;
		struct disk_delta *d;
		struct disk_seen *e;
		bool fresh;

		e = seen(k, i, now->dev, &fresh);
		if (!e) {
			free(ds);
			free(v);
			return -ENOMEM;
		}
		/* From serve's start, or from 0 for a disk made since. */
		if (fresh)
			e->last = k->started ? zero : *now;
		was = went_back(now, &e->last) ? &zero : &e->last;
		if (e->skip || !did_io(now)) {
			e->last = *now;
			continue;
		}
		d = &v[nv++];
		d->dev = now->dev;
		memcpy(d->name, now->name, sizeof(d->name));
		for (int g = 0; g < IOLENS_SG_NR; g++) {
			d->ios[g] = now->ios[g] - was->ios[g];
			d->bytes[g] = (now->sectors[g] - was->sectors[g]) * 512;
			d->merges[g] = now->merges[g] - was->merges[g];
		}
		d->io_ticks_ns = (now->io_ticks_ms - was->io_ticks_ms) * 1000000ULL;
		d->weighted_ns = (now->weighted_ms - was->weighted_ms) * 1000000ULL;
		d->inflight = now->in_flight;
		e->last = *now;
	}
	k->started = true;
	free(ds);
	*out = v;
	return nv;
}
