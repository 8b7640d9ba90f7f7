/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the aggregation's label sets (serve --labels). */
#ifndef IOLENS_AGG_LABELS_H
#define IOLENS_AGG_LABELS_H

#include "bpf/agg.h"
#include "trace/agg_trace.h"

/* Every set of the map `fd` (label_counts) with the device of its slot
 * among the `nslots` of `slots`, into *out (malloc'd): how many, or
 * -errno. */
int agg_labels_read(int fd, const volatile struct iolens_dev_slot *slots,
		    int nslots, struct stat_label **out);

#endif
