// SPDX-License-Identifier: GPL-2.0
/* A trace file being written by record (include/record/writer.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/cgroups.h"
#include "lib/devices.h"
#include "lib/fileid.h"
#include "record/writer.h"
#include "trace/block_trace.h"

/* The seen set's first size. */
#define SEEN_SLOTS 4096

struct rec_writer {
	struct trace_writer *w;
	/* dev_t, cgroup, stack and file ids already described in the file */
	struct rec_seen seen;
	struct kstacks *stacks;	/* --stacks */
	struct trace_file file;	/* room for a FILE record */
	__u64 requests;
	int failed;
};

/* The slot of `key` in the seen set, or the free one where it goes. */
static __u64 *seen_slot(__u64 *set, size_t cap, __u64 key)
{
	size_t i = (key * 0x9e3779b97f4a7c15ULL) >> 32;

	for (;; i++)
		if (!set[i & (cap - 1)] || set[i & (cap - 1)] == key)
			return &set[i & (cap - 1)];
}

/* Twice the room; false without memory (the set stays). */
static bool seen_grow(struct rec_seen *s)
{
	size_t cap = s->cap ? 2 * s->cap : SEEN_SLOTS;
	__u64 *set = calloc(cap, sizeof(*set));

	if (!set)
		return false;
	for (size_t i = 0; i < s->cap; i++)
		if (s->keys[i])
			*seen_slot(set, cap, s->keys[i]) = s->keys[i];
	free(s->keys);
	s->keys = set;
	s->cap = cap;
	return true;
}

/* Returns true the first time `key` is offered (keys are never 0).
 * Without memory for it, every time: names written again, which readers
 * tolerate. */
static bool first_sight(struct rec_seen *s, __u64 key)
{
	__u64 *slot;

	if (4 * (s->n + 1) > 3 * s->cap && !seen_grow(s))
		return true;
	slot = seen_slot(s->keys, s->cap, key);
	if (*slot)
		return false;
	*slot = key;
	s->n++;
	return true;
}

void rec_seen_free(struct rec_seen *s)
{
	free(s->keys);
	memset(s, 0, sizeof(*s));
}

/* The keys of what a request names, each tagged apart from the others:
 * ids are small inode numbers, so the top bits are free. */
static __u64 cgroup_key(unsigned int hier, __u64 id)
{
	return id ^ (__u64)hier << 56;
}

static __u64 dev_key(__u32 dev)
{
	return (__u64)dev | 1ULL << 63;
}

static __u64 stack_key(__u32 stack)
{
	return (__u64)stack | 1ULL << 62;
}

/* A file whose hash another took is not described again: it shows by
 * inode. */
static __u64 file_key(const struct iolens_rq *rq)
{
	__u64 key = fileid_hash(rq->fdev, rq->ino, rq->fgen);

	return (key & ~(3ULL << 62)) | 3ULL << 62;
}

static void describe_cgroup(struct rec_writer *w, unsigned int hier, __u64 id)
{
	struct trace_cgroup cg = { .id = id, .hier = hier };
	const char *path;

	if (!id || !first_sight(&w->seen, cgroup_key(hier, id)))
		return;
	path = cgroup_path(hier, id);
	if (!path)
		return;
	snprintf(cg.path, sizeof(cg.path), "%s", path);
	if (trace_write_cgroup(w->w, &cg))
		w->failed = 1;
}

static void describe_dev(struct rec_writer *w, __u32 dev)
{
	struct trace_device td = { .dev = dev };
	const struct dev_info *di;

	if (!first_sight(&w->seen, dev_key(dev)))
		return;
	di = dev_get(dev);
	td.logical_bs = di->logical_bs;
	td.physical_bs = di->physical_bs;
	snprintf(td.name, sizeof(td.name), "%s", di->name);
	if (trace_write_device(w->w, &td))
		w->failed = 1;
}

static void describe_stack(struct rec_writer *w, __u32 stack)
{
	struct trace_stack ts = { .stack = stack };
	const struct kstack *k;

	if (kstack_unknown(stack) || !first_sight(&w->seen, stack_key(stack)))
		return;
	k = kstacks_get(w->stacks, stack);
	if (!k)
		return;
	ts.k = *k;
	if (trace_write_stack(w->w, &ts))
		w->failed = 1;
}

