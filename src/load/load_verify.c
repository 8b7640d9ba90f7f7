// SPDX-License-Identifier: GPL-2.0
/*
 * fio's verify: each block written (or with verify_interval each piece of
 * it) carries a header (a magic, its length, its own offset, the seed of
 * its data and its number among the job's writes) and the digest of the
 * kind's checksum (load_csum.c: crc32c, md5, sha256...) over the whole
 * with that field zeroed, followed by data drawn from the seed, or
 * verify_pattern; meta checks the header alone (and the pattern), pattern
 * has no header: the pattern is all of it.  After the
 * writes a pass reads back every block written and checks it, so that a
 * block that is not where it was written (a misdirected write) fails as
 * surely as one whose bytes changed; a job that does not write checks the
 * blocks of its range, as fio's reads verify what they read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "load/buf.h"
#include "load/csum.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/load.h"
#include "load/opts.h"
#include "load/verify.h"

#define VERIFY_MAGIC 0x76736c69	/* "ilsv" */

struct vhdr {
	__u32 magic;
	__u32 len;
	__u64 offset;
	__u64 seed;
	__u64 numberio;
	__u32 sum_len;		/* bytes of the digest after the header */
	__u32 zero;
};

int load_verify_init(struct load_thread *t)
{
	__u64 nblocks = t->o->size / load_bs_min(t->o);

	t->verify_bs = load_bs_min(t->o);
	t->verify_nonce = mono_ns() ^ (__u64)getpid() << 32;
	t->written = calloc((nblocks + 63) / 64, sizeof(*t->written));
	return t->written ? 0 : -ENOMEM;
}

/* The seed of the block at `offset` in this run: a block that a lost
 * write left as an earlier run wrote it has another (checked unless
 * verify_only, which checks an earlier run's blocks). */
static __u64 seed_of(const struct load_thread *t, __u64 offset)
{
	return (offset + 1) * 0x9e3779b97f4a7c15ULL ^ t->verify_nonce;
}

bool load_verify_reads_only(const struct load_job_opts *o)
{
	return o->verify_only || (o->verify && !load_dir_used(o, LOAD_WRITE));
}

/* What a header covers: verify_interval bytes, or the block. */
static __u32 unit_of(const struct load_job_opts *o)
{
	return o->verify_interval ? o->verify_interval : load_bs_min(o);
}

static void fill_unit(struct load_thread *t, char *p, __u32 len, __u64 offset,
		      __u64 numberio)
{
	const struct load_job_opts *o = t->o;
	const struct load_csum *cs = load_csum_of(o->verify);
	struct vhdr *h = (struct vhdr *)p;
	__u32 head = sizeof(*h) + (cs ? cs->len : 0);

	if (o->verify == LOAD_VERIFY_PATTERN) {
		load_pattern_fill(&o->verify_pattern, p, len);
		return;
	}
	h->magic = VERIFY_MAGIC;
	h->len = len;
	h->offset = offset;
	h->seed = seed_of(t, offset);
	h->numberio = numberio;
	h->sum_len = cs ? cs->len : 0;
	h->zero = 0;
	if (o->verify_pattern.len)
		load_pattern_fill(&o->verify_pattern, p + head, len - head);
	else
		load_buf_random(p + head, len - head, h->seed);
	if (cs) {
		memset(p + sizeof(*h), 0, cs->len);
		cs->sum(p, len, (unsigned char *)p + sizeof(*h));
	}
}

