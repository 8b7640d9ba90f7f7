// SPDX-License-Identifier: GPL-2.0
/*
 * Where a job thread's next I/O goes (load/job.h): its direction, length
 * and offset, from fio's --rw, block sizes, random map, random_distribution
 * and rw=read:SIZE steps; and the thread's random numbers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "load/dist.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"
#include "load/opts.h"
#include "load/target.h"

static __u64 splitmix(__u64 *s)
{
	__u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

__u64 load_rnd(struct load_thread *t)
{
	__u64 x = t->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* A uniform number below n without division's bias worth speaking of. */
static __u64 below(struct load_thread *t, __u64 n)
{
	return (__u64)(((unsigned __int128)load_rnd(t) * n) >> 64);
}

/*
 * The random map: rather than a bitmap of blocks done (fio's axmap), a
 * keyed permutation of 0..nblocks-1, so that each block comes exactly once
 * per pass with O(1) memory and work.  A four-round Feistel network is a
 * bijection on 2^(2 * half) values; values past nblocks are walked on
 * through the permutation until one falls inside (fewer than four steps
 * on average, as the domain is under four times nblocks).
 */
static __u64 feistel(const struct load_thread *t, __u64 x)
{
	unsigned int h = t->f->feistel_half;
	__u64 mask = (1ULL << h) - 1, l = x >> h, r = x & mask;

	for (int i = 0; i < 4; i++) {
		__u64 f = (r ^ t->f->feistel_keys[i]) * 0x9e3779b97f4a7c15ULL;
		__u64 nl = r;

		f ^= f >> 29;
		r = (l ^ f) & mask;
		l = nl;
	}
	return l << h | r;
}

/* A new pass of file f's random map: each block once more, in a new
 * order. */
static void map_pass(struct load_thread *t, struct load_file *f)
{
	f->perm_pos = 0;
	for (int i = 0; i < 4; i++)
		f->feistel_keys[i] = load_rnd(t);
	if (f->used) {
		memset(f->used, 0, (f->nblocks + 63) / 64 * 8);
		f->used_left = f->nblocks;
	}
}

void load_offsets_rewind(struct load_thread *t)
{
	for (unsigned int i = 0; i < t->nfiles; i++) {
		struct load_file *f = &t->files[i];

		memset(f->seq_pos, 0, sizeof(f->seq_pos));
		f->done = false;
		map_pass(t, f);
	}
	t->nfiles_done = 0;
}

static __u64 perm_next(struct load_thread *t)
{
	__u64 x;

	if (t->f->perm_pos >= t->f->nblocks)
		map_pass(t, t->f);
	x = feistel(t, t->f->perm_pos++);
	while (x >= t->f->nblocks)
		x = feistel(t, x);
	return x;
}

int load_pick_dir(struct load_thread *t)
{
	switch (t->o->rw) {
	case LOAD_RW_READ:
	case LOAD_RW_RANDREAD:
		return LOAD_READ;
	case LOAD_RW_WRITE:
	case LOAD_RW_RANDWRITE:
		return LOAD_WRITE;
	case LOAD_RW_TRIM:
	case LOAD_RW_RANDTRIM:
		return LOAD_TRIM;
	default:
		return below(t, 100) < t->o->rwmixread ? LOAD_READ : LOAD_WRITE;
	}
}

/*
 * bssplit: every 100 I/Os of a direction have exactly the split's shares,
 * in random order.  fio draws each size on its own; the shares are the
 * same, and here the counts are exact rather than near.
 */
static __u64 split_len(struct load_thread *t, int dir)
{
	const struct load_bs *b = &t->o->bsz[dir];
	__u8 *deck = t->deck[dir];

	if (!t->deck_pos[dir]) {
		unsigned int n = 0;

		for (unsigned int i = 0; i < b->nsplit; i++) {
			for (unsigned int k = 0; k < b->split[i].perc; k++)
				deck[n++] = i;
		}
		for (unsigned int i = n - 1; i > 0; i--) {
			unsigned int j = below(t, i + 1);
			__u8 x = deck[i];

			deck[i] = deck[j];
			deck[j] = x;
		}
	}
	{
		unsigned int i = deck[t->deck_pos[dir]];

		t->deck_pos[dir] = (t->deck_pos[dir] + 1) % 100;
		return b->split[i].bs;
	}
}

