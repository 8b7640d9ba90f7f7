/* SPDX-License-Identifier: GPL-2.0 */
/* The aggregation's device slots: how many its maps are sized for. */
#ifndef IOLENS_AGG_SLOTS_H
#define IOLENS_AGG_SLOTS_H

#include "trace/agg_trace.h"

/* A power of two (the BPF side masks its hash with nslots - 1): twice
 * the disks asked for, or every sized disk (and partition, with
 * o->partitions) and room for some to come. */
int agg_slots_needed(const struct agg_trace_opts *o);

#endif
