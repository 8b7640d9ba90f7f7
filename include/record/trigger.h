/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What makes `record --ring` save its ring: `--trigger NAME>VALUE`, NAME a
 * row of the table in trigger.c (lat, p99, errors, qd, util), or SIGUSR1.
 */
#ifndef IOLENS_RECORD_TRIGGER_H
#define IOLENS_RECORD_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "bpf/block.h"
#include "lib/tracefile.h"

/* One --trigger as parsed: a row of the table and its threshold (ns,
 * a count, or thousandths of a percent, as the row says). */
struct trigger_spec {
	__u64 over;
	__u32 kind;
};

struct triggers;

enum trigger_unit { TRIGGER_TIME, TRIGGER_COUNT, TRIGGER_PERCENT };

/* A row: "NAME>VALUE" fires when `rq` (each request) or `tick` (once a
 * second) says so. */
struct trigger_kind {
	const char *name;
	enum trigger_unit unit;
	const char *help;
	bool (*rq)(struct triggers *t, const struct trigger_spec *s,
		   const struct iolens_rq *rq, struct trace_trigger *f);
	bool (*tick)(struct triggers *t, const struct trigger_spec *s,
		     __u64 now, struct trace_trigger *f);
};

extern const struct trigger_kind trigger_kinds[];
extern const unsigned int trigger_nkinds;

/* "lat>50ms" back from a spec, in the largest unit it is whole in. */
void trigger_name(const struct trigger_spec *t, char *buf, size_t len);

struct triggers *triggers_new(const struct trigger_spec *specs, int n);
void triggers_free(struct triggers *t);

/* Each completed request: true when one fires, what and when in *f
 * (what, value, mono_ns, dev, pid; the span is the caller's). */
bool triggers_rq(struct triggers *t, const struct iolens_rq *rq,
		 struct trace_trigger *f);

/* Once a second: true when one fires on the disks' own counters. */
bool triggers_tick(struct triggers *t, __u64 now, struct trace_trigger *f);

#endif
