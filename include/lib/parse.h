/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The values every command and job file takes: counts, durations, sizes,
 * process ids.  Pure: 0 on success, -1 for a bad value, nothing printed;
 * the caller says what was wrong, and where.
 */
#ifndef IOLENS_LIB_PARSE_H
#define IOLENS_LIB_PARSE_H

#include <linux/types.h>

/* A whole number > 0 ("0", "-1", "2x" and "" are bad). */
int parse_count(const char *s, unsigned long *v);

/* A process id: 1 to INT_MAX. */
int parse_pid(const char *s, __u32 *pid);

/* A duration into ns: "1.5", "250us", "2ms", "1.5s", "900ns", and fio's
 * "10m" (minutes), "2h", "1d" (suffixes in any case, fio's long forms
 * "msec", "min", ... too); a bare number is in `unit_ns` (1e3 for
 * microseconds, 1e9 for seconds).  At most about 292 years. */
int parse_duration(const char *s, double unit_ns, __u64 *ns);

/* A size as fio reads one: "4k", "1m", "2GiB", "512" (bytes), with fio's
 * default kb_base of 1024 for k, KB and KiB alike. */
int parse_size(const char *s, __u64 *v);

#endif
