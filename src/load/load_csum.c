// SPDX-License-Identifier: GPL-2.0
/*
 * The checksums of fio's verify=: a row a kind, each over a whole unit (a
 * block, or verify_interval bytes) with its digest field zeroed.  libmd
 * has the MD5 and SHA families, zlib CRC-32, libxxhash XXH32 (seeded 1, as
 * fio's); CRC-32C is written here, as no library in Debian offers it
 * alone.
 */
#include <endian.h>
#include <pthread.h>
#include <string.h>
#include <md5.h>
#include <sha1.h>
#include <sha2.h>
#include <xxhash.h>
#include <zlib.h>
#include <linux/types.h>
#include "load/csum.h"
#include "load/verify.h"

/* A 32-bit sum, most significant byte first: its digest reads as the
 * number fio prints. */
static void put32(__u32 v, unsigned char *out)
{
	v = htobe32(v);
	memcpy(out, &v, sizeof(v));
}

/* CRC-32C (Castagnoli, reflected 0x82f63b78), as fio's crc32c. */
static __u32 crc_table[256];

static void crc_table_init(void)
{
	for (__u32 i = 0; i < 256; i++) {
		__u32 c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
		crc_table[i] = c;
	}
}

static void sum_crc32c(const void *buf, size_t len, unsigned char *out)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const unsigned char *p = buf;
	__u32 c = ~0U;

	pthread_once(&once, crc_table_init);
	while (len--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	put32(~c, out);
}

static void sum_crc32(const void *p, size_t n, unsigned char *out)
{
	put32(crc32(0, p, n), out);
}

static void sum_xxhash(const void *p, size_t n, unsigned char *out)
{
	put32(XXH32(p, n, 1), out);
}

static void sum_md5(const void *p, size_t n, unsigned char *out)
{
	MD5_CTX c;

	MD5Init(&c);
	MD5Update(&c, p, n);
	MD5Final(out, &c);
}

static void sum_sha1(const void *p, size_t n, unsigned char *out)
{
	SHA1_CTX c;

	SHA1Init(&c);
	SHA1Update(&c, p, n);
	SHA1Final(out, &c);
}

/* SHA-2 of one width: libmd's Init, Update and Final of that name. */
#define SHA2(bits)								\
static void sum_sha##bits(const void *p, size_t n, unsigned char *out)	\
{									\
	SHA2_CTX c;							\
									\
	SHA##bits##Init(&c);						\
	SHA##bits##Update(&c, p, n);					\
	SHA##bits##Final(out, &c);					\
}
SHA2(256)
SHA2(384)
SHA2(512)

static const struct load_csum csums[] = {
	[LOAD_VERIFY_CRC32C] = { "crc32c", 4, sum_crc32c },
	[LOAD_VERIFY_CRC32] = { "crc32", 4, sum_crc32 },
	[LOAD_VERIFY_XXHASH] = { "xxhash", 4, sum_xxhash },
	[LOAD_VERIFY_MD5] = { "md5", MD5_DIGEST_LENGTH, sum_md5 },
	[LOAD_VERIFY_SHA1] = { "sha1", SHA1_DIGEST_LENGTH, sum_sha1 },
	[LOAD_VERIFY_SHA256] = { "sha256", SHA256_DIGEST_LENGTH, sum_sha256 },
	[LOAD_VERIFY_SHA384] = { "sha384", SHA384_DIGEST_LENGTH, sum_sha384 },
	[LOAD_VERIFY_SHA512] = { "sha512", SHA512_DIGEST_LENGTH, sum_sha512 },
};

_Static_assert(SHA512_DIGEST_LENGTH <= LOAD_CSUM_MAX, "LOAD_CSUM_MAX");

const struct load_csum *load_csum_of(int verify)
{
	if (verify < 0 || (size_t)verify >= sizeof(csums) / sizeof(csums[0]) ||
	    !csums[verify].sum)
		return NULL;
	return &csums[verify];
}
