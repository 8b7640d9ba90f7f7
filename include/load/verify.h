/* SPDX-License-Identifier: GPL-2.0 */
/* load's own: fio's verify, the blocks a job writes made checkable and read
 * back after it (load_verify.c). */
#ifndef IOLENS_LOAD_VERIFY_H
#define IOLENS_LOAD_VERIFY_H

#include <stdbool.h>
#include <linux/types.h>

struct load_thread;
struct load_io;

enum load_verify { LOAD_VERIFY_NONE, LOAD_VERIFY_CRC32C };

/* The smallest block a verified job may write: its header. */
#define LOAD_VERIFY_MIN_BS 64

/* Sets up what the thread needs: the map of blocks written (t->written,
 * freed with the thread); 0 or -errno. */
int load_verify_init(struct load_thread *t);

/* Fills the buffer of a write of `io` with its header, data and
 * checksum, and marks its block written. */
void load_verify_fill(struct load_thread *t, struct load_io *io);

/* After the job's writes: reads back each block written (every block of
 * the range with verify_only) and checks it; the reads count as the job's
 * reads, as fio's.  The first bad block is said in one line with its
 * offset, what was expected and what was found; it stops the job with
 * EILSEQ, fio's error. */
void load_verify_pass(struct load_thread *t);

#endif
