/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace file being written by `record`: each disk, cgroup, stack and
 * file described (named here and now) before the first request that names
 * it, so that the file reads anywhere.
 */
#ifndef IOLENS_RECORD_WRITER_H
#define IOLENS_RECORD_WRITER_H

#include "lib/tracefile.h"
#include "trace/kstacks.h"

struct rec_writer;
struct block_trace;

/* Creates `path` (replaced if it exists), with `trigger` after the header
 * unless NULL; stacks: where --stacks names them, else NULL.  NULL with a
 * message in err. */
struct rec_writer *rec_writer_open(const char *path, const struct trace_header *h,
				   const struct trace_trigger *trigger,
				   struct kstacks *stacks, int workers,
				   char *err, size_t errlen);

/* The request, after what it names; 0 or -1 (the error at finish). */
int rec_writer_rq(struct rec_writer *w, const struct iolens_rq *rq);
int rec_writer_lost(struct rec_writer *w, __u64 n);
/* A LOST record for the requests `bt` dropped since its count was *seen
 * (which becomes its count now): how many, 0 for none. */
__u64 rec_writer_dropped(struct rec_writer *w, struct block_trace *bt, __u64 *seen);
/* What was written is in the file (trace_sync()); 0 or -1. */
int rec_writer_sync(struct rec_writer *w);
__u64 rec_writer_requests(const struct rec_writer *w);

/* END (requests counted here) and closed; 0, or -1 with err. */
int rec_writer_finish(struct rec_writer *w, const struct trace_end *end,
		      char *err, size_t errlen);

/* Names what rq names, so that the caches of lib/ hold them when a
 * file is written later (the ring): a cgroup or file gone by then keeps
 * its name.  `seen`: the keys already warmed, grown as needed. */
struct rec_seen {
	__u64 *keys;
	size_t n, cap;
};
void rec_names_warm(struct rec_seen *seen, const struct iolens_rq *rq,
		    struct kstacks *stacks);
void rec_seen_free(struct rec_seen *seen);

#endif
