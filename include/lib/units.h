/* SPDX-License-Identifier: GPL-2.0 */
/* Numbers with units, for people: 45.1us, 1.21ms, 4.0k, 1.2M. */
#ifndef IOLENS_UNITS_H
#define IOLENS_UNITS_H

#include <stddef.h>
#include <linux/types.h>

/* Nanoseconds with three significant digits and ns/us/ms/s. */
void fmt_ns(char *buf, size_t len, __u64 ns);

/* Bytes with one decimal and k/M/G/T (powers of 1024), as iostat -h. */
void fmt_bytes(char *buf, size_t len, double bytes);

#endif
