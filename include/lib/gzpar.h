/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A gzip file compressed by several threads, as pigz does: the bytes are
 * cut into units of 256 KiB, each compressed on its own (raw deflate
 * ending in a sync flush) by whichever worker is free, and written in
 * order; the CRC-32 of the whole is combined from the units'.  The file is
 * one ordinary gzip member, which any reader takes, and a file cut short
 * reads up to the cut, as zlib's own sync flush left it.  `record`
 * compressed in the thread that drains the ring, and zlib was three
 * quarters of its time.
 */
#ifndef IOLENS_GZPAR_H
#define IOLENS_GZPAR_H

#include <stddef.h>

struct gzpar;

/* Creates (or empties) `path` as lib/outfile.h allows, to be compressed
 * at zlib `level` by `workers` threads (1 to GZPAR_WORKERS_MAX).  NULL
 * with errno. */
struct gzpar *gzpar_open(const char *path, int level, int workers);

/* The same on `fd`, opened for writing, which is closed by gzpar_close()
 * or on failure. */
struct gzpar *gzpar_fdopen(int fd, int level, int workers);
#define GZPAR_WORKERS_MAX 8

/* Appends n bytes; waits while every unit is full and not yet written.
 * 0, or -1 once anything failed (gzpar_error() says what). */
int gzpar_write(struct gzpar *g, const void *p, size_t n);

/* Everything given so far compressed and written to the file (to the
 * kernel: a SIGKILL loses none of it).  0 or -1. */
int gzpar_flush(struct gzpar *g);

/* Flushes, ends the workers and closes the file, then frees g: 0, or -1
 * with the first failure in `err`. */
int gzpar_close(struct gzpar *g, char *err, size_t errlen);

/* The first failure, or "" if none. */
const char *gzpar_error(struct gzpar *g);

#endif