/*
 * The length of the next I/O of `dir`, at most `room` bytes; 0 if not
 * even the smallest size fits.  bsrange is fio's draw: MIN + MAX * U, down
 * to a multiple of MIN, at most MAX.  Where the drawn size does not fit
 * (the end of a sequential pass), the largest one that does.
 */
static __u64 pick_len(struct load_thread *t, int dir, __u64 room)
{
	const struct load_bs *b = &t->o->bsz[dir];
	__u64 len, best = 0;

	if (room < b->min)
		return 0;
	if (b->min == b->max)
		return b->min;
	if (b->nsplit) {
		len = split_len(t, dir);
		if (len <= room)
			return len;
		for (unsigned int i = 0; i < b->nsplit; i++) {
			if (b->split[i].bs <= room && b->split[i].bs > best)
				best = b->split[i].bs;
		}
		return best;
	}
	len = b->min + (__u64)(((unsigned __int128)load_rnd(t) * b->max) >> 64);
	len -= len % b->min;
	if (len > b->max)
		len = b->max;
	if (len > room)
		len = room - room % b->min;
	return len;
}

/*
 * fio's rw=read:SIZE: the next sequential offset is SIZE past the end of
 * the last I/O (before it, when negative), from the second I/O on.  Going
 * backwards past the start it wraps to the end less the step.  Going
 * forwards, as fio 3.33 does: an I/O that ended at the file's end ends the
 * pass, a step past the file's end wraps to the start, one past the end of
 * a range that is shorter than the file ends the pass.  *pos is where the
 * last I/O ended, then where the next starts; false: the pass is over.
 */
static bool step_seq(const struct load_thread *t, __u64 *pos)
{
	const struct load_job_opts *o = t->o;
	__u64 size = t->f->size;
	__u64 file = t->f->target->dev_size ? t->f->target->dev_size : o->offset + size;
	__s64 p;

	if (!o->seq_add || !*pos)
		return true;
	if (o->seq_add < 0) {
		p = (__s64)*pos + o->seq_add;
		if (p < 0)
			p = (__s64)size + o->seq_add;
		*pos = p < 0 ? 0 : (__u64)p;
		return true;
	}
	if (o->offset + *pos >= file)
		return false;
	*pos += o->seq_add;
	if (o->offset + *pos >= file)
		*pos = 0;
	return *pos < size;
}

/*
 * fio's zonemode=strided: once zonesize bytes are done in a zone, the next
 * starts zonerange + zoneskip further on (back at the start past the
 * file's end), each direction from its start and the random map anew.
 * The part of the range the next I/O goes in, from its start: *span bytes
 * from *base.
 */
static void zone_of(struct load_thread *t, __u64 *base, __u64 *span)
{
	const struct load_job_opts *o = t->o;
	__u64 end;

	if (o->zonemode != LOAD_ZONE_STRIDED) {
		*base = 0;
		*span = t->f->size;
		return;
	}
	end = t->f->target->dev_size > o->offset ? t->f->target->dev_size - o->offset :
						   t->f->size;
	if (t->f->zone_bytes >= o->zone_size) {
		t->f->zone_bytes = 0;
		t->f->zone_start += o->zone_range + o->zone_skip;
		/* Back at the start past the end, or where too little of
		 * the zone is left for an I/O. */
		if (t->f->zone_start >= end || end - t->f->zone_start < load_bs_max(o))
			t->f->zone_start = 0;
		memset(t->f->seq_pos, 0, sizeof(t->f->seq_pos));
		map_pass(t, t->f);
	}
	*base = t->f->zone_start;
	/* A zone the file's end cuts short is used as far as it goes. */
	*span = end - t->f->zone_start < o->zone_range ? end - t->f->zone_start : o->zone_range;
}

