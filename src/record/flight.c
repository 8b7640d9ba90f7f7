// SPDX-License-Identifier: GPL-2.0
/* record --ring, the flight recorder (include/record/flight.h). */
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "lib/clock.h"
#include "lib/devices.h"
#include "lib/log.h"
#include "lib/sanitize.h"
#include "lib/stop.h"
#include "lib/units.h"
#include "record/flight.h"
#include "record/ring.h"
#include "record/writer.h"

/* A file is closed this long after the end of its span: records of
 * requests completed before it may still be on their way from another
 * CPU's ring (see RING_SLACK_NS). */
#define SAVE_SLACK_NS	1000000000ULL
/* A save writes the ring out every CATCH_UP_EVERY requests drained, for
 * half the time since it last did, at most CATCH_UP_NS; and for
 * TICK_CATCH_UP_NS at each tick (when few come). */
#define CATCH_UP_EVERY		256
#define CATCH_UP_NS		2000000ULL
#define TICK_CATCH_UP_NS	50000000ULL
/* The drop counts kept, one a second: the longest span they cover. */
#define MARKS_MAX	86400

/* The tracer's losses at a tick, to tell those of a file's span. */
struct mark {
	__u64 t, dropped, untracked;
};

struct flight {
	const struct record_opts *o;
	struct trace_header h;		/* of the recording */
	struct block_trace *bt;
	struct kstacks *stacks;
	int workers;
	struct ring *ring;
	struct triggers *trig;
	struct rec_seen warm;		/* names looked up while in the ring */
	struct mark *marks;
	size_t nmarks;
	bool ring_short;		/* said that the ring lost requests */

	/* The file being saved, if any. */
	struct rec_writer *w;
	struct ring_cursor cur;		/* the ring's next chunk to write */
	unsigned int since;		/* requests since the last catch_up() */
	__u64 caught_at;		/* when it ended */
	__u64 ring_lost;		/* requests gone before they were written */
	char path[PATH_MAX];
	struct trace_trigger fire;
	__u64 dropped_base, untracked_base, dropped_seen;
	__u64 suppressed;		/* triggers fired while it was saved */

	unsigned long files;
	__u64 bytes;
	int ret;
};

static volatile sig_atomic_t usr1;
static __u64 usr1_at;

static void on_usr1(int sig)
{
	(void)sig;
	/* clock_gettime() is async-signal-safe. */
	usr1_at = mono_ns();
	usr1 = 1;
}

struct flight *flight_new(const struct record_opts *o, const struct trace_header *h,
			  struct block_trace *bt, struct kstacks *stacks, int workers)
{
	struct flight *fl = calloc(1, sizeof(*fl));

	if (!fl)
		return NULL;
	fl->o = o;
	fl->h = *h;
	fl->bt = bt;
	fl->stacks = stacks;
	fl->workers = workers;
	fl->ring = ring_new(o->ring_ns, o->ring_bytes);
	fl->trig = triggers_new(o->trig, o->ntrig);
	fl->marks = calloc(MARKS_MAX, sizeof(*fl->marks));
	if (!fl->ring || !fl->trig || !fl->marks) {
		ring_free(fl->ring);
		triggers_free(fl->trig);
		free(fl->marks);
		free(fl);
		return NULL;
	}
	return fl;
}