static void hex(const unsigned char *b, unsigned int n, char *out)
{
	for (unsigned int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* verify_backlog: the write at `offset` to read back in its turn; a
 * batch is due after every verify_backlog of them not yet read back, as
 * fio's io_hist_len. */
static void backlog_push(struct load_thread *t, __u64 offset)
{
	if (t->backlog_head + t->backlog_n == t->backlog_cap && t->backlog_head) {
		/* Room at the front: the pending ones moved there. */
		memmove(t->backlog, t->backlog + t->backlog_head,
			t->backlog_n * sizeof(*t->backlog));
		t->backlog_head = 0;
	} else if (t->backlog_n == t->backlog_cap) {
		size_t cap = t->backlog_cap ? 2 * t->backlog_cap : t->o->verify_backlog;
		__u64 *v = realloc(t->backlog, cap * sizeof(*v));

		if (!v) {
			t->st.error = ENOMEM;
			t->stop = true;
			return;
		}
		t->backlog = v;
		t->backlog_cap = cap;
	}
	t->backlog[t->backlog_head + t->backlog_n++] = offset;
	if (t->backlog_n % t->o->verify_backlog == 0)
		t->backlog_due = true;
}

void load_verify_fill(struct load_thread *t, struct load_io *io)
{
	__u64 block = (io->offset - t->o->offset) / t->verify_bs;
	__u32 unit = unit_of(t->o);
	__u64 numberio = t->verify_writes++;

	for (__u32 at = 0; at < io->len; at += unit)
		fill_unit(t, (char *)io->buf + at, unit, io->offset + at, numberio);
	t->written[block / 64] |= 1ULL << (block % 64);
	if (t->o->verify_backlog)
		backlog_push(t, io->offset);
}

/* The first byte of p[0, len) that is not the pattern's (which starts at
 * p), or len. */
static __u32 off_pattern(const struct load_pattern *pat, const unsigned char *p, __u32 len)
{
	for (__u32 i = 0; i < len; i++) {
		if (p[i] != pat->b[i % pat->len])
			return i;
	}
	return len;
}

/* What is wrong with the unit read at `offset`, or NULL. */
static const char *check_unit(const struct load_thread *t, unsigned char *p, __u32 len,
			      __u64 offset, char *why, size_t wlen)
{
	const struct load_job_opts *o = t->o;
	const struct load_pattern *pat = &o->verify_pattern;
	const struct load_csum *cs = load_csum_of(o->verify);
	struct vhdr *h = (struct vhdr *)p;
	__u32 head = sizeof(*h) + (cs ? cs->len : 0), at;
	unsigned char want[LOAD_CSUM_MAX], got[LOAD_CSUM_MAX];
	char hw[2 * LOAD_CSUM_MAX + 1], hg[2 * LOAD_CSUM_MAX + 1];

	if (o->verify == LOAD_VERIFY_PATTERN) {
		at = off_pattern(pat, p, len);
		if (at == len)
			return NULL;
		snprintf(why, wlen, "byte %llu: expected %02x (the pattern), found %02x",
			 (unsigned long long)(offset + at), pat->b[at % pat->len], p[at]);
		return why;
	}
	if (h->magic != VERIFY_MAGIC) {
		snprintf(why, wlen, "bad magic at offset %llu: expected %08x, found %08x",
			 (unsigned long long)offset, VERIFY_MAGIC, h->magic);
		return why;
	}
	if (h->offset != offset || h->len != len || h->sum_len != head - sizeof(*h)) {
		snprintf(why, wlen, "the header at offset %llu is of the one at %llu (%u bytes)",
			 (unsigned long long)offset, (unsigned long long)h->offset, h->len);
		return why;
	}
	if (!load_verify_reads_only(o) && h->seed != seed_of(t, offset)) {
		snprintf(why, wlen, "a block of another run (its seed %016llx, not this run's %016llx): a lost write",
			 (unsigned long long)h->seed, (unsigned long long)seed_of(t, offset));
		return why;
	}
	if (pat->len) {
		at = off_pattern(pat, p + head, len - head);
		if (at != len - head) {
			snprintf(why, wlen, "byte %llu: expected %02x (the pattern), found %02x",
				 (unsigned long long)(offset + head + at), pat->b[at % pat->len],
				 p[head + at]);
			return why;
		}
	}
	if (!cs)
		return NULL;
	memcpy(want, p + sizeof(*h), cs->len);
	memset(p + sizeof(*h), 0, cs->len);
	cs->sum(p, len, got);
	memcpy(p + sizeof(*h), want, cs->len);
	if (memcmp(got, want, cs->len)) {
		hex(want, cs->len, hw);
		hex(got, cs->len, hg);
		snprintf(why, wlen, "%s at offset %llu: expected %s, found %s", cs->name,
			 (unsigned long long)offset, hw, hg);
		return why;
	}
	return NULL;
}

/* What is wrong with the block read at `offset`, or NULL. */
static const char *check(const struct load_thread *t, void *buf, __u64 offset,
			 char *why, size_t len)
{
	__u32 unit = unit_of(t->o), bs = load_bs_min(t->o);

	for (__u32 at = 0; at < bs; at += unit) {
		if (check_unit(t, (unsigned char *)buf + at, unit, offset + at, why, len))
			return why;
	}
	return NULL;
}

/*
 * Reads back the block at `offset` in a slot of its own, counted as a read
 * of the job, and checks it.  False when it cannot be read or is bad, said
 * in one line with fio's EILSEQ.
 */
static bool verify_block(struct load_thread *t, __u64 offset)
{
	const struct load_job_opts *o = t->o;
	struct load_io *io = t->free[--t->nfree];
	char why[128 + 4 * LOAD_CSUM_MAX];
	const char *bad;
	long res;

	/* One file: verify is refused with several (load_files.c). */
	io->fd = t->files[0].fd;
	io->file = 0;
	io->dir = LOAD_READ;
	io->offset = offset;
	io->len = load_bs_min(o);
	io->counted = true;
	/* A pread at the thread's priority, none of cmdprio's. */
	io->ioprio = t->prio.ioprio;
	io->prio_stat = LOAD_PRIO_NO_STATS;
	io->t_start = io->t_issue = mono_ns();
	res = pread(io->fd, io->buf, io->len, io->offset);
	res = res < 0 ? -errno : res;
	if (res >= 0 && res != (long)io->len)
		snprintf(why, sizeof(why), "short read: %ld of %u bytes", res, io->len);
	bad = res == (long)io->len ? check(t, io->buf, io->offset, why, sizeof(why)) :
	      res >= 0 ? why : NULL;
	/* Counted as a read of the job; the slot is given back. */
	load_io_done(t, io, res, mono_ns());
	if (res < 0)
		return false;
	if (bad) {
		fprintf(stderr, "iolens load: job '%s': verify failed in the block at offset %llu (%llu bytes) of %s: %s\n",
			log_name(o->name), (unsigned long long)offset, (unsigned long long)load_bs_min(o),
			log_name(o->filename), bad);
		t->st.error = EILSEQ;
		return false;
	}
	return true;
}

void load_verify_backlog(struct load_thread *t, size_t n)
{
	t->backlog_due = false;
	while (n-- && t->backlog_n && !t->stop && !stop_requested()) {
		__u64 offset = t->backlog[t->backlog_head++];
		__u64 b = (offset - t->o->offset) / t->verify_bs;

		t->backlog_n--;
		/* Not written whole after all (fill_device), or read back
		 * already. */
		if (!(t->written[b / 64] & (1ULL << (b % 64))))
			continue;
		t->written[b / 64] &= ~(1ULL << (b % 64));
		if (!verify_block(t, offset)) {
			t->stop = true;
			return;
		}
	}
}

void load_verify_pass(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;
	__u64 nblocks = o->size / load_bs_min(o);

	/* What the batches left, in the order of the writes, as fio's. */
	if (o->verify_backlog && !load_verify_reads_only(o)) {
		load_verify_backlog(t, SIZE_MAX);
		return;
	}
	for (__u64 b = 0; b < nblocks && !t->stop && !stop_requested(); b++) {
		if (!load_verify_reads_only(o) && !(t->written[b / 64] & (1ULL << (b % 64))))
			continue;
		if (!verify_block(t, o->offset + b * load_bs_min(o)))
			break;
	}
}
