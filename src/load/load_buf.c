// SPDX-License-Identifier: GPL-2.0
/*
 * What the writes of a job carry, as fio 3.33 fills its buffers:
 *   - by default random, filled once, and each write scrambled: its offset
 *     and start time written into every 512-byte block, so that no two
 *     writes are alike for a deduplicating device (scramble_buffers);
 *   - zero_buffers: zeros; buffer_pattern: the pattern over and over;
 *   - refill_buffers: new random data for every write;
 *   - buffer_compress_percentage: in every chunk (buffer_compress_chunk,
 *     512 bytes, or the smallest write if less) the first (100 - N)% of
 *     bytes random, the rest zeros (or the pattern); refilled each write
 *     unless refill_buffers=0 is given; 100 is zero_buffers;
 *   - dedupe_percentage: that share of writes, drawn write by write, a
 *     copy of the last unique one (dedupe_mode=repeat), or of one of the
 *     first unique ones, dedupe_working_set_percentage of the job's size
 *     (working_set); with dedupe_global those are taken in turn from
 *     every thread's first unique writes, so that jobs repeat each
 *     other's.
 * Each chunk of a refilled buffer has a seed of its own, drawn from the
 * thread's generator; a repeated write draws the same seeds again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/clock.h"
#include "load/buf.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/opts.h"

/* xorshift64: the data generator; *x never 0. */
static __u64 xorshift(__u64 *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x;
}

/* A seed for a chunk: xorshift64* of the thread's state. */
static __u64 next_seed(__u64 *state)
{
	return xorshift(state) * 0x2545f4914f6cdd1dULL;
}

void load_buf_random(void *p, size_t len, __u64 seed)
{
	__u64 x = seed | 1, v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = xorshift(&x);
		memcpy((char *)p + i, &v, 8);
	}
	if (i < len) {
		v = xorshift(&x);
		memcpy((char *)p + i, &v, len - i);
	}
}

const char *load_buf_check(const struct load_job_opts *o,
			   const struct load_job_opts *prev __attribute__((unused)))
{
	if (!o->dedupe_pct || !o->dedupe_working_set)
		return NULL;
	if (!o->size)
		return "dedupe_mode=working_set needs --size, of which the working set is a share";
	if (o->dedupe_pct + o->dedupe_ws_pct > 100)
		return "dedupe_percentage and dedupe_working_set_percentage add up to more than 100";
	return NULL;
}

/* fio's chunk: buffer_compress_chunk, or the smallest write if less. */
static __u64 chunk_of(const struct load_job_opts *o)
{
	__u64 c = o->bsz[LOAD_WRITE].min;

	return o->buf_compress_chunk && o->buf_compress_chunk < c ? o->buf_compress_chunk : c;
}

int load_buf_plan(struct load_thread *th, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct load_job_opts *o = th[i].o;

		th[i].buf_seed = ((o->randrepeat ? o->randseed : mono_ns()) ^ 0x6a09e667f3bcc909ULL) +
				 (__u64)i * 0x9e3779b97f4a7c15ULL;
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct load_job_opts *o = th[i].o;
		struct load_thread *t = &th[i];
		__u64 pages, per, state, steps, k = i;

		if (!o->dedupe_pct || !o->dedupe_working_set)
			continue;
		pages = o->size * o->dedupe_ws_pct / 100 / o->bsz[LOAD_WRITE].min;
		t->dedupe_ws = calloc(pages ? pages : 1, sizeof(*t->dedupe_ws));
		if (!t->dedupe_ws)
			return -ENOMEM;
		t->dedupe_nws = pages;
		/* Page p: the state the thread's p-th unique write starts
		 * from; global, a run of pages from each thread in turn. */
		steps = o->bsz[LOAD_WRITE].min / chunk_of(o);
		per = pages / n ? pages / n : 1;
		state = t->buf_seed | 1;
		for (__u64 p = 0; p < pages; p++) {
			if (p) {
				for (__u64 s = 0; s < steps; s++)
					next_seed(&state);
				if (o->dedupe_global && p % per == 0)
					state = th[++k % n].buf_seed | 1;
			}
			t->dedupe_ws[p] = state;
		}
	}
	return 0;
}

void load_pattern_fill(const struct load_pattern *pat, void *p, size_t len)
{
	if (!pat->len) {
		memset(p, 0, len);
		return;
	}
	for (size_t i = 0; i < len; i += pat->len)
		memcpy((char *)p + i, pat->b, len - i < pat->len ? len - i : pat->len);
}

