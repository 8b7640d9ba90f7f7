// SPDX-License-Identifier: GPL-2.0
/*
 * The trace file of `iolens record` (format in include/tracefile.h).
 *
 * Every record is serialised field by field in little-endian order rather
 * than written as a memory image: no compiler padding reaches the file, and
 * the reader knows the exact payload length of every type, which is what lets
 * it reject a damaged file instead of trusting a length read from it.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include "lib/gzpar.h"
#include "lib/outfile.h"
#include "lib/safepath.h"
#include "lib/log.h"
#include "lib/tracefile.h"
#include "lib/tracerec.h"

#define MAGIC_LEN	8
#define REC_HDR_LEN	8
/* Version 2: records in blocks of at most BLOCK_MAX bytes, each behind
 * its length and CRC-32 (u32 each): a reader returns no record of a block
 * it has not verified.  Version 1 files (records alone) still read. */
#define BLK_HDR_LEN	8
#define BLOCK_MAX	(64 * 1024)

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* zlib's message for the last error; errno's when zlib says Z_ERRNO. */
static const char *gz_msg(gzFile f, int *errnum)
{
	int e;
	const char *msg = gzerror(f, &e);

	if (errnum)
		*errnum = e;
	if (e == Z_ERRNO)
		return strerror(errno);
	return msg && *msg ? msg : "unknown zlib error";
}

/* ---- writer ---- */

struct trace_writer {
	struct gzpar *f;
	char *path;
	struct stat st;		/* of the file made, to see it is still there */
	__u64 requests;
	size_t n;			/* bytes of records in blk */
	unsigned char blk[BLOCK_MAX];
	char err[160];		/* first failure, reported by trace_finish */
};

/* The records gathered so far, as one block behind its length and CRC. */
static int flush_block(struct trace_writer *w)
{
	unsigned char hdr[BLK_HDR_LEN];
	struct buf b = { hdr };

	if (w->err[0])
		return -1;
	if (!w->n)
		return 0;
	put_u32(&b, w->n);
	put_u32(&b, crc32(0, w->blk, w->n));
	if (gzpar_write(w->f, hdr, sizeof(hdr)) || gzpar_write(w->f, w->blk, w->n)) {
		set_err(w->err, sizeof(w->err), "%s", gzpar_error(w->f));
		return -1;
	}
	w->n = 0;
	return 0;
}

static int write_rec(struct trace_writer *w, enum trace_rec_type type,
		     const unsigned char *payload, __u32 len)
{
	struct buf b;

	if (w->err[0])
		return -1;
	/* A record never spans two blocks. */
	if (w->n + REC_HDR_LEN + len > BLOCK_MAX && flush_block(w))
		return -1;
	b.p = w->blk + w->n;
	put_u16(&b, type);
	put_u16(&b, 0);
	put_u32(&b, len);
	memcpy(b.p, payload, len);
	w->n += REC_HDR_LEN + len;
	return 0;
}

struct trace_writer *trace_create(const char *path, const struct trace_header *h,
				  int workers, char *err, size_t errlen)
{
	unsigned char p[MAGIC_LEN + 4], hp[HEADER_LEN];
	struct buf b = { p };
	struct trace_writer *w;
	char cerr[160];

	char why[200];
	int fd;

	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
		set_err(err, errlen, "%s", strerror(ENOMEM));
		free(w);
		return NULL;
	}
	/* Written in place, not renamed at the end: what was recorded is in
	 * the file at each sync, whatever ends record. */
	fd = outfile_open(path, O_WRONLY, OUTFILE_TRUNC, &w->st, why, sizeof(why));
	/* Level 1: recording must keep up with the ring buffer; the ratio
	 * hardly improves at higher levels for these records anyway. */
	w->f = fd < 0 ? NULL : gzpar_fdopen(fd, 1, workers);
	if (!w->f) {
		int e = errno;

		/* errno stays: EPERM is a refusal (exit 2). */
		set_err(err, errlen, "cannot create %s: %s",
			log_name(path), fd < 0 ? why : strerror(e));
		free(w->path);
		free(w);
		errno = e;
		return NULL;
	}

	/* Magic and version, then the HEADER record in a block of its own. */
	memcpy(b.p, IOLENS_TRACE_MAGIC, MAGIC_LEN);
	b.p += MAGIC_LEN;
	put_u32(&b, IOLENS_TRACE_VERSION);
	b.p = hp;
	put_str(&b, h->kernel, sizeof(h->kernel));
	put_str(&b, h->host, sizeof(h->host));
	put_str(&b, h->tool, sizeof(h->tool));
	put_u64(&b, h->mono_ns);
	put_u64(&b, h->real_ns);
	put_u32(&b, h->flags);
	if (gzpar_write(w->f, p, sizeof(p)) ||
	    write_rec(w, TRACE_REC_HEADER, hp, sizeof(hp)) || flush_block(w)) {
		set_err(err, errlen, "cannot write %s: %s", path, gzpar_error(w->f));
		gzpar_close(w->f, cerr, sizeof(cerr));
		free(w->path);
		free(w);
		return NULL;
	}
	return w;
}

