// SPDX-License-Identifier: GPL-2.0
/* The trace file: round trip, and a reader that survives any damage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "lib/tracefile.h"

#define NPATH 2
#define NRQ 300

/* Temp files of one test, removed by the teardown, which cmocka runs also
 * when the test fails. */
struct files {
	char path[NPATH][64];
};

static int setup(void **state)
{
	struct files *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	for (int i = 0; i < NPATH; i++) {
		int fd;

		snprintf(f->path[i], sizeof(f->path[i]), "/tmp/iolens-test-XXXXXX");
		fd = mkstemp(f->path[i]);
		if (fd < 0) {
			while (i--)
				unlink(f->path[i]);
			free(f);
			return -1;
		}
		close(fd);
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct files *f = *state;

	for (int i = 0; i < NPATH; i++)
		unlink(f->path[i]);
	free(f);
	return 0;
}

static const struct trace_header hdr = {
	.kernel = "6.18.0-test",
	.host = "testhost",
	.tool = "iolens 0.1.0",
	.mono_ns = 1000000000ULL,
	.real_ns = 1700000000123456789ULL,
};

static const struct trace_device devs[2] = {
	{ .dev = 7 << 20 | 0, .logical_bs = 4096, .physical_bs = 4096, .name = "loop0" },
	{ .dev = 253 << 20 | 0, .logical_bs = 512, .physical_bs = 4096, .name = "vda" },
};

static const struct trace_cgroup cgs[2] = {
	{ .id = 1234, .hier = 0, .path = "/system.slice/foo.service" },
	{ .id = 99, .hier = 3, .path = "blkio:/x" },
};

static struct iolens_rq make_rq(unsigned int i)
{
	struct iolens_rq rq = {
		.ts_start = i % 3 ? 2000000000ULL + i * 1000 : 0,
		.ts_insert = 2000000100ULL + i * 1000,
		.ts_issue = 2000000200ULL + i * 1000,
		.ts_complete = 2000050000ULL + i * 1000,
		.sector = 0x123456789ULL + i * 8,
		.cgroup = 1234,
		.io_cgroup = 99,
		.dev = devs[i % 2].dev,
		.bytes = 4096 * (i % 5 + 1),
		.pid = 1000 + i,
		.tid = 2000 + i,
		.kflags = 0x80000801 + i,
		.flags = i & 0xfff,
		.qd = i % 64,
		.op = i % IOLENS_OP_NR,
		.ctx = i % 4,
		.status = i % 7 == 0 ? 10 : 0,
		.requeues = i % 3,
		.io_cgroup_hier = 3,
		.stack = i % 4 == 3 ? IOLENS_STACK_LOST : i % 4,
		.fdev = 7 << 20 | i % 3,
		.ino = 0x100000000ULL + i,
		.fgen = 0xe98656e1 + i,
		.fkind = i % IOLENS_FK_NR,
	};

	snprintf(rq.comm, sizeof(rq.comm), "fio-%u", i);
	return rq;
}

/* A stack of a name that fills its field, and the 32 frames a stack
 * holds at most. */
static struct trace_stack stack_rec = { .stack = 2, .k = { .n = IOLENS_STACK_DEPTH } };

/* A file of a path that fills its field. */
static struct trace_file file_rec = { .dev = 7 << 20, .gen = 9, .ino = 12,
				      .flags = TRACE_FILE_MOUNTED };

static const struct trace_end end_rec = {
	.mono_ns = 9000000000ULL,
	.requests = NRQ,
	.lost = 17,
	.untracked = 3,
};

/* Why a `record --ring` file was saved. */
static const struct trace_trigger trigger_rec = {
	.what = "lat>50ms", .value = "312ms", .mono_ns = 5000000123ULL,
	.from_ns = 1000000000ULL, .to_ns = 8000000123ULL, .asked_ns = 4000000000ULL,
	.dev = 7 << 20, .pid = 4242,
};

static void write_sample(const char *path, unsigned int nrq)
{
	char err[256];
	struct trace_writer *w = trace_create(path, &hdr, 3, err, sizeof(err));
	struct trace_end end = end_rec;

	assert_non_null(w);
	assert_int_equal(trace_write_device(w, &devs[0]), 0);
	assert_int_equal(trace_write_device(w, &devs[1]), 0);
	assert_int_equal(trace_write_cgroup(w, &cgs[0]), 0);
	assert_int_equal(trace_write_cgroup(w, &cgs[1]), 0);
	assert_int_equal(trace_write_stack(w, &stack_rec), 0);
	assert_int_equal(trace_write_file(w, &file_rec), 0);
	assert_int_equal(trace_write_trigger(w, &trigger_rec), 0);
	for (unsigned int i = 0; i < nrq; i++) {
		struct iolens_rq rq = make_rq(i);

		assert_int_equal(trace_write_rq(w, &rq), 0);
		if (i == nrq / 2)
			assert_int_equal(trace_write_lost(w, 17), 0);
	}
	end.requests = nrq;
	assert_int_equal(trace_finish(w, &end, err, sizeof(err)), 0);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n ? n : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

static void spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Reads a whole file: the last trace_next() result, the requests seen and
 * the error message. */
static int read_through(const char *path, unsigned int *nrq, char *err,
			size_t errlen)
{
	struct trace_header h;
	struct trace_item it;
	struct trace_reader *r;
	int n;

	*nrq = 0;
	err[0] = '\0';
	r = trace_open(path, &h, err, errlen);
	if (!r)
		return -2;
	while ((n = trace_next(r, &it, err, errlen)) == 1) {
		if (it.type == TRACE_REC_RQ)
			(*nrq)++;
	}
	trace_close(r);
	return n;
}

static void test_roundtrip(void **state)
{
	struct files *f = *state;
	struct trace_header h;
	struct trace_item it;
	struct trace_reader *r;
	unsigned int nrq = 0, ndev = 0, ncg = 0, nlost = 0, nstack = 0, nfile = 0, ntrig = 0;
	char err[256] = "";

	memset(file_rec.path, 'p', sizeof(file_rec.path) - 1);
	for (int i = 1; i < IOLENS_STACK_DEPTH; i++)
		snprintf(stack_rec.k.frame[i], KSTACK_NAME, "func%d+0x1a [mod]", i);
	memset(stack_rec.k.frame[0], 'f', KSTACK_NAME - 1);
	write_sample(f->path[0], NRQ);
	r = trace_open(f->path[0], &h, err, sizeof(err));
	assert_non_null(r);
	assert_string_equal(h.kernel, hdr.kernel);
	assert_string_equal(h.host, hdr.host);
	assert_string_equal(h.tool, hdr.tool);
	assert_int_equal(h.mono_ns, hdr.mono_ns);
	assert_int_equal(h.real_ns, hdr.real_ns);

	while (trace_next(r, &it, err, sizeof(err)) == 1) {
		switch (it.type) {
		case TRACE_REC_DEVICE:
			assert_true(ndev < 2);
			assert_memory_equal(&it.dev, &devs[ndev], sizeof(it.dev));
			ndev++;
			break;
		case TRACE_REC_CGROUP:
			assert_true(ncg < 2);
			assert_int_equal(it.cg.id, cgs[ncg].id);
			assert_int_equal(it.cg.hier, cgs[ncg].hier);
			assert_string_equal(it.cg.path, cgs[ncg].path);
			ncg++;
			break;
		case TRACE_REC_RQ: {
			struct iolens_rq want = make_rq(nrq);

			/* No padding in the record: every byte must match. */
			assert_memory_equal(&it.rq, &want, sizeof(want));
			nrq++;
			break;
		}
		case TRACE_REC_STACK:
			assert_int_equal(it.stack.stack, stack_rec.stack);
			assert_int_equal(it.stack.k.n, IOLENS_STACK_DEPTH);
			assert_int_equal(strlen(it.stack.k.frame[0]), KSTACK_NAME - 1);
			for (int i = 0; i < IOLENS_STACK_DEPTH; i++)
				assert_string_equal(it.stack.k.frame[i], stack_rec.k.frame[i]);
			nstack++;
			break;
		case TRACE_REC_FILE:
			assert_memory_equal(&it.file, &file_rec, sizeof(file_rec));
			nfile++;
			break;
		case TRACE_REC_TRIGGER:
			assert_memory_equal(&it.trigger, &trigger_rec, sizeof(trigger_rec));
			ntrig++;
			break;
		case TRACE_REC_LOST:
			assert_int_equal(it.lost, 17);
			assert_int_equal(nrq, NRQ / 2 + 1);
			nlost++;
			break;
		default:
			fail_msg("unexpected record type %d", it.type);
		}
	}
	assert_int_equal(it.type, TRACE_REC_END);
	assert_int_equal(it.end.mono_ns, end_rec.mono_ns);
	assert_int_equal(it.end.requests, NRQ);
	assert_int_equal(it.end.lost, end_rec.lost);
	assert_int_equal(it.end.untracked, end_rec.untracked);
	assert_int_equal(nrq, NRQ);
	assert_int_equal(ndev, 2);
	assert_int_equal(ncg, 2);
	assert_int_equal(nlost, 1);
	assert_int_equal(nstack, 1);
	assert_int_equal(nfile, 1);
	assert_int_equal(ntrig, 1);
	/* After END, END again. */
	assert_int_equal(trace_next(r, &it, err, sizeof(err)), 0);
	trace_close(r);
}

/* Strings that fill their field come back NUL-terminated. */
static void test_long_strings(void **state)
{
	struct files *f = *state;
	struct trace_header h = hdr, got;
	struct trace_device d = devs[0];
	struct trace_cgroup cg = cgs[0];
	struct iolens_rq rq = make_rq(1);
	struct trace_end end = { .requests = 1 };
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_item it;
	char err[256];

	memset(h.kernel, 'k', sizeof(h.kernel));
	memset(h.host, 'h', sizeof(h.host));
	memset(h.tool, 't', sizeof(h.tool));
	memset(d.name, 'd', sizeof(d.name));
	memset(cg.path, 'p', sizeof(cg.path));
	memset(rq.comm, 'c', sizeof(rq.comm));
	w = trace_create(f->path[0], &h, 1, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(trace_write_device(w, &d), 0);
	assert_int_equal(trace_write_cgroup(w, &cg), 0);
	assert_int_equal(trace_write_rq(w, &rq), 0);
	assert_int_equal(trace_finish(w, &end, err, sizeof(err)), 0);

	r = trace_open(f->path[0], &got, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(strlen(got.kernel), sizeof(got.kernel) - 1);
	assert_int_equal(strlen(got.host), sizeof(got.host) - 1);
	assert_int_equal(strlen(got.tool), sizeof(got.tool) - 1);
	assert_int_equal(trace_next(r, &it, err, sizeof(err)), 1);
	assert_int_equal(strlen(it.dev.name), sizeof(it.dev.name) - 1);
	assert_int_equal(trace_next(r, &it, err, sizeof(err)), 1);
	assert_int_equal(strlen(it.cg.path), sizeof(it.cg.path) - 1);
	assert_int_equal(trace_next(r, &it, err, sizeof(err)), 1);
	assert_int_equal(strlen(it.rq.comm), sizeof(it.rq.comm) - 1);
	assert_int_equal(trace_next(r, &it, err, sizeof(err)), 0);
	trace_close(r);
}

/* A file cut anywhere: never a crash, always "truncated", never more
 * requests than were written. */
static void test_truncated(void **state)
{
	struct files *f = *state;
	unsigned char *buf;
	size_t len, cut;
	unsigned int nrq, cuts = 0, opened = 0;
	char err[256];
	int n;

	write_sample(f->path[0], NRQ);
	buf = slurp(f->path[0], &len);
	assert_true(len > 100);

	for (cut = 0; cut < len; cut += 7) {
		spit(f->path[1], buf, cut);
		n = read_through(f->path[1], &nrq, err, sizeof(err));
		if (cut == 0) {
			assert_int_equal(n, -2);
			assert_non_null(strstr(err, "empty"));
			continue;
		}
		if (n != -2)
			opened++;
		else
			assert_int_equal(nrq, 0);
		if (n == 0 || !strstr(err, "truncated"))
			fail_msg("cut at %zu of %zu: result %d, \"%s\"",
				 cut, len, n, err);
		assert_true(nrq <= NRQ);
		cuts++;
	}
	/* The trailer alone: all data there, still reported. */
	spit(f->path[1], buf, len - 4);
	n = read_through(f->path[1], &nrq, err, sizeof(err));
	assert_int_equal(n, -1);
	assert_non_null(strstr(err, "truncated"));
	assert_int_equal(nrq, NRQ);

	/* The message counts what was read before the cut: the requests of
	 * the whole blocks before it (version 2 returns none of a block it
	 * could not verify), so a file of several blocks. */
	free(buf);
	write_sample(f->path[0], 3000);
	buf = slurp(f->path[0], &len);
	spit(f->path[1], buf, len / 2);
	n = read_through(f->path[1], &nrq, err, sizeof(err));
	assert_int_equal(n, -1);
	assert_true(nrq > 0 && nrq < 3000);
	{
		char want[32];

		snprintf(want, sizeof(want), "%u requests", nrq);
		if (!strstr(err, want))
			fail_msg("\"%s\" does not say \"%s\"", err, want);
	}
	assert_true(cuts > 10);
	assert_true(opened > 5);
	free(buf);
}

/* Whether two gzip files hold the same bytes, read with zlib alone. */
static bool same_content(const char *a, const char *b)
{
	static char x[1 << 16], y[1 << 16];
	gzFile ga = gzopen(a, "rb"), gb = gzopen(b, "rb");
	bool same = ga && gb;
	int n, m;

	while (same && (n = gzread(ga, x, sizeof(x))) > 0) {
		m = gzread(gb, y, sizeof(y));
		same = m == n && !memcmp(x, y, n);
	}
	same = same && gzread(gb, y, 1) == 0;
	if (ga)
		gzclose(ga);
	if (gb)
		gzclose(gb);
	return same;
}

static void test_corrupt(void **state)
{
	struct files *f = *state;
	unsigned char *buf;
	size_t len, off;
	unsigned int nrq;
	char err[256];
	int n;

	write_sample(f->path[0], NRQ);
	buf = slurp(f->path[0], &len);

	/* Bytes of the deflate body: past the 10-byte gzip header, before
	 * the 8-byte trailer. */
	for (off = 10; off < len - 8; off += 13) {
		buf[off] ^= 0xff;
		spit(f->path[1], buf, len);
		buf[off] ^= 0xff;
		n = read_through(f->path[1], &nrq, err, sizeof(err));
		/* A flip deflate decodes to the very same bytes (a match's
		 * distance inside a run of zeros, as a stack record's unused
		 * frames are) damages nothing: the file must read whole. */
		if (n == 0 && same_content(f->path[0], f->path[1]))
			continue;
		if (n >= 0 || !(strstr(err, "corrupt") || strstr(err, "truncated")))
			fail_msg("flip at %zu of %zu: result %d, \"%s\"",
				 off, len, n, err);
		assert_true(nrq <= NRQ);
	}
	/* Two bytes at once, in the middle. */
	buf[len / 2] ^= 0x55;
	buf[len / 2 + 1] ^= 0x0f;
	spit(f->path[1], buf, len);
	buf[len / 2] ^= 0x55;
	buf[len / 2 + 1] ^= 0x0f;
	assert_true(read_through(f->path[1], &nrq, err, sizeof(err)) < 0);

	/* The CRC covers everything, END included: a damaged one is an
	 * error, on a small file already at open, on a big one at the end. */
	for (int big = 0; big < 2; big++) {
		if (big) {
			free(buf);
			write_sample(f->path[0], 20000);
			buf = slurp(f->path[0], &len);
		}
		buf[len - 8] ^= 0x01;
		spit(f->path[1], buf, len);
		n = read_through(f->path[1], &nrq, err, sizeof(err));
		if (n >= 0 || !strstr(err, "corrupt") || !strstr(err, "data check"))
			fail_msg("bad CRC: result %d, \"%s\"", n, err);
		if (big)
			assert_true(nrq > 0);
	}
	free(buf);
}

static void expect_open_fails(const char *path, const char *msg)
{
	struct trace_header h;
	char err[256] = "";
	struct trace_reader *r = trace_open(path, &h, err, sizeof(err));

	if (r) {
		trace_close(r);
		fail_msg("%s opened", path);
	}
	if (!strstr(err, msg))
		fail_msg("\"%s\" does not say \"%s\"", err, msg);
}

static void gz_spit(const char *path, const void *buf, size_t len)
{
	gzFile g = gzopen(path, "wb");

	assert_non_null(g);
	assert_int_equal(gzwrite(g, buf, len), (int)len);
	assert_int_equal(gzclose(g), Z_OK);
}

static void test_not_a_trace(void **state)
{
	struct files *f = *state;
	static const char text[] = "just some text, not a trace at all\n";
	unsigned char junk[12] = "IOLENSTR";

	spit(f->path[0], "", 0);
	expect_open_fails(f->path[0], "empty");

	spit(f->path[0], text, sizeof(text) - 1);
	expect_open_fails(f->path[0], "not an iolens trace file");

	/* Uncompressed but otherwise valid start: still not our format. */
	spit(f->path[0], "IOLENSTR\1\0\0\0", 12);
	expect_open_fails(f->path[0], "not an iolens trace file");

	gz_spit(f->path[0], text, sizeof(text) - 1);
	expect_open_fails(f->path[0], "not an iolens trace file");

	gz_spit(f->path[0], "", 0);
	expect_open_fails(f->path[0], "not an iolens trace file");

	/* Right magic, unknown version. */
	junk[8] = 99;
	gz_spit(f->path[0], junk, sizeof(junk));
	expect_open_fails(f->path[0], "version 99");

	expect_open_fails("/nonexistent/iolens-trace", "No such file");
	expect_open_fails("/tmp", "directory");
}

/* A request record before version 3 (no stack). */
#define RQ_LEN_V1 104

/* Little-endian record builder for hand-made damage. */
struct raw {
	unsigned char b[4096];
	size_t n;
};

static void raw_bytes(struct raw *r, const void *p, size_t len)
{
	assert_true(r->n + len <= sizeof(r->b));
	memcpy(r->b + r->n, p, len);
	r->n += len;
}

static void raw_uint(struct raw *r, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		r->b[r->n++] = v >> (8 * i);
}

static void raw_rec(struct raw *r, unsigned int type, unsigned int len,
		    int fill)
{
	raw_uint(r, type, 2);
	raw_uint(r, 0, 2);
	raw_uint(r, len, 4);
	assert_true(r->n + len <= sizeof(r->b));
	memset(r->b + r->n, fill, len);
	r->n += len;
}

static void raw_start(struct raw *r)
{
	r->n = 0;
	raw_bytes(r, "IOLENSTR", 8);
	raw_uint(r, 1, 4);	/* version 1: records without blocks */
	raw_rec(r, TRACE_REC_HEADER, 65 + 65 + 32 + 8 + 8, 'x');
}

static void expect_corrupt(const char *path, struct raw *r, const char *msg)
{
	unsigned int nrq;
	char err[256];
	int n;

	gz_spit(path, r->b, r->n);
	n = read_through(path, &nrq, err, sizeof(err));
	if (n == 1 || n == 0 || !strstr(err, msg))
		fail_msg("result %d, \"%s\" does not say \"%s\"", n, err, msg);
}

/* The file's content, inflated. */
static unsigned char *gz_slurp(const char *path, size_t *len)
{
	gzFile g = gzopen(path, "rb");
	size_t cap = 1 << 20;
	unsigned char *buf = malloc(cap);
	int n;

	assert_non_null(g);
	assert_non_null(buf);
	*len = 0;
	while ((n = gzread(g, buf + *len, cap - *len)) > 0) {
		*len += n;
		if (*len == cap) {
			buf = realloc(buf, cap *= 2);
			assert_non_null(buf);
		}
	}
	assert_int_equal(gzclose(g), Z_OK);
	return buf;
}

/*
 * Damage that gzip cannot see: bytes changed in the records and the whole
 * compressed again into a valid stream.  Every request the reader returns
 * is one the writer wrote, at its place; none of the damaged block; then
 * one error naming the block.  (Version 1 printed thousands of wrong
 * records first.)  And data after the stream is an error.
 */
static void test_damage_inside_a_valid_gzip(void **state)
{
	struct files *f = *state;
	unsigned char *buf;
	size_t len, off;
	unsigned int flips = 0;

	write_sample(f->path[0], 3000);
	buf = gz_slurp(f->path[0], &len);
	for (off = 12; off < len; off += len / 37 + 1, flips++) {
		struct trace_header h;
		struct trace_item it;
		struct trace_reader *r;
		unsigned int i = 0;
		char err[256] = "";
		int n;

		buf[off] ^= 0x40;
		gz_spit(f->path[1], buf, len);
		buf[off] ^= 0x40;
		r = trace_open(f->path[1], &h, err, sizeof(err));
		if (!r) {
			if (!strstr(err, "corrupt"))
				fail_msg("flip at %zu: \"%s\"", off, err);
			continue;
		}
		while ((n = trace_next(r, &it, err, sizeof(err))) == 1) {
			struct iolens_rq want;

			if (it.type != TRACE_REC_RQ)
				continue;
			want = make_rq(i++);
			if (memcmp(&it.rq, &want, sizeof(want)))
				fail_msg("flip at %zu: request %u differs", off, i - 1);
		}
		trace_close(r);
		if (n != -1 || !strstr(err, "corrupt") || !strstr(err, "checksum"))
			fail_msg("flip at %zu: result %d, \"%s\"", off, n, err);
		assert_true(i < 3000);
	}
	assert_true(flips > 30);
	free(buf);

	/* Garbage after the stream: all requests read, then an error. */
	buf = slurp(f->path[0], &len);
	buf = realloc(buf, len + 5);
	assert_non_null(buf);
	memcpy(buf + len, "junk!", 5);
	spit(f->path[1], buf, len + 5);
	{
		unsigned int nrq;
		char err[256];
		int n = read_through(f->path[1], &nrq, err, sizeof(err));

		if (n != -1 || !strstr(err, "after the end of the trace"))
			fail_msg("appended: result %d, \"%s\"", n, err);
		assert_int_equal(nrq, 3000);
	}
	free(buf);
}

/* Files of version 1 (no blocks) still read: the hand-made ones below. */
static void test_bad_records(void **state)
{
	struct files *f = *state;
	struct trace_header h;
	struct trace_item it;
	struct trace_reader *tr;
	struct raw r;
	char err[256];

	/* A valid hand-made file: the builder speaks the format. */
	raw_start(&r);
	raw_rec(&r, TRACE_REC_RQ, RQ_LEN_V1, 0);
	raw_rec(&r, TRACE_REC_END, 32, 0);
	r.b[r.n - 24] = 1;	/* END.requests = 1 */
	gz_spit(f->path[0], r.b, r.n);
	tr = trace_open(f->path[0], &h, err, sizeof(err));
	assert_non_null(tr);
	assert_int_equal(h.kernel[64], '\0');
	assert_int_equal(strlen(h.kernel), 64);
	assert_int_equal(trace_next(tr, &it, err, sizeof(err)), 1);
	assert_int_equal(it.type, TRACE_REC_RQ);
	assert_int_equal(trace_next(tr, &it, err, sizeof(err)), 0);
	trace_close(tr);

	raw_start(&r);
	raw_rec(&r, 42, 8, 0);
	expect_corrupt(f->path[0], &r, "unknown record type 42");

	raw_start(&r);
	raw_uint(&r, TRACE_REC_RQ, 2);
	raw_uint(&r, 0, 2);
	raw_uint(&r, 100000, 4);
	memset(r.b + r.n, 0, 1000);
	r.n += 1000;
	expect_corrupt(f->path[0], &r, "length");

	raw_start(&r);
	raw_uint(&r, TRACE_REC_RQ, 2);
	raw_uint(&r, 0, 2);
	raw_uint(&r, 0xffffffff, 4);
	expect_corrupt(f->path[0], &r, "length");

	raw_start(&r);
	raw_rec(&r, TRACE_REC_LOST, 4, 0);
	expect_corrupt(f->path[0], &r, "length");

	raw_start(&r);
	raw_rec(&r, TRACE_REC_HEADER, 65 + 65 + 32 + 8 + 8, 0);
	expect_corrupt(f->path[0], &r, "header");

	/* op and ctx index tables in consumers. */
	raw_start(&r);
	raw_rec(&r, TRACE_REC_RQ, RQ_LEN_V1, 0xff);
	expect_corrupt(f->path[0], &r, "op");

	/* Stacks came with version 3. */
	raw_start(&r);
	raw_rec(&r, TRACE_REC_STACK, 4 + 4 + IOLENS_STACK_DEPTH * KSTACK_NAME, 0);
	expect_corrupt(f->path[0], &r, "unknown record type 7");

	/* Files came with version 4. */
	raw_start(&r);
	raw_rec(&r, TRACE_REC_FILE, 4 + 4 + 8 + 4 + 4 + 8, 0);
	expect_corrupt(f->path[0], &r, "unknown record type 8");

	/* Triggers came with version 5. */
	raw_start(&r);
	raw_rec(&r, TRACE_REC_TRIGGER, 64 + 64 + 4 * 8 + 4 + 4, 0);
	expect_corrupt(f->path[0], &r, "unknown record type 9");

	/* END must count the requests the file holds. */
	raw_start(&r);
	raw_rec(&r, TRACE_REC_END, 32, 0);
	r.b[r.n - 24] = 5;
	expect_corrupt(f->path[0], &r, "END");

	/* Nothing may follow END. */
	raw_start(&r);
	raw_rec(&r, TRACE_REC_END, 32, 0);
	raw_rec(&r, TRACE_REC_LOST, 8, 0);
	expect_corrupt(f->path[0], &r, "after the END");

	/* First record not a header. */
	r.n = 0;
	raw_bytes(&r, "IOLENSTR", 8);
	raw_uint(&r, 1, 4);
	raw_rec(&r, TRACE_REC_LOST, 8, 0);
	gz_spit(f->path[0], r.b, r.n);
	expect_open_fails(f->path[0], "header");

	/* No records at all after the magic. */
	r.n = 12;
	gz_spit(f->path[0], r.b, r.n);
	expect_open_fails(f->path[0], "truncated");
}

static void test_create_fails(void **state)
{
	struct trace_writer *w;
	char err[256] = "";

	(void)state;
	w = trace_create("/nonexistent/dir/trace.iol", &hdr, 2, err, sizeof(err));
	assert_null(w);
	assert_non_null(strstr(err, "/nonexistent/dir/trace.iol"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damage_inside_a_valid_gzip, setup, teardown),
		cmocka_unit_test(test_create_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
