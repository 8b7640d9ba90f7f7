// SPDX-License-Identifier: GPL-2.0
/*
 * One job thread of iolens load: picks offsets, keeps iodepth I/Os in
 * flight through its engine, and times each I/O with CLOCK_MONOTONIC
 * (vDSO, no syscall).  The clock is read once per batch, not per I/O: a
 * batch is prepared, submitted or reaped within nanoseconds, and the
 * reads would otherwise be a good part of the cost per I/O.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include "lib/clock.h"
#include "load/cpus.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"
#include "load/opts.h"
#include "load/verify.h"
#include "lib/stop.h"

/* ---- offsets ---- */

static __u64 splitmix(__u64 *s)
{
	__u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* xorshift64*: a few cycles per number for the mix and norandommap. */
static __u64 rnd(struct load_thread *t)
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
	return (__u64)(((unsigned __int128)rnd(t) * n) >> 64);
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
	unsigned int h = t->feistel_half;
	__u64 mask = (1ULL << h) - 1, l = x >> h, r = x & mask;

	for (int i = 0; i < 4; i++) {
		__u64 f = (r ^ t->feistel_keys[i]) * 0x9e3779b97f4a7c15ULL;
		__u64 nl = r;

		f ^= f >> 29;
		r = (l ^ f) & mask;
		l = nl;
	}
	return l << h | r;
}

static void new_pass(struct load_thread *t)
{
	t->perm_pos = 0;
	for (int i = 0; i < 4; i++)
		t->feistel_keys[i] = rnd(t);
}

static __u64 perm_next(struct load_thread *t)
{
	__u64 x;

	if (t->perm_pos >= t->nblocks)
		new_pass(t);
	x = feistel(t, t->perm_pos++);
	while (x >= t->nblocks)
		x = feistel(t, x);
	return x;
}

static bool is_random(int rw)
{
	return rw == LOAD_RW_RANDREAD || rw == LOAD_RW_RANDWRITE ||
	       rw == LOAD_RW_RANDRW || rw == LOAD_RW_RANDTRIM;
}

static bool is_mix(int rw)
{
	return rw == LOAD_RW_RW || rw == LOAD_RW_RANDRW;
}

static int pick_dir(struct load_thread *t)
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
	len = b->min + (__u64)(((unsigned __int128)rnd(t) * b->max) >> 64);
	len -= len % b->min;
	if (len > b->max)
		len = b->max;
	if (len > room)
		len = room - room % b->min;
	return len;
}

/*
 * Places io (its dir set): offset and length.  Random offsets with one
 * block size come from the permutation (each block once per pass); with
 * several sizes or a --blockalign other than the size they are drawn on
 * their own, on the alignment, as fio's without its random map.  Returns
 * false when the range is done and the job is not to go round again.
 */
static bool pick_io(struct load_thread *t, struct load_io *io)
{
	const struct load_job_opts *o = t->o;
	bool again = t->ramping || o->time_based || o->loops > 1;
	int dir = io->dir;
	__u64 pos, len, ba;

	if (is_random(o->rw) && t->randommap) {
		if (t->perm_pos >= t->nblocks && !again)
			return false;
		len = o->bsz[dir].min;
		pos = perm_next(t) * len;
	} else if (is_random(o->rw)) {
		ba = load_blockalign(o, dir);
		len = pick_len(t, dir, o->size);
		if (o->dist.kind == LOAD_DIST_RANDOM) {
			pos = below(t, (o->size - len) / ba + 1) * ba;
		} else {
			__u64 r = rnd(t);

			pos = load_dist_next(&o->dist, &t->dist, r, rnd(t)) * ba;
			if (pos + len > o->size)
				pos = (o->size - len) / ba * ba;
		}
	} else {
		/* Each direction walks the range on its own, as fio's last
		 * position per direction. */
		pos = t->seq_pos[dir];
		len = pick_len(t, dir, o->size - pos);
		if (!len) {
			if (!again)
				return false;
			pos = 0;
			len = pick_len(t, dir, o->size);
		}
		t->seq_pos[dir] = pos + len;
	}
	io->offset = o->offset + pos;
	io->len = len;
	return true;
}

/* ---- the loop ---- */

static unsigned int depth_bucket(unsigned int depth)
{
	unsigned int b = 0;

	while (depth > 1 && b < LOAD_DEPTH_BUCKETS - 1) {
		depth >>= 1;
		b++;
	}
	return b;
}

