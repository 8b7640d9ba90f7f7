// SPDX-License-Identifier: GPL-2.0
/*
 * fio's verify=crc32c: each block written carries a header (a magic, its
 * length, its own offset, the seed of its data and its number among the
 * job's writes) followed by data drawn from the seed, and the CRC-32C of
 * the whole block with the checksum field zeroed.  After the writes a
 * pass reads back every block written and checks all of it, so that a
 * block that is not where it was written (a misdirected write) fails as
 * surely as one whose bytes changed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/clock.h"
#include "lib/stop.h"
#include "load/buf.h"
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
	__u32 crc;
	__u32 zero;
};

/* CRC-32C (Castagnoli, reflected 0x82f63b78), as fio's crc32c. */
static __u32 crc_table[256];

static void crc_table_init(void)
{
	for (__u32 i = 0; i < 256; i++) {
		__u32 c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
		crc_table[i] = c;
	}
}

static __u32 crc32c(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	__u32 c = ~0U;

	while (len--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

int load_verify_init(struct load_thread *t)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	__u64 nblocks = t->o->size / load_bs_min(t->o);

	pthread_once(&once, crc_table_init);
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

void load_verify_fill(struct load_thread *t, struct load_io *io)
{
	struct vhdr *h = io->buf;
	__u64 block = (io->offset - t->o->offset) / load_bs_min(t->o);

	h->magic = VERIFY_MAGIC;
	h->len = io->len;
	h->offset = io->offset;
	h->seed = seed_of(t, io->offset);
	h->numberio = t->verify_writes++;
	h->crc = 0;
	h->zero = 0;
	load_buf_random((char *)io->buf + sizeof(*h), io->len - sizeof(*h), h->seed);
	h->crc = crc32c(io->buf, io->len);
	t->written[block / 64] |= 1ULL << (block % 64);
}

/* What is wrong with the block read at `offset`, or NULL. */
static const char *check(const struct load_thread *t, void *buf, __u64 offset,
			 char *why, size_t len)
{
	struct vhdr *h = buf;
	__u32 want, got;

	if (h->magic != VERIFY_MAGIC) {
		snprintf(why, len, "bad magic: expected %08x, found %08x", VERIFY_MAGIC, h->magic);
		return why;
	}
	if (h->offset != offset || h->len != load_bs_min(t->o)) {
		snprintf(why, len, "the header is of the block at offset %llu (%u bytes)",
			 (unsigned long long)h->offset, h->len);
		return why;
	}
	if (!t->o->verify_only && h->seed != seed_of(t, offset)) {
		snprintf(why, len, "a block of another run (its seed %016llx, not this run's %016llx): a lost write",
			 (unsigned long long)h->seed, (unsigned long long)seed_of(t, offset));
		return why;
	}
	want = h->crc;
	h->crc = 0;
	got = crc32c(buf, load_bs_min(t->o));
	h->crc = want;
	if (got != want) {
		snprintf(why, len, "crc32c: expected %08x, found %08x", want, got);
		return why;
	}
	return NULL;
}

void load_verify_pass(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;
	__u64 nblocks = o->size / load_bs_min(o);
	struct load_io *io = t->free[--t->nfree];
	char why[160];

	for (__u64 b = 0; b < nblocks && !t->stop && !stop_requested(); b++) {
		const char *bad;
		long res;

		if (!o->verify_only && !(t->written[b / 64] & (1ULL << (b % 64))))
			continue;
		io->dir = LOAD_READ;
		io->offset = o->offset + b * load_bs_min(o);
		io->len = load_bs_min(o);
		io->counted = true;
		/* A pread at the thread's priority, none of cmdprio's. */
		io->ioprio = t->prio.ioprio;
		io->prio_stat = LOAD_PRIO_NO_STATS;
		io->t_start = io->t_issue = mono_ns();
		res = pread(t->fd, io->buf, io->len, io->offset);
		res = res < 0 ? -errno : res;
		if (res >= 0 && res != (long)io->len)
			snprintf(why, sizeof(why), "short read: %ld of %u bytes", res, io->len);
		bad = res == (long)io->len ? check(t, io->buf, io->offset, why, sizeof(why)) :
		      res >= 0 ? why : NULL;
		/* Counted as a read of the job, then the slot is ours again. */
		load_io_done(t, io, res, mono_ns());
		io = t->free[--t->nfree];
		if (res < 0)
			break;
		if (bad) {
			fprintf(stderr, "iolens load: job '%s': verify failed in the block at offset %llu (%llu bytes) of %s: %s\n",
				o->name, (unsigned long long)(o->offset + b * load_bs_min(o)),
				(unsigned long long)load_bs_min(o), o->filename, bad);
			t->st.error = EILSEQ;
			break;
		}
	}
	t->free[t->nfree++] = io;
}