int trace_write_device(struct trace_writer *w, const struct trace_device *d)
{
	unsigned char p[DEVICE_LEN];
	struct buf b = { p };

	put_u32(&b, d->dev);
	put_u32(&b, d->logical_bs);
	put_u32(&b, d->physical_bs);
	put_str(&b, d->name, sizeof(d->name));
	return write_rec(w, TRACE_REC_DEVICE, p, sizeof(p));
}

int trace_write_cgroup(struct trace_writer *w, const struct trace_cgroup *c)
{
	unsigned char p[CGROUP_LEN];
	struct buf b = { p };

	put_u64(&b, c->id);
	put_u32(&b, c->hier);
	put_u32(&b, 0);
	put_str(&b, c->path, sizeof(c->path));
	return write_rec(w, TRACE_REC_CGROUP, p, sizeof(p));
}

int trace_write_rq(struct trace_writer *w, const struct iolens_rq *rq)
{
	unsigned char p[RQ_LEN];
	struct buf b = { p };

	put_rq(&b, rq);
	if (write_rec(w, TRACE_REC_RQ, p, sizeof(p)))
		return -1;
	w->requests++;
	return 0;
}

int trace_write_stack(struct trace_writer *w, const struct trace_stack *s)
{
	unsigned char p[STACK_LEN];
	struct buf b = { p };

	put_u32(&b, s->stack);
	put_u32(&b, s->k.n);
	for (int i = 0; i < IOLENS_STACK_DEPTH; i++)
		put_str(&b, i < (int)s->k.n ? s->k.frame[i] : "", KSTACK_NAME);
	return write_rec(w, TRACE_REC_STACK, p, sizeof(p));
}

int trace_write_file(struct trace_writer *w, const struct trace_file *f)
{
	unsigned char p[FILE_LEN];
	struct buf b = { p };

	put_u32(&b, f->dev);
	put_u32(&b, f->gen);
	put_u64(&b, f->ino);
	put_u32(&b, f->flags);
	put_u32(&b, 0);
	put_str(&b, f->path, sizeof(f->path));
	return write_rec(w, TRACE_REC_FILE, p, sizeof(p));
}

int trace_write_trigger(struct trace_writer *w, const struct trace_trigger *t)
{
	unsigned char p[TRIGGER_LEN];
	struct buf b = { p };

	put_str(&b, t->what, sizeof(t->what));
	put_str(&b, t->value, sizeof(t->value));
	put_u64(&b, t->mono_ns);
	put_u64(&b, t->from_ns);
	put_u64(&b, t->to_ns);
	put_u64(&b, t->asked_ns);
	put_u32(&b, t->dev);
	put_u32(&b, t->pid);
	return write_rec(w, TRACE_REC_TRIGGER, p, sizeof(p));
}

int trace_write_lost(struct trace_writer *w, __u64 lost)
{
	unsigned char p[LOST_LEN];
	struct buf b = { p };

	put_u64(&b, lost);
	return write_rec(w, TRACE_REC_LOST, p, sizeof(p));
}

/* A file removed or replaced while written: all that was written to it
 * is lost, which must not end as a success. */
