/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How lib/tracefile.c encodes a record's payload: the exact length of
 * each type (by format version), and the fields put and got one by one in
 * little-endian order over a cursor.  Only tracefile.c includes it.
 */
#ifndef IOLENS_TRACEREC_H
#define IOLENS_TRACEREC_H

#include <endian.h>
#include <string.h>
#include "lib/tracefile.h"

/* Payload lengths; a record of another length is corrupt. */
#define HEADER_LEN_V2	(65 + 65 + 32 + 8 + 8)
#define HEADER_LEN	(HEADER_LEN_V2 + 4)
#define DEVICE_LEN	(4 + 4 + 4 + 32)
#define CGROUP_LEN	(8 + 4 + 4 + TRACE_PATH_MAX)
#define RQ_LEN_V2	(7 * 8 + 5 * 4 + 2 * 2 + 4 * 1 + 4 + IOLENS_COMM_LEN)
#define RQ_LEN_V3	(RQ_LEN_V2 + 4)
#define RQ_LEN		(RQ_LEN_V3 + 4 + 8 + 4 + 1)
#define LOST_LEN	8
#define END_LEN		(4 * 8)
#define STACK_LEN	(4 + 4 + IOLENS_STACK_DEPTH * KSTACK_NAME)
#define FILE_LEN	(4 + 4 + 8 + 4 + 4 + TRACE_FILE_PATH_MAX)
#define TRIGGER_LEN	(64 + 64 + 4 * 8 + 4 + 4)
#define MAX_PAYLOAD	FILE_LEN
_Static_assert(MAX_PAYLOAD >= CGROUP_LEN && MAX_PAYLOAD >= RQ_LEN &&
	       MAX_PAYLOAD >= STACK_LEN, "format");

_Static_assert(sizeof(((struct trace_header *)0)->kernel) == 65, "format");
_Static_assert(sizeof(((struct trace_header *)0)->host) == 65, "format");
_Static_assert(sizeof(((struct trace_header *)0)->tool) == 32, "format");
_Static_assert(sizeof(((struct trace_device *)0)->name) == 32, "format");
/* A new field in the request record must be added to put_rq()/get_rq() and
 * comes with a new IOLENS_TRACE_VERSION; `reserved` is not written. */
_Static_assert(sizeof(struct iolens_rq) == RQ_LEN + 3, "iolens_rq changed");

/* Cursor over a record payload: bounds are guaranteed by the fixed lengths
 * above, checked once per record, so the helpers do not check again. */
struct buf {
	unsigned char *p;
};

static inline void put_u8(struct buf *b, __u8 v)
{
	*b->p++ = v;
}

static inline void put_u16(struct buf *b, __u16 v)
{
	v = htole16(v);
	memcpy(b->p, &v, 2);
	b->p += 2;
}

static inline void put_u32(struct buf *b, __u32 v)
{
	v = htole32(v);
	memcpy(b->p, &v, 4);
	b->p += 4;
}

static inline void put_u64(struct buf *b, __u64 v)
{
	v = htole64(v);
	memcpy(b->p, &v, 8);
	b->p += 8;
}

/* Fixed-size string field, zero-filled so no stale memory reaches the
 * file, always NUL-terminated. */
static inline void put_str(struct buf *b, const char *s, size_t len)
{
	size_t n = strnlen(s, len - 1);

	memcpy(b->p, s, n);
	memset(b->p + n, 0, len - n);
	b->p += len;
}

static inline __u8 get_u8(struct buf *b)
{
	return *b->p++;
}

static inline __u16 get_u16(struct buf *b)
{
	__u16 v;

	memcpy(&v, b->p, 2);
	b->p += 2;
	return le16toh(v);
}

static inline __u32 get_u32(struct buf *b)
{
	__u32 v;

	memcpy(&v, b->p, 4);
	b->p += 4;
	return le32toh(v);
}

static inline __u64 get_u64(struct buf *b)
{
	__u64 v;

	memcpy(&v, b->p, 8);
	b->p += 8;
	return le64toh(v);
}

/* The file may hold anything: terminate strings here, not at the user. */
static inline void get_str(struct buf *b, char *s, size_t len)
{
	memcpy(s, b->p, len);
	s[len - 1] = '\0';
	b->p += len;
}

static inline void put_rq(struct buf *b, const struct iolens_rq *rq)
{
	put_u64(b, rq->ts_start);
	put_u64(b, rq->ts_insert);
	put_u64(b, rq->ts_issue);
	put_u64(b, rq->ts_complete);
	put_u64(b, rq->sector);
	put_u64(b, rq->cgroup);
	put_u64(b, rq->io_cgroup);
	put_u32(b, rq->dev);
	put_u32(b, rq->bytes);
	put_u32(b, rq->pid);
	put_u32(b, rq->tid);
	put_u32(b, rq->kflags);
	put_u16(b, rq->flags);
	put_u16(b, rq->qd);
	put_u8(b, rq->op);
	put_u8(b, rq->ctx);
	put_u8(b, rq->status);
	put_u8(b, rq->requeues);
	put_u32(b, rq->io_cgroup_hier);
	put_str(b, rq->comm, IOLENS_COMM_LEN);
	put_u32(b, rq->stack);
	put_u32(b, rq->fdev);
	put_u64(b, rq->ino);
	put_u32(b, rq->fgen);
	put_u8(b, rq->fkind);
}

/* A request of a file of `version`: before 3, of no stack; before 4, of
 * no file. */
static inline void get_rq(struct buf *b, struct iolens_rq *rq, __u32 version)
{
	rq->ts_start = get_u64(b);
	rq->ts_insert = get_u64(b);
	rq->ts_issue = get_u64(b);
	rq->ts_complete = get_u64(b);
	rq->sector = get_u64(b);
	rq->cgroup = get_u64(b);
	rq->io_cgroup = get_u64(b);
	rq->dev = get_u32(b);
	rq->bytes = get_u32(b);
	rq->pid = get_u32(b);
	rq->tid = get_u32(b);
	rq->kflags = get_u32(b);
	rq->flags = get_u16(b);
	rq->qd = get_u16(b);
	rq->op = get_u8(b);
	rq->ctx = get_u8(b);
	rq->status = get_u8(b);
	rq->requeues = get_u8(b);
	rq->io_cgroup_hier = get_u32(b);
	get_str(b, rq->comm, IOLENS_COMM_LEN);
	rq->stack = version >= 3 ? get_u32(b) : 0;
	rq->fdev = version >= 4 ? get_u32(b) : 0;
	rq->ino = version >= 4 ? get_u64(b) : 0;
	rq->fgen = version >= 4 ? get_u32(b) : 0;
	rq->fkind = version >= 4 ? get_u8(b) : 0;
	memset(rq->reserved, 0, sizeof(rq->reserved));
}

#endif
