// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/devices.h"
#include "lib/diskstats.h"

/* The counters of one device as diskstats and sysfs "stat" print them,
 * after its name: how many were read. */
static int parse_counts(const char *s, struct diskstat *d)
{
	/* Fields 4-14 since 2.6, discards (15-18) since 4.18, flushes
	 * (19-20) since 5.5; older kernels leave those zero. */
	return sscanf(s, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		      (unsigned long long *)&d->ios[IOLENS_SG_READ],
		      (unsigned long long *)&d->merges[IOLENS_SG_READ],
		      (unsigned long long *)&d->sectors[IOLENS_SG_READ],
		      (unsigned long long *)&d->time_ms[IOLENS_SG_READ],
		      (unsigned long long *)&d->ios[IOLENS_SG_WRITE],
		      (unsigned long long *)&d->merges[IOLENS_SG_WRITE],
		      (unsigned long long *)&d->sectors[IOLENS_SG_WRITE],
		      (unsigned long long *)&d->time_ms[IOLENS_SG_WRITE],
		      (unsigned long long *)&d->in_flight,
		      (unsigned long long *)&d->io_ticks_ms,
		      (unsigned long long *)&d->weighted_ms,
		      (unsigned long long *)&d->ios[IOLENS_SG_DISCARD],
		      (unsigned long long *)&d->merges[IOLENS_SG_DISCARD],
		      (unsigned long long *)&d->sectors[IOLENS_SG_DISCARD],
		      (unsigned long long *)&d->time_ms[IOLENS_SG_DISCARD],
		      (unsigned long long *)&d->ios[IOLENS_SG_FLUSH],
		      (unsigned long long *)&d->time_ms[IOLENS_SG_FLUSH]);
}

int diskstats_read(struct diskstat **out)
{
	FILE *f = fopen("/proc/diskstats", "r");
	struct diskstat *v = NULL, d, *nv;
	int n = 0, cap = 0, at;
	unsigned int ma, mi;
	char line[512];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		memset(&d, 0, sizeof(d));
		if (sscanf(line, "%u %u %31s %n", &ma, &mi, d.name, &at) < 3 ||
		    parse_counts(line + at, &d) < 11)
			continue;
		d.dev = kdev_make(ma, mi);
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = d;
	}
	fclose(f);
	*out = v;
	return n;
}

int diskstat_of_dev(__u32 dev, struct diskstat *d)
{
	char path[64], line[512];
	FILE *f;
	int ok;

	memset(d, 0, sizeof(*d));
	d->dev = dev;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", kdev_major(dev),
		 kdev_minor(dev));
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ok = fgets(line, sizeof(line), f) && parse_counts(line, d) >= 11;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

int diskstat_open(__u32 dev)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", kdev_major(dev),
		 kdev_minor(dev));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int diskstat_read_fd(int fd, __u32 dev, struct diskstat *d)
{
	char line[512];
	ssize_t n;

	memset(d, 0, sizeof(*d));
	d->dev = dev;
	/* sysfs makes the file anew at every read from offset 0. */
	n = pread(fd, line, sizeof(line) - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : -ENODEV;
	line[n] = '\0';
	return parse_counts(line, d) >= 11 ? 0 : -EINVAL;
}