/* This thread's CPU time, context switches and faults so far. */
static struct load_usage thread_usage(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (struct load_usage){
		.usr_ns = ru.ru_utime.tv_sec * 1000000000ULL + ru.ru_utime.tv_usec * 1000ULL,
		.sys_ns = ru.ru_stime.tv_sec * 1000000000ULL + ru.ru_stime.tv_usec * 1000ULL,
		.ctx = ru.ru_nvcsw + ru.ru_nivcsw,
		.majf = ru.ru_majflt, .minf = ru.ru_minflt,
	};
}

/* The statistics start here: after the ramp, or at the start. */
static void stats_start(struct load_thread *t, __u64 now)
{
	memset(t->st.dir, 0, sizeof(t->st.dir));
	memset(t->st.depth, 0, sizeof(t->st.depth));
	t->issued = 0;
	memset(t->seq_pos, 0, sizeof(t->seq_pos));
	new_pass(t);
	t->rate_start_ns = now;
	memset(t->rate_bytes, 0, sizeof(t->rate_bytes));
	memset(t->poisson_ns, 0, sizeof(t->poisson_ns));
	t->ramping = false;
	t->ru0 = thread_usage();
	/* Last: the sampler starts reading the counters when it sees it. */
	__atomic_store_n(&t->start_ns, now, __ATOMIC_RELEASE);
	if (t->o->runtime_ns)
		t->deadline_ns = now + t->o->runtime_ns;
}

/* Whether the job has more to issue, a sync due before it aside. */
static bool more_to_do(const struct load_thread *t)
{
	return !t->stop && !t->exhausted &&
	       (t->ramping || !t->budget || t->issued < t->budget);
}

static bool may_issue(const struct load_thread *t)
{
	return !t->sync_pending && more_to_do(t);
}

static void do_sync(struct load_thread *t)
{
	bool data = t->sync_pending == LOAD_SYNC_DATA;

	/* A diskless engine has nothing to sync, as fio's null. */
	if (t->fd >= 0 && (data ? fdatasync(t->fd) : fsync(t->fd)))
		load_job_err(t, data ? "fdatasync" : "fsync", 0, errno);
	t->sync_pending = 0;
}

/* fio's --fsync/--fdatasync N: a sync before the next I/O after every
 * N writes; fsync where both fall due. */
static void count_write(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;

	t->writes++;
	if (o->fsync && !(t->writes % o->fsync))
		t->sync_pending = LOAD_SYNC_FSYNC;
	else if (o->fdatasync && !(t->writes % o->fdatasync))
		t->sync_pending = LOAD_SYNC_DATA;
}

/* fio's rate_process=poisson: the gap to the next I/O is drawn from the
 * exponential distribution of the rate's mean gap, so that arrivals are a
 * Poisson process of that rate instead of evenly spaced. */
static void poisson_step(struct load_thread *t, int dir, __u64 len)
{
	double mean = 1e9 * (double)len / (double)t->rate_bps[dir];
	double u = (rnd(t) >> 11) * (1.0 / 9007199254740992.0);

	t->poisson_ns[dir] += (__u64)(-log1p(-u) * mean);
}

/* fio's rate_iops: a direction's next I/O is due when its bytes so far
 * would take that long at the rate times its smallest block size. */
static __u64 rate_due(const struct load_thread *t, int dir)
{
	if (!t->rate_bps[dir])
		return 0;
	if (t->o->rate_poisson)
		return t->rate_start_ns + t->poisson_ns[dir];
	return t->rate_start_ns + (__u64)((unsigned __int128)t->rate_bytes[dir] *
					  1000000000ULL / t->rate_bps[dir]);
}

/*
 * Whether an I/O may go now.  As fio's: where the picked direction of a
 * mix is ahead of its rate and the other is not, the other goes instead;
 * where both are ahead, the job waits for the sooner (t->wake_ns).
 */
static bool rate_allows(struct load_thread *t, int *dir, __u64 now)
{
	int other = *dir == LOAD_READ ? LOAD_WRITE : LOAD_READ;
	__u64 due = rate_due(t, *dir), odue;

	if (due <= now)
		return true;
	if (is_mix(t->o->rw) && load_dir_used(t->o, other)) {
		odue = rate_due(t, other);
		if (odue <= now) {
			*dir = other;
			return true;
		}
		if (odue < due)
			due = odue;
	}
	t->wake_ns = due;
	return false;
}

