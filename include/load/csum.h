/* SPDX-License-Identifier: GPL-2.0 */
/* load's own: the checksums fio's verify= names, one row each
 * (load_csum.c). */
#ifndef IOLENS_LOAD_CSUM_H
#define IOLENS_LOAD_CSUM_H

#include <stddef.h>

/* The largest digest of the table: sha512's. */
#define LOAD_CSUM_MAX 64

struct load_csum {
	const char *name;
	unsigned int len;	/* bytes of the digest */
	void (*sum)(const void *p, size_t n, unsigned char *out);
};

/* The checksum of verify kind `verify` (enum load_verify), or NULL for
 * the kinds without one (none, meta, pattern). */
const struct load_csum *load_csum_of(int verify);

#endif
