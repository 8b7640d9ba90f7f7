// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "top/proctable.h"
#include "lib/counters.h"
#include "lib/vec.h"

/* /proc/PID/cmdline is cut here: enough for a screen line. */
#define CMDLINE_MAX	1024

struct proctable {
	bool threads;
	unsigned int gen;
	struct proc_ent *v;
	int n;
	size_t cap;
	int *idx;		/* open addressing: index into v, -1 = empty */
	int nidx;		/* a power of two, at least twice n */
};

struct proctable *proctable_new(bool threads)
{
	struct proctable *pt = calloc(1, sizeof(*pt));

	if (pt)
		pt->threads = threads;
	return pt;
}

/* What an entry holds besides its counters. */
static void ent_release(struct proc_ent *e)
{
	free(e->graph);
	free(e->cmdline);
	e->graph = NULL;
	e->cmdline = NULL;
	e->cmdline_read = false;
}

void proctable_free(struct proctable *pt)
{
	if (!pt)
		return;
	for (int i = 0; i < pt->n; i++)
		ent_release(&pt->v[i]);
	free(pt->v);
	free(pt->idx);
	free(pt);
}

bool proctable_threads(const struct proctable *pt)
{
	return pt->threads;
}

static unsigned int slot_of(const struct proctable *pt, __u32 id)
{
	return (id * 0x9e3779b1U) & (pt->nidx - 1);
}

static int reindex(struct proctable *pt, int want)
{
	int n = 64, *idx;

	while (n < 2 * want)
		n <<= 1;
	if (n != pt->nidx) {
		idx = realloc(pt->idx, n * sizeof(*idx));
		if (!idx)
			return -1;
		pt->idx = idx;
		pt->nidx = n;
	}
	memset(pt->idx, 0xff, pt->nidx * sizeof(*pt->idx));
	for (int i = 0; i < pt->n; i++) {
		unsigned int s = slot_of(pt, pt->v[i].id);

		while (pt->idx[s] >= 0)
			s = (s + 1) & (pt->nidx - 1);
		pt->idx[s] = i;
	}
	return 0;
}

/* The entry of `id`, created if new; NULL if out of memory. */
static struct proc_ent *lookup(struct proctable *pt, __u32 id)
{
	unsigned int s;
	struct proc_ent *e;

	if (2 * (pt->n + 1) > pt->nidx && reindex(pt, pt->n + 1))
		return NULL;
	for (s = slot_of(pt, id); pt->idx[s] >= 0; s = (s + 1) & (pt->nidx - 1))
		if (pt->v[pt->idx[s]].id == id)
			return &pt->v[pt->idx[s]];
	if (vec_grow(&pt->v, &pt->cap, pt->n + 1, sizeof(*pt->v), 256))
		return NULL;
	e = &pt->v[pt->n];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->born = pt->gen;
	pt->idx[s] = pt->n++;
	return e;
}

/* counters_add() takes a struct for an array of __u64 counters. */
_Static_assert(sizeof(struct iolens_ioac) % sizeof(__u64) == 0 &&
	       sizeof(struct iolens_sys) % sizeof(__u64) == 0 &&
	       sizeof(struct iolens_delay) % sizeof(__u64) == 0,
	       "the task counters are all __u64");

#define BLK(f) { offsetof(struct proc_io, f), offsetof(struct proc_io, f) }
/* What the block I/O tracer adds to a process's counters. */
static const struct counter_map blk_counters[] = {
	BLK(blk_ios), BLK(blk_bytes), BLK(blk_ns), BLK(blk_timed), BLK(blk_failed),
	BLK(misaligned), BLK(misaligned_bytes), BLK(blk_rbytes), BLK(blk_wbytes),
	BLK(wb_ios), BLK(wb_ns), BLK(wb_timed), BLK(wb_bytes),
};

void proc_io_sub(struct proc_io *d, const struct proc_io *a,
		 const struct proc_io *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	__u64 *r = (__u64 *)d;

	for (size_t i = 0; i < sizeof(*d) / sizeof(__u64); i++)
		r[i] = x[i] > y[i] ? x[i] - y[i] : 0;
}

void proctable_begin(struct proctable *pt)
{
	pt->gen++;
	for (int i = 0; i < pt->n; i++) {
		struct proc_ent *e = &pt->v[i];

		e->prev = e->cur;
		memset(&e->cur.io, 0, sizeof(e->cur.io));
		memset(&e->cur.sys, 0, sizeof(e->cur.sys));
		memset(&e->cur.delay, 0, sizeof(e->cur.delay));
	}
}

/* The kernel's wait counts are not always possible: on 6.18 here a thread
 * had its first wait counted from clock 0 (the whole uptime, 12,700 s), and
 * on another 6.18 VM a thread was counted waiting 3 s a second. A wait
 * counts whole in the frame it ends, so no per-frame bound tells; a thread
 * that waited longer than it has lived is sure to be wrong. The slack
 * covers the tick granularity of /proc's start time. */
