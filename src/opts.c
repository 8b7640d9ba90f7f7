// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "opts.h"

int opt_error(const char *cmd, int opt, char **argv)
{
	if (opt == ':')
		return usage_err(cmd, "option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		return usage_err(cmd, "unknown option '-%c'", optopt);
	return usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
}

long long parse_duration_ns(const char *s, double unit_ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(s, &end), ns = -1;

	if (end == s || !(v >= 0))
		return -1;
	if (!*end)
		ns = v * unit_ns;
	for (size_t i = 0; *end && i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit))
			ns = v * units[i].ns;
	}
	/* Also refuses "inf" and what a long long cannot hold. */
	if (!(ns >= 0 && ns < 9e18))
		return -1;
	return (long long)(ns + 0.5);
}
