// SPDX-License-Identifier: GPL-2.0
/*
 * fio's disk_util for iolens load: what the kernel counted for each disk
 * under the jobs' targets, from /sys/block/DEV/stat read before the jobs
 * start and after the last ends.  The disk is fio's: a device target is
 * itself, a file is the device of its filesystem, and a partition counts
 * as its whole disk.  A target with no block device under it (tmpfs, NFS)
 * has no entry: nothing is made up for it.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "lib/clock.h"
#include "lib/devices.h"
#include "lib/json.h"
#include "load/load.h"
#include "load/report.h"

#define MAX_DISKS 16

/* The first eleven fields of the stat file, fio's disk_util_stat. */
struct dstat {
	__u64 ios[2], merges[2], sectors[2], ticks[2];
	__u64 in_flight, io_ticks, time_in_queue;
};

struct disk {
	char name[64];
	char stat_path[PATH_MAX + 8];
	struct dstat start, delta;
	__u64 t_start, msec;
	bool ok;		/* both reads worked */
};

struct load_disks {
	struct disk v[MAX_DISKS];
	int n;
};

static int read_stat(const char *path, struct dstat *s)
{
	__u64 v[11];

	if (sysfs_u64s(path, v, 11))
		return -1;
	*s = (struct dstat){
		.ios = { v[0], v[4] }, .merges = { v[1], v[5] },
		.sectors = { v[2], v[6] }, .ticks = { v[3], v[7] },
		.in_flight = v[8], .io_ticks = v[9], .time_in_queue = v[10],
	};
	return 0;
}

/* The sysfs directory of the whole disk holding `dev`, or -1. */
static int disk_dir(dev_t dev, char *dir, size_t len)
{
	char link[64], real[PATH_MAX], probe[PATH_MAX + 16];
	char *slash;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, real))
		return -1;
	/* A partition's directory is inside its disk's, which has a queue. */
	snprintf(probe, sizeof(probe), "%s/partition", real);
	if (!access(probe, F_OK)) {
		slash = strrchr(real, '/');
		if (!slash)
			return -1;
		*slash = '\0';
	}
	snprintf(dir, len, "%s", real);
	return 0;
}

static void add_target(struct load_disks *d, const char *filename)
{
	char dir[PATH_MAX];
	const char *name;
	struct stat st;
	struct disk *k;
	dev_t dev;

	if (!filename || stat(filename, &st))
		return;
	if (S_ISBLK(st.st_mode))
		dev = st.st_rdev;
	else if (S_ISREG(st.st_mode))
		dev = st.st_dev;
	else
		return;
	if (disk_dir(dev, dir, sizeof(dir)))
		return;
	name = strrchr(dir, '/') + 1;
	for (int i = 0; i < d->n; i++) {
		if (!strcmp(d->v[i].name, name))
			return;
	}
	if (d->n == MAX_DISKS)
		return;
	k = &d->v[d->n];
	snprintf(k->name, sizeof(k->name), "%s", name);
	snprintf(k->stat_path, sizeof(k->stat_path), "%s/stat", dir);
	if (read_stat(k->stat_path, &k->start))
		return;
	k->t_start = mono_ns();
	d->n++;
}

struct load_disks *load_disks_start(const struct load_job_opts *jobs, int n)
{
	struct load_disks *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	for (int i = 0; i < n; i++)
		add_target(d, jobs[i].filename);
	if (!d->n) {
		free(d);
		return NULL;
	}
	return d;
}

/*
 * The last request of a job wakes its submitter before the block layer
 * counts it: blk_mq_end_request() ends the bios in blk_update_request()
 * and counts the request after, in __blk_mq_end_request().  A read right
 * after the jobs' last I/O returned missed it now and then (127 of 128
 * writes): read again, for up to 50 ms, while a request is in flight.
 */
static int read_settled(const char *path, struct dstat *e)
{
	for (int i = 0;; i++) {
		if (read_stat(path, e))
			return -1;
		if (!e->in_flight || i == 50)
			return 0;
		usleep(1000);
	}
}

