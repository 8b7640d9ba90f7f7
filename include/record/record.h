/* SPDX-License-Identifier: GPL-2.0 */
/* iolens record: every completed block request into a trace file
 * (lib/tracefile.h is its format; report reads it back). */
#ifndef IOLENS_RECORD_H
#define IOLENS_RECORD_H

#include "record/trigger.h"
#include "trace/rqfilter.h"

#define RECORD_TRIGGERS_MAX 8
/* --ring's defaults: its memory, the span past a trigger, the files
 * and bytes saved before record ends. */
#define RECORD_RING_MAX_DEFAULT	(256ULL << 20)
#define RECORD_AFTER_DEFAULT	5000000000ULL
#define RECORD_FILES_DEFAULT	10
#define RECORD_BYTES_DEFAULT	(1ULL << 30)

struct record_opts {
	struct rqfilter filter;
	const char *path;		/* the trace file; replaced if it exists */
	__u64 duration_ns;		/* 0: until interrupted */
	bool stacks;			/* with each request's submitting
					 * kernel stack */
	bool files;			/* with each request's file */

	/* --ring: the flight recorder (record/flight.h); path is then the
	 * prefix of the files it saves. */
	bool ring;
	__u64 ring_ns;			/* span kept; 0: what ring_bytes holds */
	__u64 ring_size;		/* --ring SIZE, or 0 */
	__u64 ring_bytes;		/* the ring's memory at most */
	__u64 after_ns;			/* recorded past a trigger */
	struct trigger_spec trig[RECORD_TRIGGERS_MAX];
	__u32 ntrig;
	unsigned long max_files;	/* files saved, then record ends */
	__u64 max_bytes;		/* bytes saved, then record ends */
	/* The options given that only --ring takes (cli/cmd_record.c):
	 * a bit each, by their order in its table. */
	unsigned int ring_opts_given;
};

/* Records until the duration or a signal ends it; the exit code. */
int record_run(const struct record_opts *o);

#endif
