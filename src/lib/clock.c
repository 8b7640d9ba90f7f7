// SPDX-License-Identifier: GPL-2.0
#include <time.h>
#include "lib/clock.h"

__u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void mono_left(__u64 until, struct timespec *ts)
{
	__u64 now = mono_ns(), left = until > now ? until - now : 0;

	ts->tv_sec = left / 1000000000ULL;
	ts->tv_nsec = left % 1000000000ULL;
}
