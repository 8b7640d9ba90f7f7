// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "lib/parse.h"

int parse_count(const char *s, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || !*v ? -1 : 0;
}

int parse_pid(const char *s, __u32 *pid)
{
	unsigned long v;

	if (parse_count(s, &v) || v > INT_MAX)
		return -1;
	*pid = v;
	return 0;
}

int parse_duration(const char *s, double unit_ns, __u64 *ns)
{
	static const struct { const char *sfx; double ns; } sfx[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1e3 }, { "usec", 1e3 },
		{ "ms", 1e6 }, { "msec", 1e6 }, { "s", 1e9 }, { "sec", 1e9 },
		{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 }, { "hour", 3600e9 },
		{ "d", 86400e9 }, { "day", 86400e9 },
	};
	double v, mult = -1;
	char *end;

	/* strtod would also take "inf", "nan", " 1" and hex ("0x10"). */
	if ((!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1]))) ||
	    !strncasecmp(s, "0x", 2))
		return -1;
	v = strtod(s, &end);
	if (!*end)
		mult = unit_ns;
	for (size_t i = 0; *end && i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		if (!strcasecmp(end, sfx[i].sfx))
			mult = sfx[i].ns;
	}
	if (mult < 0 || !(v * mult < 9e18))
		return -1;
	*ns = (__u64)(v * mult + 0.5);
	return 0;
}

int parse_size(const char *s, __u64 *v)
{
	static const struct { const char *sfx; int shift; } sfx[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tb", 40 }, { "tib", 40 },
		{ "p", 50 }, { "pb", 50 }, { "pib", 50 },
	};
	unsigned long long n;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	/* Decimal unless "0x", as fio's str_to_decimal(): "010" is ten. */
	errno = 0;
	n = strtoull(s, &end, strncasecmp(s, "0x", 2) ? 10 : 16);
	if (errno)
		return -1;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		if (strcasecmp(end, sfx[i].sfx))
			continue;
		if (sfx[i].shift && n > (~0ULL >> sfx[i].shift))
			return -1;
		*v = n << sfx[i].shift;
		return 0;
	}
	return -1;
}
