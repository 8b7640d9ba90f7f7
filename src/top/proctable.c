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

/* Open addressing over a table whose elements start with their __u32 id:
 * each slot an index into the table, -1 = empty. */
struct index {
	int *slot;
	int n;			/* a power of two, at least twice the elements */
};

/*
 * One thread as the last scan saw it: what was charged to its entry so
 * far.  A process's row is the sum of its threads' differences from scan
 * to scan, and of their last records (IOLENS_TASK_EXITED) as they exit;
 * never signal->ioac, to which the kernel adds a reaped child's counters
 * (wait_task_zombie()), which would show a child's I/O again as its
 * parent's.
 */
struct thread_seen {
	__u32 tid;
	unsigned int seen;	/* scan generation it was last in */
	__u64 start_ns;
	struct iolens_ioac io;
	struct iolens_sys sys;
	struct iolens_delay delay;
};

struct proctable {
	bool threads;
	unsigned int gen;
	__u64 pass_ns, last_pass_ns;	/* CLOCK_MONOTONIC at this scan's and
					 * the last one's start; 0: none */
	struct proc_ent *v;
	int n;
	size_t cap;
	struct index idx;
	struct thread_seen *t;
	int nt;
	size_t tcap;
	struct index tidx;
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
	free(pt->idx.slot);
	free(pt->t);
	free(pt->tidx.slot);
	free(pt);
}

bool proctable_threads(const struct proctable *pt)
{
	return pt->threads;
}

static __u32 id_at(const void *v, size_t stride, int i)
{
	__u32 id;

	memcpy(&id, (const char *)v + i * stride, sizeof(id));
	return id;
}

static unsigned int slot_of(const struct index *x, __u32 id)
{
	return (id * 0x9e3779b1U) & (x->n - 1);
}

/* Indexes the `count` elements of v anew, with room for `want`. */
static int index_build(struct index *x, const void *v, size_t stride, int count, int want)
{
	int n = 64, *slot;

	while (n < 2 * want)
		n <<= 1;
	if (n != x->n) {
		slot = realloc(x->slot, n * sizeof(*slot));
		if (!slot)
			return -1;
		x->slot = slot;
		x->n = n;
	}
	memset(x->slot, 0xff, x->n * sizeof(*x->slot));
	for (int i = 0; i < count; i++) {
		unsigned int s = slot_of(x, id_at(v, stride, i));

		while (x->slot[s] >= 0)
			s = (s + 1) & (x->n - 1);
		x->slot[s] = i;
	}
	return 0;
}

/* The element of `id` in v (count of them, room in the index for one
 * more), or -1 and in *free the slot it would take. */
static int index_find(const struct index *x, const void *v, size_t stride, __u32 id,
		      unsigned int *free)
{
	unsigned int s;

	for (s = slot_of(x, id); x->slot[s] >= 0; s = (s + 1) & (x->n - 1))
		if (id_at(v, stride, x->slot[s]) == id)
			return x->slot[s];
	*free = s;
	return -1;
}

/* The element of `id` in the array *pv of *n elements of `stride` bytes,
 * each with its id first, indexed by x; appended zeroed with that id if
 * new.  NULL if out of memory. */
static void *index_get(struct index *x, void *pv, int *n, size_t *cap, size_t stride,
		       __u32 id)
{
	char **v = pv, *e;
	unsigned int s;
	int i;

	if (2 * (*n + 1) > x->n && index_build(x, *v, stride, *n, *n + 1))
		return NULL;
	i = index_find(x, *v, stride, id, &s);
	if (i >= 0)
		return *v + i * stride;
	if (vec_grow(pv, cap, *n + 1, stride, 256))
		return NULL;
	e = *v + *n * stride;
	memset(e, 0, stride);
	memcpy(e, &id, sizeof(id));
	x->slot[s] = (*n)++;
	return e;
}

_Static_assert(offsetof(struct proc_ent, id) == 0 &&
	       offsetof(struct thread_seen, tid) == 0, "index_get() reads ids first");

/* The entry of `id`, created if new; NULL if out of memory. */
static struct proc_ent *lookup(struct proctable *pt, __u32 id)
{
	return index_get(&pt->idx, &pt->v, &pt->n, &pt->cap, sizeof(*pt->v), id);
}

/* The thread of `tid`, created zeroed if new (seen 0); NULL if out of
 * memory. */
