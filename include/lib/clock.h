/* SPDX-License-Identifier: GPL-2.0 */
/* The one clock of iolens. */
#ifndef IOLENS_LIB_CLOCK_H
#define IOLENS_LIB_CLOCK_H

#include <linux/types.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: what bpf_ktime_get_ns() reads, so the clock of
 * every kernel timestamp (struct iolens_rq's ts_*) and of the load
 * generator's latencies. */
__u64 mono_ns(void);

/* A span (or a time) of ns as the timespec the system calls take. */
struct timespec ns_timespec(__u64 ns);

/* What is left from now until `until` (a mono_ns() time), 0 if it has
 * passed: a relative timeout for the calls that take one. */
void mono_left(__u64 until, struct timespec *ts);

#endif
