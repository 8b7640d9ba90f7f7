/* SPDX-License-Identifier: GPL-2.0 */
/* Sums of __u64 counters: a struct's into another of the same layout, or
 * fields named by a table into another struct's. */
#ifndef IOLENS_LIB_COUNTERS_H
#define IOLENS_LIB_COUNTERS_H

#include <stddef.h>
#include <string.h>
#include <linux/types.h>

/* *dst += *src for the __u64 counters at those addresses; memcpy(), as
 * they are reached through offsets into structs, not as __u64 arrays. */
static inline void counter_add(void *dst, const void *src)
{
	__u64 d, s;

	memcpy(&d, dst, sizeof(d));
	memcpy(&s, src, sizeof(s));
	d += s;
	memcpy(dst, &d, sizeof(d));
}

/* Adds each counter of `src` to the one at the same place in `dst`: both
 * `size` bytes of __u64 counters and nothing else. */
static inline void counters_add(void *dst, const void *src, size_t size)
{
	for (size_t off = 0; off + sizeof(__u64) <= size; off += sizeof(__u64))
		counter_add((char *)dst + off, (const char *)src + off);
}

/* A __u64 counter of one struct summed from another's: their offsets. */
struct counter_map {
	size_t dst, src;
};

/* Adds the `n` counters `map` names in `src` to theirs in `dst`. */
static inline void counters_add_map(void *dst, const void *src,
				    const struct counter_map *map, size_t n)
{
	for (size_t i = 0; i < n; i++)
		counter_add((char *)dst + map[i].dst,
			    (const char *)src + map[i].src);
}

#endif