static int still_there(struct trace_writer *w)
{
	char why[sizeof(w->err)];

	if (w->err[0])
		return -1;
	if (outfile_still_there(w->path, &w->st, why, sizeof(why))) {
		set_err(w->err, sizeof(w->err), "%s", why);
		return -1;
	}
	return 0;
}

int trace_sync(struct trace_writer *w)
{
	/* A sync flush of the unit being filled: a few bytes and a fresh
	 * dictionary once a second, against up to 256 KiB lost to a SIGKILL
	 * or a crash. */
	if (flush_block(w) || gzpar_flush(w->f)) {
		set_err(w->err, sizeof(w->err), "%s", gzpar_error(w->f));
		return -1;
	}
	return still_there(w);
}

int trace_finish(struct trace_writer *w, const struct trace_end *end,
		 char *err, size_t errlen)
{
	unsigned char p[END_LEN];
	struct buf b = { p };
	char cerr[160];
	int ret;

	put_u64(&b, end->mono_ns);
	/* The writer's own count, not the caller's: the reader checks it
	 * against the RQ records it saw. */
	put_u64(&b, w->requests);
	put_u64(&b, end->lost);
	put_u64(&b, end->untracked);
	ret = write_rec(w, TRACE_REC_END, p, sizeof(p)) || flush_block(w) ? -1 : 0;
	if (!ret)
		ret = still_there(w);

	/* The last pieces are written here: a full disk may only show now. */
	if (gzpar_close(w->f, cerr, sizeof(cerr)) && !ret) {
		set_err(w->err, sizeof(w->err), "%s", cerr);
		ret = -1;
	}
	if (ret)
		set_err(err, errlen, "%s", w->err);
	free(w->path);
	free(w);
	return ret ? -1 : 0;
}

/* ---- reader ---- */

enum reader_state { READER_OK, READER_DONE, READER_FAILED };

struct trace_reader {
	gzFile f;
	enum reader_state state;
	__u32 version;
	__u64 requests;		/* RQ records returned so far */
	__u64 lost;		/* sum of LOST records */
	int fd;			/* zlib's, for the trailer */
	off_t size;		/* of the file; -1 if not a regular one */
	/* Version 2: the verified block records are taken from. */
	unsigned char *blk;
	size_t blen, bpos;
	__u64 blocks;		/* verified so far */
	char err[256];		/* repeated by every call after a failure */
};

/* Explains a short read: a clean end or zlib's "unexpected end of file"
 * mean the file was cut; anything else from zlib means it is damaged. */
static void short_read(struct trace_reader *r, const char *where)
{
	int zerr;
	const char *msg = gz_msg(r->f, &zerr);

	if (zerr == Z_OK || zerr == Z_BUF_ERROR)
		set_err(r->err, sizeof(r->err),
			"file is truncated %s, %llu requests read before the cut",
			where, (unsigned long long)r->requests);
	else
		set_err(r->err, sizeof(r->err),
			"file is corrupt (%s), %llu requests read before it",
			msg, (unsigned long long)r->requests);
	r->state = READER_FAILED;
}

