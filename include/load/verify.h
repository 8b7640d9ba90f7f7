/* SPDX-License-Identifier: GPL-2.0 */
/* load's own: fio's verify, the blocks a job writes made checkable and read
 * back after it (load_verify.c). */
#ifndef IOLENS_LOAD_VERIFY_H
#define IOLENS_LOAD_VERIFY_H

#include <stdbool.h>
#include <linux/types.h>
#include "load/load.h"

struct load_thread;
struct load_io;

/* fio's verify= kinds: no checksum, then one a kind (load_csum.c). */
enum load_verify {
	LOAD_VERIFY_NONE, LOAD_VERIFY_META, LOAD_VERIFY_PATTERN,
	LOAD_VERIFY_CRC32C, LOAD_VERIFY_CRC32, LOAD_VERIFY_XXHASH, LOAD_VERIFY_MD5,
	LOAD_VERIFY_SHA1, LOAD_VERIFY_SHA256, LOAD_VERIFY_SHA384, LOAD_VERIFY_SHA512,
};

/* The smallest block a verified job may write: room for its header and
 * the largest digest (sha512's 64 bytes). */
#define LOAD_VERIFY_MIN_BS 128

/* Sets up what the thread needs: the map of blocks written (t->written,
 * freed with the thread); 0 or -errno. */
int load_verify_init(struct load_thread *t);

/* Fills the buffer of a write of `io` with its header, data and
 * checksum, and marks its block written. */
void load_verify_fill(struct load_thread *t, struct load_io *io);

/* Whether the job only reads back blocks written before: verify_only, or
 * verify on a job that does not write (fio verifies what it reads). */
bool load_verify_reads_only(const struct load_job_opts *o);

/* verify_backlog: reads back the `n` oldest blocks written and not yet read
 * back, as load_verify_pass() checks them; a bad one stops the job. */
void load_verify_backlog(struct load_thread *t, size_t n);

/* After the job's writes: reads back each block written (every block of
 * the range with verify_only) and checks it; the reads count as the job's
 * reads, as fio's.  The first bad block is said in one line with its
 * offset, what was expected and what was found; it stops the job with
 * EILSEQ, fio's error. */
void load_verify_pass(struct load_thread *t);

#endif
