// SPDX-License-Identifier: GPL-2.0
/*
 * One job thread of iolens load: picks offsets, keeps iodepth I/Os in
 * flight through its engine, and times each I/O with CLOCK_MONOTONIC
 * (vDSO, no syscall).  The clock is read once per batch, not per I/O: a
 * batch is prepared, submitted or reaped within nanoseconds, and the
 * reads would otherwise be a good part of the cost per I/O.
 */
#include <errno.h>
#include <sched.h>
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
#include <sys/stat.h>
#include "lib/log.h"
#include "lib/clock.h"
#include "load/cpus.h"
#include "load/buf.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"
#include "load/target.h"
#include "load/opts.h"
#include "load/verify.h"
#include "lib/stop.h"

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

/* The statistics start again from here: at the start, after the ramp,
 * or (latency_target) for the final window at the depth found; as fio's
 * reset_all_stats(), the job's bytes and its runtime too. */
static void stats_reset(struct load_thread *t, __u64 now)
{
	memset(t->st.dir, 0, sizeof(t->st.dir));
	memset(t->st.depth, 0, sizeof(t->st.depth));
	memset(t->st.lat_dist, 0, sizeof(t->st.lat_dist));
	load_prio_reset(&t->st);
	load_latgoal_start(t, now);
	t->issued = 0;
	t->nissued = 0;
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

/* After the ramp, or at the start: the offsets from the start too. */
static void stats_start(struct load_thread *t, __u64 now)
{
	load_offsets_rewind(t);
	stats_reset(t, now);
}

/* Whether the job has more to issue, a sync due before it aside: not
 * stopped, and within its bytes and fio's number_ios (times loops). */
static bool more_to_do(const struct load_thread *t)
{
	const struct load_job_opts *o = t->o;

	return !t->stop && !t->exhausted &&
	       (t->ramping || ((!t->budget || t->issued < t->budget) &&
			       (!o->number_ios || t->nissued < o->number_ios * o->loops)));
}

static bool may_issue(const struct load_thread *t)
{
	return !t->sync_pending && more_to_do(t);
}

static void do_sync(struct load_thread *t)
{
	bool data = t->sync_pending == LOAD_SYNC_DATA;

	/* A diskless engine has nothing to sync, as fio's null; each of
	 * several files is synced, as fio's. */
	for (unsigned int i = 0; i < t->nfiles; i++) {
		int fd = t->files[i].fd;

		if (fd >= 0 && (data ? fdatasync(fd) : fsync(fd))) {
			load_job_err(t, data ? "fdatasync" : "fsync", 0, errno);
			break;
		}
	}
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
	double u = (load_rnd(t) >> 11) * (1.0 / 9007199254740992.0);

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

static bool is_mix(int rw)
{
	return rw == LOAD_RW_RW || rw == LOAD_RW_RANDRW;
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

/*
 * Asleep until the monotonic clock reads until (never past the deadline),
 * in steps of at most 100 ms so that Ctrl-C and exitall are seen in time;
 * false when one of them ended the wait early.
 */
static bool sleep_until(struct load_thread *t, __u64 until)
{
	if (t->deadline_ns && until > t->deadline_ns)
		until = t->deadline_ns;
	for (;;) {
		__u64 now = mono_ns(), step = until;
		struct timespec ts;

		if (stop_requested() || load_thread_terminated(t))
			return false;
		if (now >= until)
			return true;
		if (step > now + 100000000ULL)
			step = now + 100000000ULL;
		ts = ns_timespec(step);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* The most completions a reap takes: iodepth_batch_complete_max, or all. */
static unsigned int reap_max(const struct load_thread *t)
{
	return t->o->batch_complete_max ? t->o->batch_complete_max : t->depth;
}

/* Every I/O in flight collected: before a pause, and at the end. */
static void drain(struct load_thread *t)
{
	while (!t->eng->sync && t->nfree < t->depth) {
		if (t->eng->reap(t, 1, reap_max(t), 0) < 0)
			return;
	}
}

/* A paced job asleep until its next I/O is due, or the ramp ends. */
static void rate_sleep(struct load_thread *t)
{
	__u64 until = t->wake_ns;

	if (t->ramping && until > t->ramp_end_ns)
		until = t->ramp_end_ns;
	sleep_until(t, until);
}

/*
 * fio's thinktime: after every thinktime_blocks I/Os (completed, or with
 * thinktime_blocks_type=issue issued) the job drains its queue and pauses.
 * Whether a pause is now due; it is taken once the batch is submitted.
 */
static bool think_due(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;
	__u64 b = o->think_on_issue ? t->think_issued : t->think_done;

	if (!o->think_ns || b < t->think_last + o->think_blocks)
		return false;
	t->think_last = b;
	t->think_pending = true;
	return true;
}

/* The pause: the queue drained, thinktime_spin on the CPU, the rest
 * asleep; never past the deadline. */
static void think(struct load_thread *t)
{
	__u64 now, spin_end, end;

	drain(t);
	now = mono_ns();
	spin_end = now + t->o->think_spin_ns;
	end = now + t->o->think_ns;
	if (spin_end > end)
		spin_end = end;
	if (t->deadline_ns && spin_end > t->deadline_ns)
		spin_end = t->deadline_ns;
	while (mono_ns() < spin_end)
		;
	sleep_until(t, end);
	t->think_pending = false;
}

/* Ahead of its flow's share: as fio's, the queue drained and flow_sleep
 * asleep, or without one a yield before trying again. */
static void flow_wait(struct load_thread *t)
{
	t->flow_held = false;
	if (!t->o->flow_sleep_ns) {
		sched_yield();
		return;
	}
	drain(t);
	sleep_until(t, mono_ns() + t->o->flow_sleep_ns);
}

/* A trim is the BLKDISCARD ioctl, done at once whatever the engine, as
 * fio 3.33 does; *res is the byte count or -errno. */
static void trim(struct load_thread *t, struct load_io *io, long *res)
{
	__u64 range[2] = { io->offset, io->len };

	if (t->eng->diskless)
		*res = io->len;
	else
		*res = ioctl(io->fd, BLKDISCARD, range) ? -errno : (long)io->len;
}

/* Prepares as many I/Os as there are free slots, budget and rate; a sync
 * engine (and every trim) does one and returns, so that the loop sees the
 * clock and the stop flag between any two.  Returns the latest clock read. */
static __u64 fill(struct load_thread *t, __u64 now)
{
	t->wake_ns = 0;
	t->flow_held = false;
	t->batch_full = false;
	while (t->nfree && t->depth - t->nfree < t->lat.qd && may_issue(t)) {
		struct load_io *io;
		int dir = load_pick_dir(t);
		long res;

		if (!rate_allows(t, &dir, now))
			break;
		if (t->flow && !load_flow_allows(t)) {
			t->flow_held = true;
			break;
		}
		io = t->free[--t->nfree];
		io->dir = dir;
		if (!load_pick_io(t, io)) {
			t->free[t->nfree++] = io;
			t->exhausted = true;
			break;
		}
		if (t->prio.per_io) {
			load_prio_pick(t, io);
		} else {
			io->ioprio = t->prio.ioprio;
			io->prio_stat = LOAD_PRIO_NO_STATS;
		}
		io->counted = !t->ramping;
		t->issued += io->counted ? io->len : 0;
		t->nissued += io->counted;
		t->think_issued++;
		t->rate_bytes[dir] += io->len;
		if (t->o->rate_poisson && t->rate_bps[dir])
			poisson_step(t, dir, io->len);
		if (dir == LOAD_WRITE)
			count_write(t);
		if (dir == LOAD_WRITE && t->o->verify)
			load_verify_fill(t, io);
		else if (dir == LOAD_WRITE && (t->buf_refill || t->buf_scramble))
			load_buf_fill(t, io, now);
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
			think_due(t);
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
		if (think_due(t))
			break;
		if (t->o->batch_submit && t->nqueued >= t->o->batch_submit) {
			t->batch_full = true;
			break;
		}
		if (t->backlog_due)
			break;
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

/*
 * Completions, as fio's wait_for_completions(): iodepth_batch_complete_min
 * at least (never 0: the loop reaps only when it can issue nothing more),
 * _max at most; and a queue that was full is refilled only once no more
 * than iodepth_low are in flight.  With io_submit_mode=offload, a paced
 * job with a slot free waits no longer than its next I/O is due: issue
 * keeps the rate's clock whatever the device's completions do, which is
 * what fio's submit threads are for.
 */
static int reap_turn(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;
	unsigned int inflight = t->depth - t->nfree;
	unsigned int min = o->batch_complete_min < inflight ? o->batch_complete_min : inflight;
	unsigned int max = reap_max(t);
	unsigned int low = o->iodepth_low && o->iodepth_low < t->depth ? o->iodepth_low : t->depth;
	bool full = !t->nfree || inflight >= t->lat.qd;
	__u64 until = o->submit_offload && !full ? t->wake_ns : 0;
	int rc;

	if (!min)
		min = 1;
	if (max < min)
		max = min;
	do {
		rc = t->eng->reap(t, min, max, until);
		inflight = t->depth - t->nfree;
		if (min > inflight)
			min = inflight;
	} while (rc >= 0 && full && inflight > low && !stop_requested());
	return rc;
}

/* fio's latency_target between two turns of the loop: the window judged,
 * and what that asks: drain, start the statistics again, end.  False
 * when the job fails it. */
static bool latgoal_turn(struct load_thread *t, __u64 now)
{
	struct load_latgoal *l = &t->lat;

	if (!t->ramping)
		load_latgoal_check(t, now);
	if (l->quiesce) {
		l->quiesce = false;
		drain(t);
		now = mono_ns();
	}
	if (l->fatal) {
		if (!t->st.error)
			t->st.error = ETIMEDOUT;
		fprintf(stderr, "iolens load: job '%s': an I/O took %llu ns at depth 1, over latency_target (%llu ns): no depth meets it\n",
			log_name(t->o->name), (unsigned long long)l->fatal_ns,
			(unsigned long long)t->o->latency_target_ns);
		return false;
	}
	if (l->restart) {
		l->restart = false;
		stats_reset(t, now);
	}
	if (l->done)
		t->stop = true;
	return true;
}

static void run_loop(struct load_thread *t)
{
	__u64 now = mono_ns();
	int rc;

	for (;;) {
		if (stop_requested() || load_thread_terminated(t) ||
		    (t->deadline_ns && now >= t->deadline_ns))
			t->stop = true;
		if (t->ramping && now >= t->ramp_end_ns)
			stats_start(t, now);
		if (t->o->latency_target_ns && !latgoal_turn(t, now))
			break;
		now = fill(t, now);
		if (submit(t) < 0)
			break;
		if (t->batch_full) {
			now = mono_ns();
			continue;
		}
		if (t->backlog_due) {
			/* fio's verify_backlog: the next I/Os read back. */
			drain(t);
			load_verify_backlog(t, t->o->verify_backlog_batch ?
					       t->o->verify_backlog_batch : t->o->verify_backlog);
			now = mono_ns();
			continue;
		}
		if (t->think_pending && more_to_do(t)) {
			think(t);
			now = mono_ns();
			continue;
		}
		if (t->flow_held && (t->o->flow_sleep_ns || t->nfree == t->depth)) {
			flow_wait(t);
			now = mono_ns();
			continue;
		}
		if (t->nfree == t->depth) {
			/* A sync only before a next I/O, as fio's: none
			 * after the last write. */
			if (t->sync_pending && more_to_do(t)) {
				do_sync(t);
			} else if (t->wake_ns && more_to_do(t)) {
				rate_sleep(t);
			} else if (!may_issue(t)) {
				break;
			}
			now = mono_ns();
			continue;
		}
		rc = reap_turn(t);
		if (rc < 0) {
			load_job_err(t, "reap", 0, -rc);
			break;
		}
		now = mono_ns();
	}
	/* After an error or a failed submit, still collect what is out. */
	drain(t);
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
	bool several;
	size_t len;
	__u64 seed, pass;
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
	load_offsets_seed(t, &seed);
	/* Data to write: random, so that compressing or deduplicating
	 * devices are not flattered; the same every run; then what fio's
	 * buffer options make of it (load_buf.c). */
	for (size_t i = 0; i + 8 <= len; i += 8) {
		__u64 v = load_rnd(t);

		memcpy((char *)t->bufs + i, &v, 8);
	}
	load_buf_start(t);
	for (unsigned int i = 0; i < t->depth; i++) {
		t->ios[i].buf = (char *)t->bufs + (size_t)i * t->buf_len;
		t->ios[i].index = i;
		t->free[i] = &t->ios[t->depth - 1 - i];
	}
	t->nfree = t->depth;
	/* A distribution other than uniform has no random map, as fio's
	 * where norandommap is set (its examples always set it). */
	t->randommap = !o->norandommap && o->dist.kind == LOAD_DIST_RANDOM &&
		       load_rw_random(o->rw);
	several = false;
	if (o->dist.kind != LOAD_DIST_RANDOM)
		load_dist_init(&o->dist, &t->dist,
			       (t->files[0].size - load_bs_min(o)) / load_blockalign(o, load_dir_used(o, LOAD_READ) ? LOAD_READ : LOAD_WRITE) + 1,
			       seed);
	for (int d = 0; d < LOAD_DIRS; d++) {
		if (!load_dir_used(o, d))
			continue;
		/* The permutation: one size for all.  The bitmap: sizes that
		 * are multiples of one smallest size, which every direction
		 * has.  fio's blockalign turns its map off. */
		if (o->bsz[d].min != load_bs_min(o) ||
		    load_blockalign(o, d) != o->bsz[d].min)
			t->randommap = false;
		several |= o->bsz[d].min != o->bsz[d].max;
		if (o->rate[d])
			t->rate_bps[d] = o->rate[d];
		else if (o->rate_iops[d])
			t->rate_bps[d] = (__u64)o->rate_iops[d] * o->bsz[d].min;
		/* A paced job sleeps to each I/O's due time, a thinking one
		 * for its thinktime: the default 50 us of timer slack would
		 * come late by that much, and bunch a Poisson process's
		 * short gaps. */
		if (t->rate_bps[d] || o->think_ns)
			prctl(PR_SET_TIMERSLACK, 1UL);
	}
	rc = load_offsets_map(t, t->randommap && several);
	if (rc < 0)
		return rc;
	t->randommap &= !several;
	/* fio's loops: the files' ranges again, the budget stopping the
	 * last, each pass of whole blocks (a file's tail short of one is
	 * not read, as fio's) and at most size= (of files that filesize
	 * made larger); fio's io_size: that many bytes instead. */
	pass = 0;
	for (unsigned int i = 0; i < t->nfiles; i++)
		pass += t->files[i].size / load_bs_min(o) * load_bs_min(o);
	if (pass > o->size)
		pass = o->size;
	t->budget = o->time_based ? 0 : o->io_size ? o->io_size : pass * o->loops;
	if (o->verify) {
		rc = load_verify_init(t);
		if (rc < 0)
			return rc;
	}
	for (unsigned int i = 0; i < t->nfiles; i++) {
		const struct load_file *f = &t->files[i];

		if (f->fd < 0)
			continue;
		/* fio's invalidate (default on): a read of the job is not of
		 * pages an earlier job or the layout left in the cache. */
		if (o->invalidate)
			posix_fadvise(f->fd, o->offset, f->size, POSIX_FADV_DONTNEED);
		/* fio's fadvise_hint (default on): no readahead for a random
		 * job, more for a sequential one, so that the device sees
		 * what fio's job makes it see. */
		if (o->fadvise_hint)
			posix_fadvise(f->fd, o->offset, f->size, load_rw_random(o->rw) ?
				      POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
	}
	rc = engine_start(t);
	return rc < 0 ? rc : 0;
}

/* A step before the first I/O failed (rc < 0): the job ends with it. */
static bool setup_failed(struct load_thread *t, int rc, const char *what)
{
	if (rc >= 0)
		return false;
	t->st.error = -rc;
	fprintf(stderr, "iolens load: job '%s': cannot %s: %s\n", log_name(t->o->name), what,
		strerror(-rc));
	return true;
}

static void thread_body(struct load_thread *t)
{
	struct load_usage u;
	char what[64];
	__u64 now;

	/* Placed first: the buffers and the ring are then allocated near
	 * the CPU that uses them. */
	if (setup_failed(t, load_cpus_place(t->o, t->job_index, t->together), "set its CPUs"))
		return;
	/* Before the engine: a ring's kernel thread (sqthread_poll) takes
	 * the priority of the thread that makes it. */
	if (setup_failed(t, load_prio_start(t), "set its I/O priority"))
		return;
	snprintf(what, sizeof(what), "set up %s", t->eng->name);
	if (setup_failed(t, thread_setup(t), what))
		return;
	now = mono_ns();
	t->ramping = t->o->ramp_ns > 0;
	t->ramp_end_ns = now + t->o->ramp_ns;
	t->rate_start_ns = now;
	load_latgoal_start(t, now);
	if (t->o->runtime_ns)
		t->deadline_ns = now + t->o->ramp_ns + t->o->runtime_ns;
	if (!t->ramping)
		stats_start(t, now);
	load_flow_join(t);
	if (!load_verify_reads_only(t->o))
		run_loop(t);
	load_flow_leave(t);
	if (t->o->end_fsync && !t->st.error && !stop_requested()) {
		t->sync_pending = LOAD_SYNC_FSYNC;
		do_sync(t);
	}
	/* fio's verify: after the writes, a pass that reads them back. */
	if (t->o->verify && (t->o->do_verify || load_verify_reads_only(t->o)) &&
	    !t->st.error && !stop_requested())
		load_verify_pass(t);
	now = mono_ns();
	if (!t->ramping) {
		u = thread_usage();
		t->st.runtime_ns = now - t->start_ns;
		t->st.latency_depth = t->lat.qd;
		t->st.thread_ns = t->st.runtime_ns;
		t->st.usr_ns = u.usr_ns - t->ru0.usr_ns;
		t->st.sys_ns = u.sys_ns - t->ru0.sys_ns;
		t->st.ctx = u.ctx - t->ru0.ctx;
		t->st.majf = u.majf - t->ru0.majf;
		t->st.minf = u.minf - t->ru0.minf;
	}
	if (load_iolog_close(t, now) < 0) {
		fprintf(stderr, "iolens load: job '%s': its logs could not be written: %s\n",
			log_name(t->o->name), strerror(EIO));
		if (!t->st.error)
			t->st.error = EIO;
	}
	engine_stop(t);
}

/* fio's startdelay: the job waits this long after its turn comes; false
 * when a stop came first. */
static bool start_delay(struct load_thread *t)
{
	return sleep_until(t, mono_ns() + t->o->startdelay_ns);
}

void load_thread_free(struct load_thread *t)
{
	free(t->ios);
	free(t->free);
	free(t->queued);
	free(t->bufs);
	free(t->written);
	free(t->backlog);
	free(t->dedupe_ws);
	for (unsigned int i = 0; t->files && i < t->nfiles; i++)
		free(t->files[i].used);
}

void *load_thread_run(void *arg)
{
	struct load_thread *t = arg;

	/* Behind a stonewall: the clock of the job starts after the wait. */
	if (!t->gate || load_gate_enter(t->gate, t)) {
		if (start_delay(t))
			thread_body(t);
	}
	if (t->gate)
		load_gate_leave(t->gate, t);
	return NULL;
}
