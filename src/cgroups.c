// SPDX-License-Identifier: GPL-2.0
/*
 * On cgroup v2 the id BPF reports (kernfs node id) is the inode number of the
 * cgroup's directory on 64-bit kernels, so a walk of the cgroup2 mount maps
 * ids to paths.  Walks happen only when an unknown id shows up.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cgroups.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define CG_SLOTS 1024

struct cg_entry {
	__u64 id;
	char *path;
};

static struct cg_entry table[CG_SLOTS];
static time_t last_walk;

static struct cg_entry *slot(__u64 id)
{
	unsigned int h = (unsigned int)(id * 0x9e3779b97f4a7c15ULL >> 54);

	for (unsigned int i = 0; i < CG_SLOTS; i++) {
		struct cg_entry *e = &table[(h + i) % CG_SLOTS];

		if (!e->id || e->id == id)
			return e;
	}
	return NULL;
}

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	struct cg_entry *e;
	const char *rel;

	(void)ftw;
	if (type != FTW_D)
		return 0;
	e = slot(st->st_ino);
	if (!e || e->id)
		return 0;
	rel = path + strlen(CGROUP_ROOT);
	e->id = st->st_ino;
	e->path = strdup(*rel ? rel : "/");
	return 0;
}

const char *cgroup_path(__u64 id)
{
	struct cg_entry *e;
	time_t now;

	if (!id)
		return NULL;
	e = slot(id);
	if (e && e->id)
		return e->path;
	/* Unknown id: a new cgroup, or one already gone.  Walk again, but at
	 * most once a second so a stream of dead ids costs nothing. */
	now = time(NULL);
	if (now == last_walk)
		return NULL;
	last_walk = now;
	nftw(CGROUP_ROOT, walk_one, 16, FTW_PHYS | FTW_MOUNT);
	e = slot(id);
	return e && e->id ? e->path : NULL;
}