void load_disks_end(struct load_disks *d)
{
	struct dstat e;

	for (int i = 0; d && i < d->n; i++) {
		struct disk *k = &d->v[i];
		struct dstat *s = &k->start;
		/* The jobs' time, not the wait for their last count. */
		__u64 end = mono_ns();

		if (read_settled(k->stat_path, &e))
			continue;
		k->msec = (end - k->t_start) / 1000000;
		for (int j = 0; j < 2; j++) {
			k->delta.ios[j] = e.ios[j] - s->ios[j];
			k->delta.merges[j] = e.merges[j] - s->merges[j];
			k->delta.sectors[j] = e.sectors[j] - s->sectors[j];
			k->delta.ticks[j] = e.ticks[j] - s->ticks[j];
		}
		k->delta.io_ticks = e.io_ticks - s->io_ticks;
		k->delta.time_in_queue = e.time_in_queue - s->time_in_queue;
		k->ok = true;
	}
}

/* Busy time over the run, as fio: io_ticks per elapsed ms, at most 100. */
static double util(const struct disk *k)
{
	double u = k->msec ? 100.0 * k->delta.io_ticks / k->msec : 0;

	return u > 100 ? 100 : u;
}

/*
 * The counters both reports give, in fio's order: its JSON names each
 * value (read's, then write's), its text line names the pair once and
 * gives read/write.
 */
static const struct disk_field {
	const char *json[2];
	const char *text;
	size_t at;		/* in struct dstat */
	int n;			/* 2: read and write; 1: one for both */
} fields[] = {
	{ { "read_ios", "write_ios" }, "ios", offsetof(struct dstat, ios), 2 },
	{ { "read_merges", "write_merges" }, "merge",
	  offsetof(struct dstat, merges), 2 },
	{ { "read_ticks", "write_ticks" }, "ticks",
	  offsetof(struct dstat, ticks), 2 },
	{ { "in_queue" }, "in_queue", offsetof(struct dstat, time_in_queue), 1 },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static unsigned long long field(const struct disk *k,
				const struct disk_field *f, int rw)
{
	const __u64 *v = (const __u64 *)((const char *)&k->delta + f->at);

	return v[rw];
}

/* Each disk to report: those whose both reads worked. */
#define for_each_disk(k, d)						\
	for (const struct disk *k = (d)->v; k < (d)->v + (d)->n; k++)	\
		if (!k->ok) {} else

void load_disks_json(struct load_disks *d, struct json *j)
{
	if (!d)
		return;
	json_arr_open(j, "disk_util");
	for_each_disk(k, d) {
		json_obj_open(j, NULL);
		json_str(j, "name", k->name);
		for (const struct disk_field *c = fields; c < fields + NFIELDS; c++)
			for (int rw = 0; rw < c->n; rw++)
				json_u64(j, c->json[rw], field(k, c, rw));
		json_f64(j, "util", util(k), 6);
		json_obj_close(j);
	}
	json_arr_close(j);
}

void load_disks_text(struct load_disks *d, FILE *f)
{
	if (!d)
		return;
	fprintf(f, "\nDisk stats (read/write):\n");
	for_each_disk(k, d) {
		fprintf(f, "  %s:", k->name);
		for (const struct disk_field *c = fields; c < fields + NFIELDS; c++) {
			fprintf(f, " %s=%llu", c->text, field(k, c, 0));
			if (c->n == 2)
				fprintf(f, "/%llu", field(k, c, 1));
			fputc(',', f);
		}
		fprintf(f, " util=%3.2f%%\n", util(k));
	}
}

void load_disks_terse(struct load_disks *d, FILE *f)
{
	if (!d)
		return;
	for_each_disk(k, d) {
		fprintf(f, ";%s", k->name);
		for (const struct disk_field *c = fields; c < fields + NFIELDS; c++)
			for (int rw = 0; rw < c->n; rw++)
				fprintf(f, ";%llu", field(k, c, rw));
		fprintf(f, ";%3.2f%%", util(k));
	}
}

void load_disks_free(struct load_disks *d)
{
	free(d);
}