static struct thread_seen *thread_lookup(struct proctable *pt, __u32 tid)
{
	return index_get(&pt->tidx, &pt->t, &pt->nt, &pt->tcap, sizeof(*pt->t), tid);
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

/* d = a - b for `size` bytes of __u64 counters, 0 where b is larger (a
 * non-leader thread that execs takes over its leader's tid and start time:
 * de_thread()). */
static void counters_sub(void *d, const void *a, const void *b, size_t size)
{
	const __u64 *x = a, *y = b;
	__u64 *r = d;

	for (size_t i = 0; i < size / sizeof(__u64); i++)
		r[i] = x[i] > y[i] ? x[i] - y[i] : 0;
}

void proc_io_sub(struct proc_io *d, const struct proc_io *a,
		 const struct proc_io *b)
{
	counters_sub(d, a, b, sizeof(*d));
}

void proctable_begin(struct proctable *pt)
{
	struct timespec ts;

	pt->gen++;
	for (int i = 0; i < pt->n; i++)
		pt->v[i].prev = pt->v[i].cur;
	pt->last_pass_ns = pt->pass_ns;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	pt->pass_ns = (__u64)ts.tv_sec * 1000000000 + ts.tv_nsec;
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

static void ent_name(struct proc_ent *e, const struct iolens_task_rec *r)
{
	e->uid = r->uid;
	e->flags = r->flags & ~IOLENS_TASK_EXITED;
	e->ppid = r->ppid;
	e->cgroup = r->cgroup;
	memcpy(e->comm, r->comm, sizeof(e->comm));
}

/*
 * What thread r did since the last scan, into d; r is then what the next
 * one counts from.  A thread first seen counts from its start if it
 * started after the last scan began: its counters began at zero
 * (copy_process()) and all of it happened since.  Else, and at the first
 * scan, from now: what it did before is not this run's.
 */
static bool thread_moved(struct proctable *pt, const struct iolens_task_rec *r,
			 struct proc_io *d)
{
	struct thread_seen *t = thread_lookup(pt, r->tid);

	if (!t)
		return false;
	/* The last record of a thread whose tid a new one took within the
	 * scan: not the new one's (its last moments are lost). */
	if (t->seen == pt->gen && t->start_ns != r->start_ns &&
	    (r->flags & IOLENS_TASK_EXITED))
		return false;
	if (!t->seen || t->start_ns != r->start_ns) {
		t->start_ns = r->start_ns;
		memset(&t->io, 0, sizeof(t->io));
		memset(&t->sys, 0, sizeof(t->sys));
		memset(&t->delay, 0, sizeof(t->delay));
		if (!pt->last_pass_ns || r->start_ns < pt->last_pass_ns) {
			t->io = r->io;
			t->sys = r->sys;
			t->delay = r->delay;
		}
	}
	t->seen = pt->gen;
	counters_sub(&d->io, &r->io, &t->io, sizeof(d->io));
	counters_sub(&d->sys, &r->sys, &t->sys, sizeof(d->sys));
	counters_sub(&d->delay, &r->delay, &t->delay, sizeof(d->delay));
	/* Counted so far: never less.  A dying thread's syscall counters
	 * and waits read zero once the exit hook has moved them to its
	 * leader's (bpf/tasks.bpf.c), and its last record still has them. */
	counters_add(&t->io, &d->io, sizeof(d->io));
	counters_add(&t->sys, &d->sys, sizeof(d->sys));
	counters_add(&t->delay, &d->delay, sizeof(d->delay));
	return true;
}

void proctable_add(const struct iolens_task_rec *r, void *arg)
{
	struct proctable *pt = arg;
	__u32 id = pt->threads ? r->tid : r->tgid;
	bool leader = r->tid == r->tgid;
	struct proc_io d = { 0 };
	struct proc_ent *e;

	if (!thread_moved(pt, r, &d))
		return;
	e = lookup(pt, id);
	if (!e)
		return;
	/* The task that names the entry decides who it is: a new task under
	 * a reused id starts over.  But the last record of the one before
	 * it, after it (the id was reused within a scan), is not the new
	 * one's: dropped. */
	if (pt->threads || leader) {
		if (e->start_ns && e->start_ns != r->start_ns) {
			if (e->seen == pt->gen && (r->flags & IOLENS_TASK_EXITED))
				return;
			memset(&e->cur, 0, sizeof(e->cur));
			memset(&e->prev, 0, sizeof(e->prev));
			e->overcount = false;
			ent_release(e);
		}
		e->start_ns = r->start_ns;
		ent_name(e, r);
	} else if (!e->seen) {
		/* Its leader's record comes later in the scan, or not at all
		 * (the leader ended before it): named by this thread until
		 * then. */
		ent_name(e, r);
	}
	e->tgid = r->tgid;
	e->seen = pt->gen;
	if (waited_past_life(r))
		e->overcount = true;
	counters_add(&e->cur.io, &d.io, sizeof(d.io));
	counters_add(&e->cur.sys, &d.sys, sizeof(d.sys));
	counters_add(&e->cur.delay, &d.delay, sizeof(d.delay));
}

void proctable_add_block(struct proctable *pt, __u32 tgid,
			 const struct proc_io *blk)
{
	unsigned int s;
	int i;

	if (!pt->idx.n)
		return;
	i = index_find(&pt->idx, pt->v, sizeof(*pt->v), tgid, &s);
	if (i >= 0 && pt->v[i].seen == pt->gen)
		counters_add_map(&pt->v[i].cur, blk, blk_counters,
				 sizeof(blk_counters) / sizeof(blk_counters[0]));
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
		pt->v[k++] = *e;
	}
	pt->n = k;
	index_build(&pt->idx, pt->v, sizeof(*pt->v), pt->n, pt->n);
	/* A thread not in this scan has exited before it, and its last
	 * record came with it. */
	k = 0;
	for (int i = 0; i < pt->nt; i++)
		if (pt->t[i].seen == pt->gen)
			pt->t[k++] = pt->t[i];
	pt->nt = k;
	index_build(&pt->tidx, pt->t, sizeof(*pt->t), pt->nt, pt->nt);
}

int proctable_count(const struct proctable *pt)
{
	return pt->n;
}

struct proc_ent *proctable_get(struct proctable *pt, int i)
{
	return &pt->v[i];
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