/* The buffer pattern (or zeros) over len bytes. */
static void pattern(const struct load_job_opts *o, char *p, size_t len)
{
	load_pattern_fill(&o->buf_pattern, p, len);
}

/*
 * fio's __fill_random_buf_percentage(): chunk by chunk, (100 - pct)% of
 * it random from the chunk's seed, then the pattern (or zeros); what is
 * left after a chunk's random part within a word of the end is pattern.
 */
static void fill_compressible(const struct load_job_opts *o, char *p, size_t len,
			      size_t chunk, __u64 *state)
{
	unsigned int pct = o->buf_compress_pct;

	while (len) {
		size_t seg = chunk < len ? chunk : len, rnd = seg * (100 - pct) / 100, rest;

		load_buf_random(p, rnd, next_seed(state));
		p += rnd;
		len -= rnd;
		if (!len)
			break;
		rest = seg - rnd;
		if (len - rest <= sizeof(long))
			rest = len;
		pattern(o, p, rest);
		p += rest;
		len -= rest;
	}
}

void load_buf_start(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;
	size_t len = (size_t)t->depth * t->buf_len;
	bool compress = o->buf_compress_pct && o->buf_compress_pct < 100;

	t->buf_rng = t->buf_seed | 1;
	t->dedupe_rng = (t->buf_seed ^ 0x9e3779b97f4a7c15ULL) | 1;
	t->buf_chunk = chunk_of(o);
	/* fio's: compressible data is refilled unless told not to be. */
	t->buf_refill = o->refill_buffers ||
			((compress || o->dedupe_pct) && !load_opt_given(o, "refill_buffers"));
	/* And scrambled where it is neither that, nor zeros asked for,
	 * nor verify's. */
	t->buf_scramble = o->scramble_buffers && !t->buf_refill && !o->buf_compress_pct && !o->verify &&
			  !(o->zero_buffers && !load_opt_given(o, "scramble_buffers"));
	if (o->zero_buffers || o->buf_compress_pct == 100 || o->buf_pattern.len)
		pattern(o, t->bufs, len);
	else if (compress)
		fill_compressible(o, t->bufs, len, t->buf_chunk, &t->buf_rng);
}

/* fio's small_content_scramble(): the write's offset at one of the eight
 * cachelines of each 512-byte block (by its time and offset), its start
 * time at the end of the first. */
static void scramble(struct load_io *io, __u64 now)
{
	unsigned int line = (now ^ io->offset) & 7;
	__u64 off = io->offset, t[2] = { now / 1000000000ULL, now % 1000000000ULL };
	char *p = io->buf;

	for (__u32 i = 0; i + 512 <= io->len; i += 512, off += 512) {
		memcpy(p + i + line * 64, &off, 8);
		memcpy(p + i + 64 - sizeof(t), t, sizeof(t));
	}
}

void load_buf_fill(struct load_thread *t, struct load_io *io, __u64 now)
{
	const struct load_job_opts *o = t->o;
	__u64 state;
	bool repeat;

	if (!t->buf_refill) {
		if (t->buf_scramble)
			scramble(io, now);
		return;
	}
	if (o->zero_buffers || o->buf_pattern.len) {
		pattern(o, io->buf, io->len);
		return;
	}
	/* A repeat starts from where the last unique write started, or
	 * where one of the working set's did. */
	repeat = o->dedupe_pct && (t->buf_unique || t->dedupe_nws) &&
		 next_seed(&t->dedupe_rng) % 100 < o->dedupe_pct;
	state = !repeat ? t->buf_rng :
		t->dedupe_nws ? t->dedupe_ws[next_seed(&t->dedupe_rng) % t->dedupe_nws] :
		t->buf_prev;
	if (!repeat) {
		t->buf_prev = t->buf_rng;
		t->buf_unique = true;
	}
	if (o->buf_compress_pct)
		fill_compressible(o, io->buf, io->len, t->buf_chunk, &state);
	else
		for (__u32 i = 0; i < io->len; i += t->buf_chunk)
			load_buf_random((char *)io->buf + i,
					io->len - i < t->buf_chunk ? io->len - i : t->buf_chunk,
					next_seed(&state));
	if (!repeat)
		t->buf_rng = state;
}
