// SPDX-License-Identifier: GPL-2.0
/*
 * A cgroup's id (its kernfs node id) is the inode number of its directory in
 * the hierarchy's mount on 64-bit kernels, so a walk of the mount maps ids to
 * paths.  Every hierarchy numbers its own inodes, so an id means nothing
 * without its hierarchy: on a v1/v2 hybrid the task's cgroup is in cgroup2
 * while the blkcg owning an I/O is in the v1 blkio hierarchy.  Walks happen
 * only when an unknown id shows up, and never offline, when the names come
 * from a trace file instead.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "lib/cgroups.h"

#define MAX_HIER 16

struct cg_entry {
	__u64 id;		/* 0 = empty */
	unsigned int hier;
	char *path;		/* NULL until named */
};

struct hierarchy {
	bool probed;
	char mount[PATH_MAX];	/* "" if not mounted */
	char prefix[32];	/* "" for cgroup2, "blkio:" for v1 */
	time_t last_walk;
};

static bool offline;
/*
 * Open addressing, power-of-two size, at most half full.  A table per
 * thread: snoop's consumers name requests in parallel, and a path handed
 * out stays valid while its thread names more (a shared table would free
 * or move it under another thread).  Each thread walks the hierarchies
 * once for itself.
 */
static __thread struct cg_entry *table;
static __thread size_t cap, used;
static __thread struct hierarchy hiers[MAX_HIER];
static __thread struct hierarchy *walking;
static __thread unsigned int walking_hier;

/* A thread's table goes with it: a key whose destructor runs as it exits
 * (its __thread variables are still there then). */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void table_free(void *unused)
{
	(void)unused;
	for (size_t i = 0; i < cap; i++)
		free(table[i].path);
	free(table);
	table = NULL;
	cap = used = 0;
}

static void exit_key_make(void)
{
	pthread_key_create(&exit_key, table_free);
}

static size_t slot(const struct cg_entry *t, size_t n, unsigned int hier,
		   __u64 id)
{
	size_t i = (size_t)(((id ^ (__u64)hier << 40) * 0x9e3779b97f4a7c15ULL) >> 20);

	for (i &= n - 1; t[i].id && (t[i].id != id || t[i].hier != hier);
	     i = (i + 1) & (n - 1))
		;
	return i;
}

static struct cg_entry *find(unsigned int hier, __u64 id)
{
	struct cg_entry *e;

	if (!table)
		return NULL;
	e = &table[slot(table, cap, hier, id)];
	return e->id ? e : NULL;
}

/* The entry for (hier, id), made if new; NULL if out of memory. */
static struct cg_entry *insert(unsigned int hier, __u64 id)
{
	struct cg_entry *e = find(hier, id);

	if (e)
		return e;
	if (2 * (used + 1) > cap) {
		size_t ncap = cap ? 2 * cap : 256;
		struct cg_entry *t = calloc(ncap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t i = 0; i < cap; i++) {
			if (table[i].id)
				t[slot(t, ncap, table[i].hier, table[i].id)] = table[i];
		}
		free(table);
		if (!table) {
			pthread_once(&exit_once, exit_key_make);
			pthread_setspecific(exit_key, &exit_key);
		}
		table = t;
		cap = ncap;
	}
	e = &table[slot(table, cap, hier, id)];
	e->id = id;
	e->hier = hier;
	used++;
	return e;
}

/* What a trace may name: at most CG_NAMED cgroups and CG_NAME_BYTES of
 * their paths are kept, the others show unnamed (cgroup_unnamed()). */
#define CG_NAMED	(1 << 16)
#define CG_NAME_BYTES	(8 << 20)
static __thread size_t named_bytes;
static __thread __u64 unnamed;

int cgroup_set(unsigned int hier, __u64 id, const char *path)
{
	size_t len = strlen(path) + 1;
	struct cg_entry *e;
	char *copy;

	if (!id)
		return 0;
	if (!find(hier, id) && (used >= CG_NAMED || named_bytes + len > CG_NAME_BYTES)) {
		unnamed++;
		return 0;
	}
	named_bytes += len;
	copy = strdup(path);
	e = copy ? insert(hier, id) : NULL;
	if (!e) {
		free(copy);
		return -1;
	}
	free(e->path);
	e->path = copy;
	return 0;
}

__u64 cgroup_unnamed(void)
{
	return unnamed;
}

void cgroup_offline(void)
{
	offline = true;
}

