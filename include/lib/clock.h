/* SPDX-License-Identifier: GPL-2.0 */
/* The one clock of iolens. */
#ifndef IOLENS_LIB_CLOCK_H
#define IOLENS_LIB_CLOCK_H

#include <linux/types.h>

/* CLOCK_MONOTONIC in ns: what bpf_ktime_get_ns() reads, so the clock of
 * every kernel timestamp (struct iolens_rq's ts_*) and of the load
 * generator's latencies. */
__u64 mono_ns(void);

#endif