/*
 * fio's rw=randread:N: whether this I/O is one of the N - 1 between two
 * random ones, the first I/O random (fio's ddir_seq_nr, counting the I/Os
 * of every direction, starts at 1), and then where it goes: *pos after the last I/O of its direction
 * (rw_sequencer=sequential) or where that one began (identical), *len.
 * As fio's, one that would pass the end of the range is a random one.
 */
static bool seq_between(struct load_thread *t, int dir, __u64 span,
			__u64 *pos, __u64 *len)
{
	const struct load_job_opts *o = t->o;

	if (o->seq_nr <= 1 || !t->seq_count) {
		t->seq_count = o->seq_nr > 1 ? o->seq_nr - 1 : 0;
		return false;
	}
	t->seq_count--;
	*pos = o->rw_seq == LOAD_RW_SEQ_IDENTICAL ? t->f->seq_start[dir] : t->f->seq_pos[dir];
	if (*pos >= span)
		return false;
	*len = t->randommap ? o->bsz[dir].min : pick_len(t, dir, span - *pos);
	return *len && *pos + *len <= span;
}

static bool is_used(const struct load_thread *t, __u64 b)
{
	return t->f->used[b / 64] >> (b % 64) & 1;
}

/* The first block not taken from b on, round to the start past the end
 * (fio's axmap_next_free); there is one, as used_left is not 0. */
static __u64 next_free(const struct load_thread *t, __u64 b)
{
	__u64 w = b / 64, words = (t->f->nblocks + 63) / 64;
	__u64 bits = ~t->f->used[w] & (~0ULL << (b % 64));

	while (!bits) {
		w = (w + 1) % words;
		bits = ~t->f->used[w];
	}
	b = w * 64 + __builtin_ctzll(bits);
	/* Bits past nblocks in the last word are never taken. */
	return b < t->f->nblocks ? b : next_free(t, 0);
}

/*
 * Several block sizes with the random map, as fio's axmap: a block drawn
 * at random, or the next one not taken; the I/O cut short where it would
 * reach a block taken before, so that a pass covers each block once and
 * does size= bytes exactly.  Sizes are multiples of the smallest, which
 * every direction uses (load_job.c turns the map off otherwise).
 */
static void used_pick(struct load_thread *t, int dir, __u64 span, __u64 *pos,
		      __u64 *len)
{
	__u64 unit = load_bs_min(t->o), nb = span / unit, b, n;

	if (!t->f->used_left)
		map_pass(t, t->f);
	b = below(t, nb);
	if (is_used(t, b))
		b = next_free(t, b);
	/* Only blocks past a zone the file's end cut short are left. */
	if (b >= nb) {
		map_pass(t, t->f);
		b = below(t, nb);
	}
	*pos = b * unit;
	*len = pick_len(t, dir, span - *pos);
	for (n = 0; n * unit < *len && b + n < nb && !is_used(t, b + n); n++)
		t->f->used[(b + n) / 64] |= 1ULL << ((b + n) % 64);
	t->f->used_left -= n;
	*len = n * unit < *len ? n * unit : *len;
}

/* Places io in the file t->f; false when its range is done and it is not
 * to go round again. */
