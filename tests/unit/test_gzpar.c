// SPDX-License-Identifier: GPL-2.0
/* record's gzip writer (lib/gzpar.c): units compressed by worker threads
 * make one gzip member that zlib reads back byte for byte, CRC and size
 * checked; a file cut after a flush reads up to the flush; a failed write
 * is reported. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/resource.h>
#include <zlib.h>
#include "lib/gzpar.h"

#define MIB (1 << 20)

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	strcpy(path, "/dev/shm/iolens-test-gzpar-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* Bytes that compress somewhat, as records do: counters and text. */
static unsigned char *sample(size_t n)
{
	unsigned char *p = malloc(n ? n : 1);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = i % 97 < 60 ? "request record "[i % 15] : (unsigned char)(i * 2654435761u >> 13);
	return p;
}

/* The file read with zlib: n bytes, or -1 and zlib's error number. */
static long read_back(unsigned char *buf, size_t cap, int *zerr)
{
	gzFile g = gzopen(path, "rb");
	long n = 0;
	int k;

	assert_non_null(g);
	while ((k = gzread(g, buf + n, cap - n > (1 << 30) ? 1 << 30 : cap - n)) > 0)
		n += k;
	gzerror(g, zerr);
	assert_false(gzdirect(g));
	gzclose(g);
	return k < 0 ? -1 : n;
}

/* Sizes around a unit (256 KiB), written in pieces of odd sizes with a
 * flush here and there, by 1 and by 4 workers. */
static void test_round_trip(void **state)
{
	static const size_t sizes[] = { 0, 1, 256 << 10, (256 << 10) + 1, 5 * MIB + 333 };
	unsigned char *back = malloc(6 * MIB);

	(void)state;
	for (int workers = 1; workers <= 4; workers += 3) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t n = sizes[i], off = 0;
			unsigned char *data = sample(n);
			struct gzpar *g = gzpar_open(path, 1, workers);
			char err[160] = "";
			int zerr;

			assert_non_null(g);
			for (int piece = 0; off < n; piece++) {
				size_t k = 1 + (piece * 7919) % 100000;

				k = k < n - off ? k : n - off;
				assert_int_equal(gzpar_write(g, data + off, k), 0);
				off += k;
				if (piece % 13 == 12)
					assert_int_equal(gzpar_flush(g), 0);
			}
			assert_int_equal(gzpar_close(g, err, sizeof(err)), 0);
			assert_int_equal(read_back(back, 6 * MIB, &zerr), (long)n);
			assert_int_equal(zerr, Z_OK);
			assert_memory_equal(back, data, n);
			free(data);
		}
	}
	free(back);
}

/* A writer killed after a flush: the file is a gzip stream without its
 * end, which reads up to the flush and then says it was cut. */
static void test_cut_after_flush(void **state)
{
	size_t n = 3 * MIB;
	unsigned char *data = sample(n), *back = malloc(n + 1);
	struct gzpar *g = gzpar_open(path, 1, 3);
	char err[160];
	int zerr;

	(void)state;
	assert_non_null(g);
	assert_int_equal(gzpar_write(g, data, n), 0);
	assert_int_equal(gzpar_flush(g), 0);
	/* Read while still open, as after a SIGKILL: all of it, then zlib's
	 * "unexpected end of file". */
	assert_int_equal(read_back(back, n + 1, &zerr), (long)n);
	assert_int_equal(zerr, Z_BUF_ERROR);
	assert_memory_equal(back, data, n);
	assert_int_equal(gzpar_close(g, err, sizeof(err)), 0);
	free(data);
	free(back);
}

/* A file that cannot grow: the failure comes back, with its reason, from
 * gzpar_open() for the header and from later writes for the rest. */
static void test_write_fails(void **state)
{
	size_t n = 2 * MIB;
	unsigned char *data = malloc(n);
	struct rlimit was, lim;
	struct gzpar *g;
	char err[160] = "";
	uint64_t x = 88172645463325252ULL;
	int rc;

	(void)state;
	errno = 0;
	assert_null(gzpar_open("/dev/full", 1, 2));
	assert_int_equal(errno, ENOSPC);

	/* Bytes that do not compress, past a 64 KiB limit: EFBIG. */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		data[i] = x;
	}
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	lim = (struct rlimit){ 64 << 10, was.rlim_max };
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	g = gzpar_open(path, 1, 2);
	assert_non_null(g);
	rc = gzpar_write(g, data, n);
	rc |= gzpar_close(g, err, sizeof(err));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(rc, -1);
	assert_string_equal(err, "write: File too large");
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_after_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_fails, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
