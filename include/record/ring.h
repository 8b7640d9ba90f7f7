/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's memory (`record --ring`): the most recent requests,
 * as the trace file's RQ records, in zlib-compressed chunks of 64 KiB.
 * Chunks leave oldest first, when their newest request is older than the
 * span asked for or when the chunks pass the bytes asked for; nothing is
 * written anywhere until a trigger asks for the ring's contents.
 */
#ifndef IOLENS_RECORD_RING_H
#define IOLENS_RECORD_RING_H

#include <stddef.h>
#include <linux/types.h>
#include "bpf/block.h"

struct ring;

/* Keeps the requests completed in the last `span_ns` (0: no time limit)
 * in at most `max_bytes` of compressed chunks; NULL without memory. */
struct ring *ring_new(__u64 span_ns, size_t max_bytes);
void ring_free(struct ring *r);

/* Appends a request; 0, or -1 without memory (the ring then
 * holds less, which ring_whole_from() says). */
int ring_add(struct ring *r, const struct iolens_rq *rq);

/* The ring holds every request it was given whose time (its completion,
 * or for one whose completion was not seen the last event that was:
 * block_rq_time()) is at or after this (CLOCK_MONOTONIC ns); 0 while
 * nothing has left it. */
__u64 ring_whole_from(const struct ring *r);

/* Calls fn with each request held whose time is at or after `from`, in
 * the order given; stops at fn's first non-zero, which it returns; -1
 * without memory or on a damaged chunk. */
int ring_replay(struct ring *r, __u64 from,
		int (*fn)(void *ctx, const struct iolens_rq *rq), void *ctx);

/* Bytes held: compressed chunks, the chunk being filled, the index. */
size_t ring_bytes(const struct ring *r);

/* The chunk being filled, in bytes: the least a ring can be. */
#define RING_CHUNK	(64 * 1024)

#endif
