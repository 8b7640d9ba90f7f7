/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `record --ring`, the flight recorder: the requests record traces go to
 * a ring in memory (record/ring.h), and only when a trigger fires
 * (record/trigger.h) is the ring's span before it, and what completes for
 * --after past it, written to a new file PREFIX-TIME.iol.
 */
#ifndef IOLENS_RECORD_FLIGHT_H
#define IOLENS_RECORD_FLIGHT_H

#include "lib/tracefile.h"
#include "record/record.h"
#include "trace/block_trace.h"
#include "trace/kstacks.h"

struct flight;

/* SIGUSR1 saves the ring from now on (before the tracer loads: its
 * default action would end the process). */
void flight_signals(void);

/* h: the recording's header (time base, flags); NULL without memory. */
struct flight *flight_new(const struct record_opts *o, const struct trace_header *h,
			  struct block_trace *bt, struct kstacks *stacks, int workers);

/* Each request the filters keep; non-zero ends the recording. */
int flight_rq(struct flight *fl, const struct iolens_rq *rq);
/* Once a second. */
void flight_tick(struct flight *fl);
/* At the end: the file being saved is closed; the exit code. */
int flight_end(struct flight *fl);

#endif
