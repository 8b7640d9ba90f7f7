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

/* Appends a request; 0, or -1 when a chunk was lost for want of memory
 * (which ring_whole_from() says). */
int ring_add(struct ring *r, const struct iolens_rq *rq);

/* The ring holds every request it was given whose time (its completion,
 * or for one whose completion was not seen the last event that was:
 * block_rq_time()) is at or after this (CLOCK_MONOTONIC ns); 0 while
 * nothing has left it. */
__u64 ring_whole_from(const struct ring *r);
/* The part of it due to chunks that left for want of room (max_bytes,
 * or memory), not of age: 0 if none did. */
__u64 ring_cut_from(const struct ring *r);

/* Calls fn with each request held whose time is at or after `from`, in
 * the order given; stops at fn's first non-zero, which it returns; -1
 * without memory or on a damaged chunk. */
int ring_replay(struct ring *r, __u64 from,
		int (*fn)(void *ctx, const struct iolens_rq *rq), void *ctx);

/*
 * The same a chunk at a time, while the ring goes on filling (a save that
 * must not stall the tracer).  A cursor names the next chunk to replay
 * (chunks are numbered as they are sealed) and the requests sealed before
 * it; ring_cursor_at() puts it at the first chunk that may hold a request
 * at or after `from`.  ring_replay_chunk() gives fn the requests of its
 * chunk whose time is in [from, to] and moves it on: 1 when it did, 0
 * when that chunk is not sealed yet, -2 when chunks left the ring before
 * their turn (their requests added to *lost; the cursor moves past them),
 * -1 on failure.  ring_flush() seals the chunk being filled, so that its
 * requests can be replayed too.
 */
struct ring_cursor {
	__u64 seq, cum;
};
void ring_cursor_at(const struct ring *r, __u64 from, struct ring_cursor *cur);
int ring_replay_chunk(struct ring *r, struct ring_cursor *cur, __u64 from, __u64 to,
		      int (*fn)(void *ctx, const struct iolens_rq *rq), void *ctx,
		      __u64 *lost);
int ring_flush(struct ring *r);
/* Chunks from number `seq` on (a save's cursor) leave only for room, not
 * for age; UINT64_MAX: none is kept so. */
void ring_pin(struct ring *r, __u64 seq);

/* Bytes held: compressed chunks, the chunk being filled, the index. */
size_t ring_bytes(const struct ring *r);

/* The chunk being filled, in bytes: the least a ring can be. */
#define RING_CHUNK	(64 * 1024)

#endif