static bool waited_past_life(const struct iolens_task_rec *r)
{
	struct timespec ts;
	__u64 now, life;

	if (!(r->flags & (IOLENS_TASK_BLKIO | IOLENS_TASK_SWAPIN)))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (__u64)ts.tv_sec * 1000000000 + ts.tv_nsec;
	life = now > r->start_ns ? now - r->start_ns : 0;
	life += life / 100 + 20000000;
	return ((r->flags & IOLENS_TASK_BLKIO) && r->delay.blkio_ns > life) ||
	       ((r->flags & IOLENS_TASK_SWAPIN) && r->delay.swapin_ns > life);
}

void proctable_add(const struct iolens_task_rec *r, void *arg)
{
	struct proctable *pt = arg;
	__u32 id = pt->threads ? r->tid : r->tgid;
	bool leader = r->tid == r->tgid;
	struct proc_ent *e = lookup(pt, id);

	if (!e)
		return;
	/* The task that names the entry decides who it is: a new task under
	 * a reused id starts over. */
	if (pt->threads || leader) {
		if (e->seen && e->start_ns != r->start_ns) {
			memset(&e->cur, 0, sizeof(e->cur));
			e->overcount = false;
			ent_release(e);
			e->born = pt->gen;
		}
		e->start_ns = r->start_ns;
		e->uid = r->uid;
		e->flags = r->flags;
		e->ppid = r->ppid;
		e->cgroup = r->cgroup;
		memcpy(e->comm, r->comm, sizeof(e->comm));
	}
	e->tgid = r->tgid;
	e->seen = pt->gen;
	if (waited_past_life(r))
		e->overcount = true;
	counters_add(&e->cur.io, &r->io, sizeof(r->io));
	counters_add(&e->cur.sys, &r->sys, sizeof(r->sys));
	counters_add(&e->cur.delay, &r->delay, sizeof(r->delay));
	if (!pt->threads) {
		counters_add(&e->cur.io, &r->dead, sizeof(r->dead));
		counters_add(&e->cur.sys, &r->sys_dead, sizeof(r->sys_dead));
		counters_add(&e->cur.delay, &r->delay_dead,
			     sizeof(r->delay_dead));
	}
}

void proctable_add_block(struct proctable *pt, __u32 tgid,
			 const struct proc_io *blk)
{
	unsigned int s;

	if (!pt->nidx)
		return;
	for (s = slot_of(pt, tgid); pt->idx[s] >= 0; s = (s + 1) & (pt->nidx - 1)) {
		struct proc_ent *e = &pt->v[pt->idx[s]];

		if (e->id == tgid && e->seen == pt->gen) {
			counters_add_map(&e->cur, blk, blk_counters,
					 sizeof(blk_counters) / sizeof(blk_counters[0]));
			return;
		}
	}
}

void proctable_end(struct proctable *pt)
{
	int k = 0;

	for (int i = 0; i < pt->n; i++) {
		struct proc_ent *e = &pt->v[i];

		if (e->seen != pt->gen) {
			ent_release(e);
			continue;
		}
		if (e->born == pt->gen) {
			e->prev = e->cur;
			e->base = e->cur;
		}
		pt->v[k++] = *e;
	}
	pt->n = k;
	reindex(pt, pt->n);
}

int proctable_count(const struct proctable *pt)
{
	return pt->n;
}

struct proc_ent *proctable_get(struct proctable *pt, int i)
{
	return &pt->v[i];
}

bool proc_is_new(const struct proctable *pt, const struct proc_ent *e)
{
	return e->born == pt->gen;
}

void proctable_graph(struct proctable *pt, double t0, double t1)
{
	for (int i = 0; i < pt->n; i++) {
		struct proc_ent *e = &pt->v[i];
		__u64 now = e->cur.io.read_bytes + e->cur.io.write_bytes,
		      was = e->prev.io.read_bytes + e->prev.io.write_bytes;

		if (now <= was)
			continue;
		/* Only what moves gets one: 3,000 idle threads take none. */
		if (!e->graph)
			e->graph = calloc(1, sizeof(*e->graph));
		if (e->graph)
			graph_add(e->graph, t0, t1, now - was);
	}
}

const char *proc_cmdline(struct proc_ent *e)
{
	char path[64], *buf;
	ssize_t n;
	int fd;

	if (e->cmdline_read)
		return e->cmdline;
	e->cmdline_read = true;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/cmdline", e->tgid, e->id);
	buf = malloc(CMDLINE_MAX);
	fd = buf ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	n = fd >= 0 ? read(fd, buf, CMDLINE_MAX - 1) : -1;
	if (fd >= 0)
		close(fd);
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	/* Arguments apart by spaces; other bytes are escaped where shown
	 * (lib/sanitize), not lost here. */
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = '\0';
	e->cmdline = buf;
	return buf;
}
