// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "lib/units.h"

void fmt_ns(char *buf, size_t len, __u64 ns)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	double v = ns;
	int u = 0;

	if (ns < 1000) {
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
		return;
	}
	while (v >= 1000 && u < 3) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s",
		 v, unit[u]);
}

void fmt_bytes(char *buf, size_t len, double bytes)
{
	static const char units[] = "BkMGT";
	int u = 0;

	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f%c", bytes, units[u]);
}
