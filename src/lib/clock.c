// SPDX-License-Identifier: GPL-2.0
#include <time.h>
#include "lib/clock.h"

__u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct timespec ns_timespec(__u64 ns)
{
	return (struct timespec){ .tv_sec = ns / 1000000000ULL,
				  .tv_nsec = ns % 1000000000ULL };
}

void mono_left(__u64 until, struct timespec *ts)
{
	__u64 now = mono_ns();

	*ts = ns_timespec(until > now ? until - now : 0);
}
