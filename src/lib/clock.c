// SPDX-License-Identifier: GPL-2.0
#include <time.h>
#include "lib/clock.h"

__u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}