static bool place(struct load_thread *t, struct load_io *io, bool again)
{
	const struct load_job_opts *o = t->o;
	int dir = io->dir;
	__u64 pos, len, ba, base, span;

	zone_of(t, &base, &span);
	if (load_rw_random(o->rw) && seq_between(t, dir, span, &pos, &len)) {
		/* Placed after (or at) the last I/O. */
	} else if (load_rw_random(o->rw) && t->f->used) {
		if (!t->f->used_left && !again)
			return false;
		used_pick(t, dir, span, &pos, &len);
	} else if (load_rw_random(o->rw) && t->randommap) {
		if (t->f->perm_pos >= t->f->nblocks && !again)
			return false;
		len = o->bsz[dir].min;
		pos = perm_next(t) * len;
		/* A zone the file's end cuts short: its blocks alone. */
		if (pos + len > span)
			pos = below(t, span / len) * len;
	} else if (load_rw_random(o->rw)) {
		ba = load_blockalign(o, dir);
		len = pick_len(t, dir, span);
		if (o->dist.kind == LOAD_DIST_RANDOM) {
			pos = below(t, (span - len) / ba + 1) * ba;
		} else {
			__u64 r = load_rnd(t);

			pos = load_dist_next(&o->dist, &t->dist, r, load_rnd(t)) * ba;
			if (pos + len > span)
				pos = (span - len) / ba * ba;
		}
	} else {
		/* Each direction walks the range on its own, as fio's last
		 * position per direction. */
		pos = t->f->seq_pos[dir];
		len = step_seq(t, &pos) && pos < span ? pick_len(t, dir, span - pos) : 0;
		if (!len) {
			if (!again)
				return false;
			pos = 0;
			len = pick_len(t, dir, span);
		}
	}
	/* Where the next sequential I/O starts: random ones need it only
	 * between sequential runs (rw=randread:N). */
	if (!load_rw_random(o->rw) || o->seq_nr > 1) {
		t->f->seq_start[dir] = pos;
		t->f->seq_pos[dir] = pos + len;
	}
	t->f->zone_bytes += len;
	io->offset = o->offset + base + pos;
	io->len = len;
	return true;
}

/*
 * fio's file_service_type: the file of the next I/O, among those whose
 * range is not done: the same one for file_service_nr I/Os (sequential:
 * to its end), then the next in turn, or one at random.
 */
static void pick_file(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;
	unsigned int i;

	if (t->f && !t->f->done) {
		if (o->fservice == LOAD_FSERVICE_SEQ)
			return;
		if (t->fservice_left) {
			t->fservice_left--;
			return;
		}
	}
	do {
		if (o->fservice == LOAD_FSERVICE_RANDOM) {
			i = below(t, t->nfiles);
		} else {
			i = t->next_file;
			t->next_file = (i + 1) % t->nfiles;
		}
	} while (t->files[i].done);
	t->f = &t->files[i];
	t->fservice_left = o->fservice_nr - 1;
}

bool load_pick_io(struct load_thread *t, struct load_io *io)
{
	const struct load_job_opts *o = t->o;
	/* Round the range (or a strided zone) again: in the ramp, for
	 * time, for more bytes than it holds. */
	bool again = t->ramping || o->time_based || t->budget > o->size ||
		     o->zonemode == LOAD_ZONE_STRIDED;

	/* One file goes round on its own; of several, each is done at the
	 * end of its range, and all start again once every one is, as
	 * fio's. */
	pick_file(t);
	while (!place(t, io, again && t->nfiles == 1)) {
		if (t->nfiles == 1)
			return false;
		t->f->done = true;
		if (++t->nfiles_done == t->nfiles) {
			if (!again)
				return false;
			load_offsets_rewind(t);
		}
		pick_file(t);
	}
	io->fd = t->f->fd;
	io->file = t->f - t->files;
	return true;
}

void load_offsets_seed(struct load_thread *t, __u64 *seed)
{
	t->rng = splitmix(seed) | 1;
}

int load_offsets_map(struct load_thread *t, bool several)
{
	const struct load_job_opts *o = t->o;

	for (unsigned int i = 0; i < t->nfiles; i++) {
		struct load_file *f = &t->files[i];

		/* A strided zone is what the random map covers, as fio's. */
		f->nblocks = (o->zonemode == LOAD_ZONE_STRIDED && o->zone_range < f->size ?
			      o->zone_range : f->size) / load_bs_min(o);
		f->feistel_half = 1;
		while ((1ULL << (2 * f->feistel_half)) < f->nblocks)
			f->feistel_half++;
		/* fio's axmap costs as much: a bit per block. */
		if (several) {
			f->used = calloc((f->nblocks + 63) / 64, 8);
			if (!f->used)
				return -ENOMEM;
		}
	}
	load_offsets_rewind(t);
	return 0;
}