/* Its path (or, for a device, whether it was mounted). */
static void describe_file(struct rec_writer *w, const struct iolens_rq *rq)
{
	struct trace_file *tf = &w->file;
	const char *path;

	if (rq->fkind == IOLENS_FK_NONE || !first_sight(&w->seen, file_key(rq)))
		return;
	memset(tf, 0, sizeof(*tf));
	tf->dev = rq->fdev;
	if (rq->fkind == IOLENS_FK_DEVICE) {
		tf->flags = fileid_dev_mounted(rq->fdev) ? TRACE_FILE_MOUNTED : 0;
	} else {
		tf->ino = rq->ino;
		tf->gen = rq->fgen;
		path = fileid_path(rq->fdev, rq->ino, rq->fgen);
		snprintf(tf->path, sizeof(tf->path), "%s", path ? path : "");
	}
	if (trace_write_file(w->w, tf))
		w->failed = 1;
}

/* Whether `key` is in the set (keys are never 0). */
static bool seen_has(const struct rec_seen *s, __u64 key)
{
	return s->cap && *seen_slot(s->keys, s->cap, key) == key;
}

void rec_names_warm(struct rec_seen *s, const struct iolens_rq *rq,
		    struct kstacks *stacks)
{
	/* A key is kept once its name was found: a lookup that failed (a
	 * cgroup's walk waits a second between two) is tried again. */
	if (!seen_has(s, dev_key(rq->dev)) && dev_get(rq->dev))
		first_sight(s, dev_key(rq->dev));
	if (rq->cgroup && !seen_has(s, cgroup_key(0, rq->cgroup)) && cgroup_path(0, rq->cgroup))
		first_sight(s, cgroup_key(0, rq->cgroup));
	if (rq->io_cgroup && !seen_has(s, cgroup_key(rq->io_cgroup_hier, rq->io_cgroup)) &&
	    cgroup_path(rq->io_cgroup_hier, rq->io_cgroup))
		first_sight(s, cgroup_key(rq->io_cgroup_hier, rq->io_cgroup));
	if (stacks && !kstack_unknown(rq->stack) && !seen_has(s, stack_key(rq->stack)) &&
	    kstacks_get(stacks, rq->stack))
		first_sight(s, stack_key(rq->stack));
	if (rq->fkind != IOLENS_FK_NONE && rq->fkind != IOLENS_FK_DEVICE &&
	    !seen_has(s, file_key(rq)) && fileid_path(rq->fdev, rq->ino, rq->fgen))
		first_sight(s, file_key(rq));
}

struct rec_writer *rec_writer_open(const char *path, const struct trace_header *h,
				   const struct trace_trigger *trigger,
				   struct kstacks *stacks, int workers,
				   char *err, size_t errlen)
{
	struct rec_writer *w = calloc(1, sizeof(*w));
	char cerr[8];

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->stacks = stacks;
	w->w = trace_create(path, h, workers, err, errlen);
	if (!w->w) {
		int e = errno;

		free(w);
		errno = e;
		return NULL;
	}
	if (trigger && trace_write_trigger(w->w, trigger)) {
		trace_finish(w->w, &(struct trace_end){}, cerr, sizeof(cerr));
		snprintf(err, errlen, "cannot write %s", path);
		free(w);
		return NULL;
	}
	return w;
}

int rec_writer_rq(struct rec_writer *w, const struct iolens_rq *rq)
{
	describe_dev(w, rq->dev);
	describe_cgroup(w, 0, rq->cgroup);
	describe_cgroup(w, rq->io_cgroup_hier, rq->io_cgroup);
	if (w->stacks)
		describe_stack(w, rq->stack);
	describe_file(w, rq);
	if (trace_write_rq(w->w, rq))
		w->failed = 1;
	w->requests++;
	return w->failed ? -1 : 0;
}

int rec_writer_lost(struct rec_writer *w, __u64 n)
{
	if (trace_write_lost(w->w, n))
		w->failed = 1;
	return w->failed ? -1 : 0;
}

__u64 rec_writer_dropped(struct rec_writer *w, struct block_trace *bt, __u64 *seen)
{
	struct block_trace_stats c;
	__u64 n;

	block_trace_stats(bt, &c);
	n = block_trace_dropped(&c) - *seen;
	if (n)
		rec_writer_lost(w, n);
	*seen += n;
	return n;
}

int rec_writer_sync(struct rec_writer *w)
{
	if (trace_sync(w->w))
		w->failed = 1;
	return w->failed ? -1 : 0;
}

__u64 rec_writer_requests(const struct rec_writer *w)
{
	return w->requests;
}

int rec_writer_finish(struct rec_writer *w, const struct trace_end *end,
		      char *err, size_t errlen)
{
	int ret = trace_finish(w->w, end, err, errlen);

	if (!ret && w->failed) {
		snprintf(err, errlen, "write failed");
		ret = -1;
	}
	rec_seen_free(&w->seen);
	free(w);
	return ret;
}