void flight_signals(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

/* The losses counted at the last tick at or before t (none before the
 * first). */
static const struct mark *mark_at(const struct flight *fl, __u64 t)
{
	static const struct mark none;
	const struct mark *m = &none;

	for (size_t i = 0; i < fl->nmarks && fl->marks[i].t <= t; i++)
		m = &fl->marks[i];
	return m;
}

static void add_mark(struct flight *fl, __u64 now)
{
	struct block_trace_stats c;
	__u64 keep = fl->o->ring_ns ? fl->o->ring_ns + 2 * SAVE_SLACK_NS : UINT64_MAX;
	size_t drop = 0;

	/* The marks older than any span a trigger can ask for leave. */
	while (drop < fl->nmarks && (fl->nmarks - drop >= MARKS_MAX ||
				     (now > keep && fl->marks[drop].t < now - keep)))
		drop++;
	memmove(fl->marks, fl->marks + drop, (fl->nmarks - drop) * sizeof(*fl->marks));
	fl->nmarks -= drop;
	block_trace_stats(fl->bt, &c);
	fl->marks[fl->nmarks++] = (struct mark){ now, block_trace_dropped(&c), c.untracked };
}

/* CLOCK_REALTIME at CLOCK_MONOTONIC `mono`, from both read now: the
 * offset at the start would be off after a suspend or a clock step, and
 * the recorder runs for weeks. */
static __u64 real_of(__u64 mono)
{
	struct timespec rt;
	__u64 now = mono_ns(), real;

	clock_gettime(CLOCK_REALTIME, &rt);
	real = (__u64)rt.tv_sec * 1000000000ULL + rt.tv_nsec;
	return mono <= now ? real - (now - mono) : real + (mono - now);
}

static void path_of(struct flight *fl, __u64 when)
{
	__u64 real = real_of(when);
	time_t secs = real / 1000000000ULL;
	char stamp[32] = "0";
	struct tm tm;
	struct stat st;

	if (localtime_r(&secs, &tm))
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(fl->path, sizeof(fl->path), "%s-%s.%03u.iol", fl->o->path, stamp,
		 (unsigned int)(real / 1000000 % 1000));
	/* Two in one millisecond (--after 0): the second gets a number. */
	for (int n = 2; !lstat(fl->path, &st) && n < 100; n++)
		snprintf(fl->path, sizeof(fl->path), "%s-%s.%03u-%d.iol", fl->o->path,
			 stamp, (unsigned int)(real / 1000000 % 1000), n);
}

/* A request of the file's span into it. */
static int save_rq(void *ctx, const struct iolens_rq *rq)
{
	struct flight *fl = ctx;

	return rec_writer_rq(fl->w, rq);
}

/*
 * The ring's chunks of the span into the file, for at most budget_ns (0:
 * all that are sealed).  A file is written a few chunks at a time, between
 * the records the tracer drains, so that a ring of millions of requests
 * does not stop the draining while the kernel's ring buffers fill; what
 * completes meanwhile goes to the ring, and to the file from there, in
 * the order it came.
 */
static void catch_up(struct flight *fl, __u64 budget_ns)
{
	__u64 start = mono_ns(), lost = 0;
	int ret;

	do
		ret = ring_replay_chunk(fl->ring, &fl->cur, fl->fire.from_ns, fl->fire.to_ns,
					save_rq, fl, &lost);
	while ((ret == 1 || ret == -2) && (!budget_ns || mono_ns() - start < budget_ns));
	fl->caught_at = mono_ns();
	/* What is left to write stays, however old, unless room is short. */
	ring_pin(fl->ring, fl->cur.seq);
	if (ret == -1 && !fl->ret) {
		fprintf(stderr, "iolens record: writing the ring out failed (out of memory, or the file)\n");
		fl->ret = 1;
	}
	if (lost) {
		/* Left the ring before their turn: the rate outran the save. */
		if (!fl->ring_lost)
			fprintf(stderr, "iolens record: the ring dropped requests before they were saved: --ring-max too small for this rate\n");
		fl->ring_lost += lost;
		if (rec_writer_lost(fl->w, lost))
			fl->ret = 1;
	}
}

static void save_begin(struct flight *fl, struct trace_trigger *f)
{
	const struct record_opts *o = fl->o;
	struct trace_header h = fl->h;
	const struct mark *m;
	char err[256], ago[16], after[16];
	__u64 from = fl->h.mono_ns;
	bool short_ring = false;

	if (o->ring_ns && f->mono_ns > o->ring_ns && f->mono_ns - o->ring_ns > from)
		from = f->mono_ns - o->ring_ns;
	/* With --ring SIZE, what it holds is all it was asked for. */
	if (ring_whole_from(fl->ring) > from) {
		from = ring_whole_from(fl->ring);
		short_ring = o->ring_ns;
	}
	f->from_ns = from;
	f->to_ns = f->mono_ns + o->after_ns;
	f->asked_ns = o->ring_ns;

	/* The file's time 0 is the start of its span. */
	h.mono_ns = from;
	h.real_ns = real_of(from);
	path_of(fl, f->mono_ns);
	fl->fire = *f;
	fl->w = rec_writer_open(fl->path, &h, f, fl->stacks, fl->workers, err, sizeof(err));
	if (!fl->w) {
		fprintf(stderr, "iolens record: %s\n", err);
		fl->ret = 1;
		stop_request();
		return;
	}
	/* The losses since the tick before the span: a bound on its own. */
	m = mark_at(fl, from);
	fl->dropped_base = m->dropped;
	fl->untracked_base = m->untracked;
	fl->dropped_seen = m->dropped;
	fl->suppressed = 0;
	rec_writer_dropped(fl->w, fl->bt, &fl->dropped_seen);
	fl->ring_lost = 0;
	fl->since = 0;
	ring_cursor_at(fl->ring, from, &fl->cur);
	catch_up(fl, CATCH_UP_NS);

	fmt_ns(ago, sizeof(ago), f->mono_ns > from ? f->mono_ns - from : 0);
	fmt_ns(after, sizeof(after), o->after_ns);
	fprintf(stderr, "iolens record: %s fired (%s", f->what, f->value);
	if (f->dev) {
		fputs(" on ", stderr);
		san_fputs_text(stderr, dev_name(f->dev));
	}
	if (f->pid)
		fprintf(stderr, ", pid %u", f->pid);
	fprintf(stderr, "): saving %s before and %s after to ", ago, after);
	san_fputs_text(stderr, fl->path);
	fputc('\n', stderr);
	/* Room, or a trigger's time further back than the ring keeps. */
	if (short_ring)
		fprintf(stderr, "iolens record: the ring held only %s before the trigger%s\n", ago,
			ring_cut_from(fl->ring) >= from ?
			": --ring-max is too small for the span at this rate" :
			", which fired further back than the ring keeps");
}

static void save_end(struct flight *fl, __u64 now)
{
	const struct record_opts *o = fl->o;
	struct block_trace_stats c;
	struct trace_end end = {};
	__u64 requests;
	char err[256];
	struct stat st;

	/* The rest of the span, the chunk being filled too. */
	if (ring_flush(fl->ring) && !fl->ret) {
		fprintf(stderr, "iolens record: out of memory for the ring's last chunk\n");
		fl->ret = 1;
	}
	catch_up(fl, 0);
	ring_pin(fl->ring, UINT64_MAX);
	requests = rec_writer_requests(fl->w);
	rec_writer_dropped(fl->w, fl->bt, &fl->dropped_seen);
	block_trace_stats(fl->bt, &c);
	end.mono_ns = now < fl->fire.to_ns ? now : fl->fire.to_ns;
	end.lost = fl->dropped_seen - fl->dropped_base + fl->ring_lost;
	end.untracked = c.untracked - fl->untracked_base;
	if (rec_writer_finish(fl->w, &end, err, sizeof(err))) {
		fputs("iolens record: writing ", stderr);
		san_fputs_text(stderr, fl->path);
		fprintf(stderr, " failed: %s\n", err);
		fl->ret = 1;
	}
	fl->w = NULL;
	fl->files++;
	if (!stat(fl->path, &st))
		fl->bytes += st.st_size;
	fprintf(stderr, "iolens record: %llu requests saved to ", (unsigned long long)requests);
	san_fputs_text(stderr, fl->path);
	if (now < fl->fire.to_ns)
		fputs(" (the recording ended before the span did)", stderr);
	if (fl->suppressed)
		fprintf(stderr, "; triggers fired %llu times more while it was saved",
			(unsigned long long)fl->suppressed);
	fputc('\n', stderr);
	if (fl->files >= o->max_files || fl->bytes >= o->max_bytes) {
		fprintf(stderr, "iolens record: %lu files of %llu bytes saved, the most --max-files and --max-bytes allow: ending\n",
			fl->files, (unsigned long long)fl->bytes);
		stop_request();
	}
}

/* A new file may begin: not ending, no failure, within the caps. */
static bool armed(const struct flight *fl)
{
	return !stop_requested() && !fl->ret && fl->files < fl->o->max_files &&
	       fl->bytes < fl->o->max_bytes;
}

/* What fired, if anything (`fired`: a trigger's, in *f), or SIGUSR1: a
 * new file if none is being saved, else counted in the one that is. */
static void fire(struct flight *fl, bool fired, struct trace_trigger *f)
{
	if (usr1) {
		/* Its time before the flag is cleared: a second signal in
		 * between only moves it later. */
		__u64 at = usr1_at;

		usr1 = 0;
		*f = (struct trace_trigger){ .what = "signal", .value = "SIGUSR1", .mono_ns = at };
		fired = true;
	}
	if (!fired)
		return;
	if (fl->w)
		fl->suppressed++;
	else if (armed(fl))
		save_begin(fl, f);
}

int flight_rq(struct flight *fl, const struct iolens_rq *rq)
{
	struct trace_trigger f = {};

	if (ring_add(fl->ring, rq) && !fl->ring_short) {
		fprintf(stderr, "iolens record: out of memory for the ring: it holds less than asked\n");
		fl->ring_short = true;
	}
	if (fl->w && ++fl->since >= CATCH_UP_EVERY) {
		/* At most half the time since the last: the other half is
		 * the draining's, which at high rates needs it. */
		__u64 now = mono_ns(), half = (now - fl->caught_at) / 2;

		fl->since = 0;
		catch_up(fl, half < CATCH_UP_NS ? half : CATCH_UP_NS);
	}
	if (!fl->w)
		rec_names_warm(&fl->warm, rq, fl->stacks);
	/* Every request counts in the triggers' windows, saving or not. */
	fire(fl, triggers_rq(fl->trig, rq, &f), &f);
	return fl->ret;
}

void flight_tick(struct flight *fl)
{
	__u64 now = mono_ns();
	struct trace_trigger f = {};
	bool fired = triggers_tick(fl->trig, now, &f);

	add_mark(fl, now);
	if (fl->w) {
		catch_up(fl, TICK_CATCH_UP_NS);
		rec_writer_dropped(fl->w, fl->bt, &fl->dropped_seen);
		if (rec_writer_sync(fl->w))
			fl->ret = 1;
		if (now > fl->fire.to_ns + SAVE_SLACK_NS)
			save_end(fl, now);
	}
	fire(fl, fired, &f);
}

int flight_end(struct flight *fl)
{
	struct block_trace_stats c;
	int ret;
	char b[16];

	if (fl->w)
		save_end(fl, mono_ns());
	fmt_bytes(b, sizeof(b), ring_bytes(fl->ring));
	fprintf(stderr, "iolens record: saved %lu file%s; the ring took %sB at the end; ",
		fl->files, fl->files == 1 ? "" : "s", b);
	block_trace_stats(fl->bt, &c);
	block_trace_print_stats(stderr, &c);
	ret = fl->ret;
	/* Ignored, not the default (which ends the process), until exit. */
	signal(SIGUSR1, SIG_IGN);
	ring_free(fl->ring);
	triggers_free(fl->trig);
	rec_seen_free(&fl->warm);
	free(fl->marks);
	free(fl);
	return ret;
}