/* Sleeps towards t->wake_ns; at most 100 ms at a time, so that Ctrl-C,
 * the end of the ramp and the deadline are seen in time. */
static void rate_sleep(struct load_thread *t, __u64 now)
{
	__u64 until = t->wake_ns;
	struct timespec ts;

	if (until > now + 100000000ULL)
		until = now + 100000000ULL;
	if (t->deadline_ns && until > t->deadline_ns)
		until = t->deadline_ns;
	if (t->ramping && until > t->ramp_end_ns)
		until = t->ramp_end_ns;
	ts.tv_sec = until / 1000000000ULL;
	ts.tv_nsec = until % 1000000000ULL;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* A trim is the BLKDISCARD ioctl, done at once whatever the engine, as
 * fio 3.33 does; *res is the byte count or -errno. */
static void trim(struct load_thread *t, struct load_io *io, long *res)
{
	__u64 range[2] = { io->offset, io->len };

	if (t->eng->diskless)
		*res = io->len;
	else
		*res = ioctl(t->fd, BLKDISCARD, range) ? -errno : (long)io->len;
}

/* Prepares as many I/Os as there are free slots, budget and rate; a sync
 * engine (and every trim) does one and returns, so that the loop sees the
 * clock and the stop flag between any two.  Returns the latest clock read. */
static __u64 fill(struct load_thread *t, __u64 now)
{
	t->wake_ns = 0;
	while (t->nfree && may_issue(t)) {
		struct load_io *io;
		int dir = pick_dir(t);
		long res;

		if (!rate_allows(t, &dir, now))
			break;
		io = t->free[--t->nfree];
		io->dir = dir;
		if (!pick_io(t, io)) {
			t->free[t->nfree++] = io;
			t->exhausted = true;
			break;
		}
		io->counted = !t->ramping;
		t->issued += io->counted ? io->len : 0;
		t->rate_bytes[dir] += io->len;
		if (t->o->rate_poisson && t->rate_bps[dir])
			poisson_step(t, dir, io->len);
		if (dir == LOAD_WRITE)
			count_write(t);
		if (dir == LOAD_WRITE && t->o->verify)
			load_verify_fill(t, io);
		if (t->eng->sync || dir == LOAD_TRIM) {
			/* The call is the I/O: its time is clat. */
			io->t_start = io->t_issue = mono_ns();
			t->st.depth[0] += io->counted;
			if (dir == LOAD_TRIM)
				trim(t, io, &res);
			else
				t->eng->queue(t, io, &res);
			now = mono_ns();
			load_io_done(t, io, res, now);
			return now;
		}
		io->t_start = now;
		if (t->eng->queue(t, io, &res) == LOAD_Q_COMPLETED) {
			/* It could not be queued: done now, with its error. */
			io->t_issue = now;
			load_io_done(t, io, res, now);
			continue;
		}
		t->queued[t->nqueued++] = io;
	}
	return now;
}

static int submit(struct load_thread *t)
{
	unsigned int inflight, n = t->nqueued;
	__u64 now;
	int rc;

	if (!n)
		return 0;
	rc = t->eng->commit ? t->eng->commit(t) : 0;
	now = mono_ns();
	t->nqueued = 0;
	if (rc < 0) {
		/* Nothing of the batch is out: give the slots back. */
		for (unsigned int i = 0; i < n; i++)
			t->free[t->nfree++] = t->queued[i];
		load_job_err(t, "submit", t->queued[0]->offset, -rc);
		return rc;
	}
	inflight = t->depth - t->nfree;
	for (unsigned int i = 0; i < n; i++) {
		t->queued[i]->t_issue = now;
		t->st.depth[depth_bucket(inflight)] += t->queued[i]->counted;
	}
	return 0;
}

static void run_loop(struct load_thread *t)
{
	__u64 now = mono_ns();
	int rc;

	for (;;) {
		if (stop_requested() || (t->deadline_ns && now >= t->deadline_ns))
			t->stop = true;
		if (t->ramping && now >= t->ramp_end_ns)
			stats_start(t, now);
		now = fill(t, now);
		if (submit(t) < 0)
			break;
		if (t->nfree == t->depth) {
			/* A sync only before a next I/O, as fio's: none
			 * after the last write. */
			if (t->sync_pending && more_to_do(t)) {
				do_sync(t);
			} else if (t->wake_ns && more_to_do(t)) {
				rate_sleep(t, now);
			} else if (!may_issue(t)) {
				break;
			}
			now = mono_ns();
			continue;
		}
		rc = t->eng->reap(t, 1);
		if (rc < 0) {
			load_job_err(t, "reap", 0, -rc);
			break;
		}
		now = mono_ns();
	}
	/* After an error or a failed submit, still collect what is out. */
	while (t->nfree < t->depth && !t->eng->sync) {
		if (t->eng->reap(t, 1) < 0)
			break;
	}
}

/* Rounded up for whatever follows it in the engine's block. */
static size_t engine_align(size_t n)
{
	size_t a = _Alignof(max_align_t);

	return (n + a - 1) & ~(a - 1);
}

/* The engine's private data and per-slot arrays, as its row declares them,
 * then its init; on failure nothing is left allocated. */
static int engine_start(struct load_thread *t)
{
	const struct load_engine *e = t->eng;
	size_t at[LOAD_MAX_SLOTS], len = engine_align(e->priv_size);
	unsigned int n = 0;
	char *p;
	int rc;

	if (e->priv_size) {
		for (; n < LOAD_MAX_SLOTS && e->slots[n].size; n++) {
			at[n] = len;
			len += engine_align(e->slots[n].size * t->depth);
		}
		p = calloc(1, len);
		if (!p)
			return -ENOMEM;
		/* Each a pointer to an object type, the same in
		 * representation as void * on every target we build for. */
		for (unsigned int i = 0; i < n; i++)
			*(void **)(p + e->slots[i].at) = p + at[i];
		t->engine_data = p;
	}
	rc = e->init ? e->init(t) : 0;
	if (rc < 0) {
		free(t->engine_data);
		t->engine_data = NULL;
	}
	return rc;
}

static void engine_stop(struct load_thread *t)
{
	if (t->eng->exit)
		t->eng->exit(t);
	free(t->engine_data);
	t->engine_data = NULL;
}

static int thread_setup(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;
	size_t len;
	__u64 seed;
	int rc;

	/* Trims go one at a time on every engine, as fio's. */
	t->depth = t->eng->sync || load_dir_used(o, LOAD_TRIM) ? 1 : o->iodepth;
	/* Slots a page apart: each buffer as aligned as the first. */
	t->buf_len = (load_bs_max(o) + 4095) & ~4095ULL;
	len = (size_t)t->depth * t->buf_len;
	if (posix_memalign(&t->bufs, 4096, len))
		return -ENOMEM;
	t->ios = calloc(t->depth, sizeof(*t->ios));
	t->free = calloc(t->depth, sizeof(*t->free));
	t->queued = calloc(t->depth, sizeof(*t->queued));
	if (!t->ios || !t->free || !t->queued)
		return -ENOMEM;
	/* fio's randrepeat=0: other offsets every run. */
	seed = (o->randrepeat ? o->randseed : mono_ns()) +
	       (__u64)t->job_index * 0x1000193ULL;
	t->rng = splitmix(&seed) | 1;
	/* Data to write: random, so that compressing or deduplicating
	 * devices are not flattered; the same every run. */
	for (size_t i = 0; i + 8 <= len; i += 8) {
		__u64 v = rnd(t);

		memcpy((char *)t->bufs + i, &v, 8);
	}
	for (unsigned int i = 0; i < t->depth; i++) {
		t->ios[i].buf = (char *)t->bufs + (size_t)i * t->buf_len;
		t->ios[i].index = i;
		t->free[i] = &t->ios[t->depth - 1 - i];
	}
	t->nfree = t->depth;
	/* A distribution other than uniform has no random map, as fio's
	 * where norandommap is set (its examples always set it). */
	t->randommap = !o->norandommap && o->dist.kind == LOAD_DIST_RANDOM;
	if (o->dist.kind != LOAD_DIST_RANDOM)
		load_dist_init(&o->dist, &t->dist,
			       (o->size - load_bs_min(o)) / load_blockalign(o, load_dir_used(o, LOAD_READ) ? LOAD_READ : LOAD_WRITE) + 1,
			       seed);
	for (int d = 0; d < LOAD_DIRS; d++) {
		if (!load_dir_used(o, d))
			continue;
		/* One size for all, and fio's blockalign turns its map off. */
		if (o->bsz[d].min != o->bsz[d].max ||
		    o->bsz[d].min != load_bs_min(o) ||
		    load_blockalign(o, d) != o->bsz[d].min)
			t->randommap = false;
		if (o->rate[d])
			t->rate_bps[d] = o->rate[d];
		else if (o->rate_iops[d])
			t->rate_bps[d] = (__u64)o->rate_iops[d] * o->bsz[d].min;
		/* A paced job sleeps to each I/O's due time: the default
		 * 50 us of timer slack would come late by that much, and
		 * bunch a Poisson process's short gaps. */
		if (t->rate_bps[d])
			prctl(PR_SET_TIMERSLACK, 1UL);
	}
	t->nblocks = o->size / load_bs_min(o);
	t->feistel_half = 1;
	while ((1ULL << (2 * t->feistel_half)) < t->nblocks)
		t->feistel_half++;
	/* fio's loops: the range again, the budget stopping the last. */
	t->budget = o->time_based ? 0 : o->size * o->loops;
	new_pass(t);
	if (o->verify) {
		rc = load_verify_init(t);
		if (rc < 0)
			return rc;
	}
	/* fio's invalidate (default on): a read of the job is not of pages
	 * an earlier job or the layout left in the cache. */
	if (o->invalidate && t->fd >= 0)
		posix_fadvise(t->fd, o->offset, o->size, POSIX_FADV_DONTNEED);
	/* fio's fadvise_hint (default on): no readahead for a random job,
	 * more for a sequential one, so that the device sees what fio's
	 * job makes it see. */
	if (o->fadvise_hint && t->fd >= 0)
		posix_fadvise(t->fd, o->offset, o->size, is_random(o->rw) ?
			      POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
	rc = engine_start(t);
	return rc < 0 ? rc : 0;
}

static void thread_body(struct load_thread *t)
{
	struct load_usage u;
	__u64 now;
	int rc;

	/* Placed first: the buffers and the ring are then allocated near
	 * the CPU that uses them. */
	rc = load_cpus_place(t->o, t->job_index);
	if (rc < 0) {
		t->st.error = -rc;
		fprintf(stderr, "iolens load: job '%s': cannot set its CPUs: %s\n",
			t->o->name, strerror(-rc));
		return;
	}
	rc = thread_setup(t);
	if (rc < 0) {
		t->st.error = -rc;
		fprintf(stderr, "iolens load: job '%s': cannot set up %s: %s\n",
			t->o->name, t->eng->name, strerror(-rc));
		return;
	}
	now = mono_ns();
	t->ramping = t->o->ramp_ns > 0;
	t->ramp_end_ns = now + t->o->ramp_ns;
	t->rate_start_ns = now;
	if (t->o->runtime_ns)
		t->deadline_ns = now + t->o->ramp_ns + t->o->runtime_ns;
	if (!t->ramping)
		stats_start(t, now);
	if (!t->o->verify_only)
		run_loop(t);
	if (t->o->end_fsync && !t->st.error && !stop_requested()) {
		t->sync_pending = LOAD_SYNC_FSYNC;
		do_sync(t);
	}
	/* fio's verify: after the writes, a pass that reads them back. */
	if (t->o->verify && (t->o->do_verify || t->o->verify_only) &&
	    !t->st.error && !stop_requested())
		load_verify_pass(t);
	now = mono_ns();
	if (!t->ramping) {
		u = thread_usage();
		t->st.runtime_ns = now - t->start_ns;
		t->st.thread_ns = t->st.runtime_ns;
		t->st.usr_ns = u.usr_ns - t->ru0.usr_ns;
		t->st.sys_ns = u.sys_ns - t->ru0.sys_ns;
		t->st.ctx = u.ctx - t->ru0.ctx;
		t->st.majf = u.majf - t->ru0.majf;
		t->st.minf = u.minf - t->ru0.minf;
	}
	engine_stop(t);
}

/* fio's startdelay: the job waits this long after its turn comes, in
 * steps short enough to see a stop; false when one came. */
static bool start_delay(struct load_thread *t)
{
	__u64 until = mono_ns() + t->o->startdelay_ns;
	struct timespec ts = { 0, 100000000 };

	while (!stop_requested()) {
		__u64 now = mono_ns();

		if (now >= until)
			return true;
		if (until - now < 100000000ULL)
			ts.tv_nsec = until - now;
		nanosleep(&ts, NULL);
	}
	return false;
}

void *load_thread_run(void *arg)
{
	struct load_thread *t = arg;

	/* Behind a stonewall: the clock of the job starts after the wait. */
	if (t->gate && !load_gate_enter(t->gate, t->wave))
		return NULL;
	if (start_delay(t))
		thread_body(t);
	if (t->gate)
		load_gate_leave(t->gate);
	return NULL;
}