static void corrupt(struct trace_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void corrupt(struct trace_reader *r, const char *fmt, ...)
{
	char what[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	set_err(r->err, sizeof(r->err),
		"file is corrupt (%s), %llu requests read before it",
		what, (unsigned long long)r->requests);
	r->state = READER_FAILED;
}

/* Reads exactly `len` bytes; 0 if the stream ended or failed first. */
static int read_full(struct trace_reader *r, void *buf, unsigned int len)
{
	return gzread(r->f, buf, len) == (int)len;
}

static __u32 expected_len(unsigned int type, __u32 version)
{
	switch (type) {
	case TRACE_REC_HEADER: return version >= 3 ? HEADER_LEN : HEADER_LEN_V2;
	case TRACE_REC_DEVICE: return DEVICE_LEN;
	case TRACE_REC_CGROUP: return CGROUP_LEN;
	case TRACE_REC_RQ: return version >= 4 ? RQ_LEN : version == 3 ? RQ_LEN_V3 : RQ_LEN_V2;
	case TRACE_REC_LOST: return LOST_LEN;
	case TRACE_REC_END: return END_LEN;
	case TRACE_REC_STACK: return version >= 3 ? STACK_LEN : 0;
	case TRACE_REC_FILE: return version >= 4 ? FILE_LEN : 0;
	case TRACE_REC_TRIGGER: return version >= 5 ? TRIGGER_LEN : 0;
	}
	return 0;
}

/* Version 2: the next block, whole and verified, into r->blk; 0, or -1
 * with the reader failed (none of its records is returned). */
static int read_block(struct trace_reader *r)
{
	unsigned char hdr[BLK_HDR_LEN];
	struct buf b = { hdr };
	__u32 len, crc;

	if (!read_full(r, hdr, sizeof(hdr))) {
		short_read(r, "(no END record)");
		return -1;
	}
	len = get_u32(&b);
	crc = get_u32(&b);
	if (!len || len > BLOCK_MAX) {
		corrupt(r, "block %llu has length %u", (unsigned long long)r->blocks + 1, len);
		return -1;
	}
	if (!read_full(r, r->blk, len)) {
		short_read(r, "inside a block (no END record)");
		return -1;
	}
	if (crc32(0, r->blk, len) != crc) {
		corrupt(r, "block %llu fails its checksum", (unsigned long long)r->blocks + 1);
		return -1;
	}
	r->blocks++;
	r->blen = len;
	r->bpos = 0;
	return 0;
}

/* `len` bytes of the record stream into buf: from the file (version 1)
 * or the current block (2), where a record may not run past its end. */
static int take(struct trace_reader *r, void *buf, size_t len, const char *where)
{
	if (r->version == 1) {
		if (read_full(r, buf, len))
			return 0;
		short_read(r, where);
		return -1;
	}
	if (r->bpos == r->blen && read_block(r))
		return -1;
	if (len > r->blen - r->bpos) {
		corrupt(r, "a record runs past the end of block %llu",
			(unsigned long long)r->blocks);
		return -1;
	}
	memcpy(buf, r->blk + r->bpos, len);
	r->bpos += len;
	return 0;
}

/* Reads one record into `type` and `payload` (MAX_PAYLOAD bytes); 0 on
 * success, -1 with the reader failed. */
static int read_rec(struct trace_reader *r, unsigned int *type,
		    unsigned char *payload)
{
	unsigned char hdr[REC_HDR_LEN];
	struct buf b = { hdr };
	__u32 len, want;

	if (take(r, hdr, sizeof(hdr), "(no END record)"))
		return -1;
	*type = get_u16(&b);
	get_u16(&b);		/* reserved */
	len = get_u32(&b);
	want = expected_len(*type, r->version);
	if (!want) {
		corrupt(r, "unknown record type %u", *type);
		return -1;
	}
	if (len != want) {
		corrupt(r, "record type %u has length %u, expected %u",
			*type, len, want);
		return -1;
	}
	return take(r, payload, len, "inside a record (no END record)");
}

struct trace_reader *trace_open(const char *path, struct trace_header *h,
				char *err, size_t errlen)
{
	unsigned char p[MAX_PAYLOAD];
	unsigned char magic[MAGIC_LEN + 4];
	char why[200];
	struct buf b = { magic + MAGIC_LEN };
	struct trace_reader *r;
	unsigned int type;
	struct stat st;
	__u32 version;
	int n, fd, zerr;

	r = calloc(1, sizeof(*r));
	if (!r) {
		set_err(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	/* Open the file ourselves for errno and to tell an empty file apart;
	 * through no link another user planted, and never waiting on a FIFO
	 * of theirs (lib/safepath.h). */
	fd = safepath_open_input(path, true, why, sizeof(why));
	if (fd < 0) {
		set_err(err, errlen, "%s", why);
		goto fail_fd;
	}
	if (fstat(fd, &st)) {
		set_err(err, errlen, "%s", strerror(errno));
		goto fail_fd;
	}
	if (S_ISREG(st.st_mode) && st.st_size == 0) {
		set_err(err, errlen, "empty file, not an iolens trace file");
		goto fail_fd;
	}
	r->fd = fd;
	r->f = gzdopen(fd, "rb");
	if (!r->f) {
		set_err(err, errlen, "out of memory");
		goto fail_fd;
	}
	gzbuffer(r->f, 64 * 1024);

	/* zlib inflates a whole buffer at once, so with a small file damage
	 * anywhere, even in the trailer, can show up on this first read. */
	n = gzread(r->f, magic, sizeof(magic));
	if (n < 0 && !gzdirect(r->f)) {
		const char *msg = gz_msg(r->f, &zerr);

		if (zerr == Z_MEM_ERROR)
			set_err(err, errlen, "out of memory");
		else
			set_err(err, errlen,
				"file is corrupt (%s), 0 requests read", msg);
		goto fail;
	}
	/* zlib passes a file that is not gzip through as is. */
	if (n < 0 || gzdirect(r->f) ||
	    (n > 0 && memcmp(magic, IOLENS_TRACE_MAGIC,
			     n < MAGIC_LEN ? n : MAGIC_LEN))) {
		set_err(err, errlen, "not an iolens trace file");
		goto fail;
	}
	if (n != sizeof(magic)) {
		gz_msg(r->f, &zerr);
		if (n == 0 && zerr == Z_OK)
			set_err(err, errlen,
				"not an iolens trace file (empty gzip stream)");
		else
			set_err(err, errlen, "file is truncated before its header, 0 requests read");
		goto fail;
	}
	version = get_u32(&b);
	r->version = version;
	r->size = S_ISREG(st.st_mode) ? st.st_size : -1;
	if (version < 1 || version > IOLENS_TRACE_VERSION) {
		set_err(err, errlen,
			"trace format version %u, this iolens reads versions 1 to %d",
			version, IOLENS_TRACE_VERSION);
		goto fail;
	}
	if (version >= 2 && !(r->blk = malloc(BLOCK_MAX))) {
		set_err(err, errlen, "out of memory");
		goto fail;
	}
	if (read_rec(r, &type, p))
		goto fail_rec;
	if (type != TRACE_REC_HEADER) {
		corrupt(r, "first record has type %u, not a header", type);
		goto fail_rec;
	}
	b.p = p;
	get_str(&b, h->kernel, sizeof(h->kernel));
	get_str(&b, h->host, sizeof(h->host));
	get_str(&b, h->tool, sizeof(h->tool));
	h->mono_ns = get_u64(&b);
	h->real_ns = get_u64(&b);
	h->flags = version >= 3 ? get_u32(&b) : 0;
	return r;

fail_rec:
	set_err(err, errlen, "%s", r->err);
fail:
	gzclose(r->f);
	free(r->blk);
	free(r);
	return NULL;
fail_fd:
	if (fd >= 0)
		close(fd);
	free(r);
	return NULL;
}

/* After END nothing may follow, and reading on makes zlib check the gzip
 * trailer (CRC and length): the only way to see damage past the END record. */
static int check_eof(struct trace_reader *r)
{
	unsigned char c;
	int n = gzread(r->f, &c, 1);
	int zerr;
	const char *msg = gz_msg(r->f, &zerr);

	if (n > 0) {
		corrupt(r, "data after the END record");
		return -1;
	}
	if (zerr == Z_BUF_ERROR) {
		set_err(r->err, sizeof(r->err),
			"file is truncated (gzip trailer missing), all %llu requests were read",
			(unsigned long long)r->requests);
		r->state = READER_FAILED;
		return -1;
	}
	if (n < 0 || zerr != Z_OK) {
		corrupt(r, "%s", msg);
		return -1;
	}
	/* zlib ignores what follows a gzip stream: then the file's last
	 * bytes are no trailer, whose ISIZE is the stream's length. */
	if (r->size >= 8) {
		unsigned char tail[8];
		struct buf t = { tail + 4 };

		if (pread(r->fd, tail, sizeof(tail), r->size - 8) != sizeof(tail) ||
		    get_u32(&t) != (__u32)gztell(r->f)) {
			corrupt(r, "data after the end of the trace");
			return -1;
		}
	}
	return 0;
}

int trace_next(struct trace_reader *r, struct trace_item *it,
	       char *err, size_t errlen)
{
	unsigned char p[MAX_PAYLOAD];
	struct buf b = { p };
	unsigned int type;

	if (r->state == READER_DONE)
		return 0;
	if (r->state == READER_FAILED)
		goto fail;
	if (read_rec(r, &type, p))
		goto fail;

	/* Each case fills every field of its member: a memset of the whole
	 * union (a stack's 3 KiB) per request would cost more than its read. */
	it->type = type;
	switch (type) {
	case TRACE_REC_HEADER:
		corrupt(r, "second header record");
		goto fail;
	case TRACE_REC_DEVICE:
		it->dev.dev = get_u32(&b);
		it->dev.logical_bs = get_u32(&b);
		it->dev.physical_bs = get_u32(&b);
		get_str(&b, it->dev.name, sizeof(it->dev.name));
		break;
	case TRACE_REC_CGROUP:
		it->cg.id = get_u64(&b);
		it->cg.hier = get_u32(&b);
		it->cg.reserved = get_u32(&b);
		get_str(&b, it->cg.path, sizeof(it->cg.path));
		break;
	case TRACE_REC_STACK:
		it->stack.stack = get_u32(&b);
		it->stack.k.n = get_u32(&b);
		for (int i = 0; i < IOLENS_STACK_DEPTH; i++)
			get_str(&b, it->stack.k.frame[i], KSTACK_NAME);
		if (kstack_unknown(it->stack.stack) || it->stack.stack > IOLENS_STACKS_MAX ||
		    it->stack.k.n > IOLENS_STACK_DEPTH) {
			corrupt(r, "stack %u of %u frames", it->stack.stack, it->stack.k.n);
			goto fail;
		}
		break;
	case TRACE_REC_FILE:
		it->file.dev = get_u32(&b);
		it->file.gen = get_u32(&b);
		it->file.ino = get_u64(&b);
		it->file.flags = get_u32(&b);
		it->file.reserved = get_u32(&b);
		get_str(&b, it->file.path, sizeof(it->file.path));
		break;
	case TRACE_REC_TRIGGER:
		get_str(&b, it->trigger.what, sizeof(it->trigger.what));
		get_str(&b, it->trigger.value, sizeof(it->trigger.value));
		it->trigger.mono_ns = get_u64(&b);
		it->trigger.from_ns = get_u64(&b);
		it->trigger.to_ns = get_u64(&b);
		it->trigger.asked_ns = get_u64(&b);
		it->trigger.dev = get_u32(&b);
		it->trigger.pid = get_u32(&b);
		break;
	case TRACE_REC_RQ:
		get_rq(&b, &it->rq, r->version);
		/* Consumers index tables and shift masks by these. */
		if (it->rq.op >= IOLENS_OP_NR || it->rq.ctx > IOLENS_CTX_ISSUE ||
		    it->rq.fkind >= IOLENS_FK_NR) {
			corrupt(r, "request with op %u, ctx %u, file kind %u",
				it->rq.op, it->rq.ctx, it->rq.fkind);
			goto fail;
		}
		r->requests++;
		break;
	case TRACE_REC_LOST:
		it->lost = get_u64(&b);
		r->lost += it->lost;
		break;
	case TRACE_REC_END:
		it->end.mono_ns = get_u64(&b);
		it->end.requests = get_u64(&b);
		it->end.lost = get_u64(&b);
		it->end.untracked = get_u64(&b);
		if (r->version > 1 && r->bpos != r->blen) {
			corrupt(r, "data after the END record");
			goto fail;
		}
		if (it->end.requests != r->requests) {
			corrupt(r, "END counts %llu requests, the file holds %llu",
				(unsigned long long)it->end.requests,
				(unsigned long long)r->requests);
			goto fail;
		}
		if (check_eof(r))
			goto fail;
		r->state = READER_DONE;
		return 0;
	}
	return 1;

fail:
	set_err(err, errlen, "%s", r->err);
	return -1;
}

void trace_close(struct trace_reader *r)
{
	if (!r)
		return;
	gzclose(r->f);
	free(r->blk);
	free(r);
}