/* Name of a v1 controller bound to hierarchy `hier`, from /proc/cgroups. */
static bool v1_controller(unsigned int hier, char *name, size_t len)
{
	FILE *f = fopen("/proc/cgroups", "r");
	char line[256], sub[64];
	unsigned int h;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %u", sub, &h) == 2 && h == hier &&
		    sub[0] != '#') {
			snprintf(name, len, "%s", sub);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static bool mount_matches(unsigned int hier, const char *ctrl,
			  const char *fstype, char *opts)
{
	if (!hier)
		return !strcmp(fstype, "cgroup2");
	if (strcmp(fstype, "cgroup"))
		return false;
	for (char *o = strtok(opts, ","); o; o = strtok(NULL, ","))
		if (!strcmp(o, ctrl))
			return true;
	return false;
}

static void probe_mount(unsigned int hier, struct hierarchy *hy)
{
	char line[4096], ctrl[64] = "", mnt[PATH_MAX], fstype[64], opts[1024];
	FILE *f;

	hy->probed = true;
	if (hier && !v1_controller(hier, ctrl, sizeof(ctrl)))
		return;
	f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		/* id parent maj:min root MOUNTPOINT opts... - FSTYPE SRC SUPEROPTS */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		if (mount_matches(hier, ctrl, fstype, opts)) {
			snprintf(hy->mount, sizeof(hy->mount), "%s", mnt);
			if (hier)
				snprintf(hy->prefix, sizeof(hy->prefix), "%s:", ctrl);
			break;
		}
	}
	fclose(f);
}

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	const char *rel = path + strlen(walking->mount);
	struct cg_entry *e;
	char buf[PATH_MAX + 40];

	(void)ftw;
	if (type != FTW_D)
		return 0;
	e = insert(walking_hier, st->st_ino);
	if (!e || e->path)
		return 0;
	snprintf(buf, sizeof(buf), "%s%s", walking->prefix, *rel ? rel : "/");
	e->path = strdup(buf);
	return 0;
}

const char *cgroup_path(unsigned int hier, __u64 id)
{
	struct hierarchy *hy;
	struct cg_entry *e;
	time_t now;

	if (!id)
		return NULL;
	e = find(hier, id);
	if (e && e->path)
		return e->path;
	if (offline || hier >= MAX_HIER)
		return NULL;
	hy = &hiers[hier];
	if (!hy->probed)
		probe_mount(hier, hy);
	if (!hy->mount[0])
		return NULL;
	/* Unknown id: a new cgroup, or one already gone.  Walk again, but at
	 * most once a second so a stream of dead ids costs nothing. */
	now = time(NULL);
	if (now == hy->last_walk)
		return NULL;
	hy->last_walk = now;
	walking = hy;
	walking_hier = hier;
	nftw(hy->mount, walk_one, 16, FTW_PHYS | FTW_MOUNT);
	e = find(hier, id);
	return e ? e->path : NULL;
}

bool cgroup_delegated(const char *path, uid_t *uid, size_t *at)
{
	const struct hierarchy *hy = NULL;
	char dir[PATH_MAX];
	const char *rel = path;
	size_t base;

	if (offline || !path)
		return false;
	/* "blkio:/x" in the v1 hierarchy of that prefix; "/x" in cgroup2. */
	for (unsigned int h = *path == '/' ? 0 : 1; h < MAX_HIER && !hy; h++) {
		size_t n;

		/* Once per thread: serve names in one thread, labels in
		 * another. */
		if (!hiers[h].probed)
			probe_mount(h, &hiers[h]);
		n = strlen(hiers[h].prefix);
		if (hiers[h].mount[0] && (h ? n && !strncmp(path, hiers[h].prefix, n) :
					  *path == '/')) {
			hy = &hiers[h];
			rel = path + n;
		}
	}
	if (!hy)
		return false;
	base = snprintf(dir, sizeof(dir), "%s", hy->mount);
	for (const char *c = rel; *c;) {
		struct stat st;
		size_t n;

		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if (!n || base + 1 + (c - rel) + n >= sizeof(dir))
			break;
		snprintf(dir + base, sizeof(dir) - base, "/%.*s", (int)(c - rel + n), rel);
		if (fstatat(AT_FDCWD, dir, &st, AT_SYMLINK_NOFOLLOW))
			return false;
		if (st.st_uid != 0) {
			*uid = st.st_uid;
			*at = c + n - path;
			return true;
		}
		c += n;
	}
	return false;
}

int cgroup_v2_id(const char *path, __u64 *id, __u32 *level)
{
	struct hierarchy *hy = &hiers[0];
	char full[PATH_MAX];
	struct stat st;
	__u32 n = 0;

	if (!hy->probed)
		probe_mount(0, hy);
	if (!hy->mount[0])
		return -ENOENT;
	if (snprintf(full, sizeof(full), "%s/%s", hy->mount, path) >= (int)sizeof(full) ||
	    stat(full, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	/* The level is the number of components below the root. */
	for (const char *p = path; *p; p++)
		if (*p != '/' && (p == path || p[-1] == '/'))
			n++;
	*id = st.st_ino;
	*level = n;
	return 0;
}

bool cgroup_v2_enabled(const char *controller)
{
	struct hierarchy *hy = &hiers[0];
	char path[PATH_MAX + 32], line[512];
	bool on = false;
	FILE *f;

	if (!hy->probed)
		probe_mount(0, hy);
	if (!hy->mount[0])
		return false;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", hy->mount);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		for (char *w = strtok(line, " \n"); w && !on; w = strtok(NULL, " \n"))
			on = !strcmp(w, controller);
	fclose(f);
	return on;
}

const char *cgroup_writeback_note(void)
{
	static int owned = -1;

	if (owned < 0)
		owned = cgroup_v2_enabled("io") && cgroup_v2_enabled("memory");
	return owned ? NULL :
	       "writeback stays with the kernel's flusher: the kernel charges it to the "
	       "owner's cgroup only on cgroup2 with the io and memory controllers on";
}
