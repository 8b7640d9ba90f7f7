/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The `iolens record` file: a gzip (zlib) stream of typed records.
 *
 *   magic "IOLENSTR", u32 version, then records: u16 type, u16 reserved,
 *   u32 payload length, payload.  All integers little-endian.
 *   Version 2 puts the records in blocks: u32 length (at most 64 KiB),
 *   u32 CRC-32 of the block, then whole records; END ends the last block.
 *   The reader verifies each block before it returns any of its records,
 *   so damage anywhere stops it before a wrong record, and nothing may
 *   follow the gzip stream.  Version 1 files (no blocks) still read.
 *   HEADER once first; DEVICE and CGROUP whenever a new one is seen, before
 *   the first request that names it; RQ per request (struct iolens_rq);
 *   LOST when the kernel dropped records; END last, with the totals.
 *   Version 3 adds the request's stack to RQ and STACK, the named frames
 *   of a stack, before the first request that names it (`record
 *   --stacks`).  Versions 1 and 2 still read, their requests of no stack.
 *   Version 4 adds to RQ the file its data belongs to and FILE, a
 *   file's path, before the first request that names it (`record
 *   --files`); earlier versions' requests name none.
 *   Version 5 adds TRIGGER, right after HEADER in a file that `record
 *   --ring` saved when a trigger fired: what fired, when, on what value,
 *   and the span of completions the file holds.
 *
 * A file without END (killed writer, truncated copy) is reported as
 * truncated by the reader, with the records before the cut still readable.
 */
#ifndef IOLENS_TRACEFILE_H
#define IOLENS_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "bpf/block.h"
#include "lib/ksyms.h"

#define IOLENS_TRACE_MAGIC	"IOLENSTR"
#define IOLENS_TRACE_VERSION	5
#define TRACE_PATH_MAX		256
#define TRACE_FILE_PATH_MAX	4096

enum trace_rec_type {
	TRACE_REC_HEADER = 1,
	TRACE_REC_DEVICE,
	TRACE_REC_CGROUP,
	TRACE_REC_RQ,
	TRACE_REC_LOST,
	TRACE_REC_END,
	TRACE_REC_STACK,
	TRACE_REC_FILE,
	TRACE_REC_TRIGGER,
};

struct trace_header {
	char kernel[65];	/* uname -r */
	char host[65];		/* uname -n */
	char tool[32];		/* "iolens 0.1.0" */
	__u64 mono_ns;		/* CLOCK_MONOTONIC at start: time base of ts_* */
	__u64 real_ns;		/* CLOCK_REALTIME at the same instant */
	__u32 flags;		/* TRACE_HDR_* (version 3; 0 before) */
};

/* struct trace_header.flags */
enum {
	/* Recorded with --stacks: requests name their stacks. */
	TRACE_HDR_STACKS = 1 << 0,
	/* Recorded with --files: requests name their files (version 4). */
	TRACE_HDR_FILES = 1 << 1,
};

struct trace_device {
	__u32 dev;
	__u32 logical_bs;
	__u32 physical_bs;
	char name[32];
};

struct trace_cgroup {
	__u64 id;
	__u32 hier;		/* 0 = cgroup2, see iolens_rq.io_cgroup_hier */
	__u32 reserved;
	char path[TRACE_PATH_MAX];
};

struct trace_end {
	__u64 mono_ns;		/* CLOCK_MONOTONIC at end */
	__u64 requests;		/* RQ records written */
	__u64 lost;		/* records the kernel could not deliver */
	__u64 untracked;	/* requests whose start the kernel could not keep
				 * (request table full) or whose completion it
				 * never saw; see struct iolens_counters */
};

/* What a request's file numbers (iolens_rq.fdev, ino, fgen) name: for
 * CACHE and DIRECT a file, for DEVICE (ino 0) a device. */
struct trace_file {
	__u32 dev;
	__u32 gen;
	__u64 ino;
	__u32 flags;		/* TRACE_FILE_* */
	__u32 reserved;
	char path[TRACE_FILE_PATH_MAX];	/* "" where none was known */
};

/* struct trace_file.flags */
enum {
	/* A device holding a mounted filesystem: its page cache is that
	 * filesystem's metadata. */
	TRACE_FILE_MOUNTED = 1 << 0,
};

/* Why a `record --ring` file was saved.  Times are CLOCK_MONOTONIC ns, on
 * the header's time base. */
struct trace_trigger {
	char what[64];		/* the trigger as given: "lat>50ms", "signal" */
	char value[64];		/* what it saw: "312.4ms", "12.1ms of 840" */
	__u64 mono_ns;		/* when it fired */
	__u64 from_ns;		/* the file holds every request that ended */
	__u64 to_ns;		/* from from_ns to to_ns, both included (its
				 * completion; for one whose completion was
				 * not seen, its last event) */
	__u64 asked_ns;		/* the span asked before the trigger; from_ns
				 * is later when the ring held less */
	__u32 dev;		/* the disk it fired on; 0: none (signal) */
	__u32 pid;		/* the process whose request fired it; 0 */
};

struct trace_stack {
	__u32 stack;		/* as iolens_rq.stack names it */
	struct kstack k;
};

struct trace_item {
	enum trace_rec_type type;
	union {
		struct trace_device dev;
		struct trace_cgroup cg;
		struct trace_stack stack;
		struct trace_file file;
		struct trace_trigger trigger;
		struct iolens_rq rq;
		__u64 lost;	/* TRACE_REC_LOST: newly lost since last */
		struct trace_end end;
	};
};

struct trace_writer;
struct trace_reader;

/* Compressed by `workers` threads (lib/gzpar.h); NULL on failure with a
 * message in err. */
struct trace_writer *trace_create(const char *path, const struct trace_header *h,
				  int workers, char *err, size_t errlen);
int trace_write_device(struct trace_writer *w, const struct trace_device *d);
int trace_write_cgroup(struct trace_writer *w, const struct trace_cgroup *c);
int trace_write_rq(struct trace_writer *w, const struct iolens_rq *rq);
int trace_write_lost(struct trace_writer *w, __u64 lost);
int trace_write_stack(struct trace_writer *w, const struct trace_stack *s);
int trace_write_file(struct trace_writer *w, const struct trace_file *f);
int trace_write_trigger(struct trace_writer *w, const struct trace_trigger *t);
/* Closes the block being gathered and waits until it and all before it
 * are compressed and written to the file: a writer killed after this
 * leaves every record written so far readable.  0, or -1 (the error comes
 * with trace_finish). */
int trace_sync(struct trace_writer *w);
/* Writes END and closes; 0 on success, -1 (message in err) on failure. */
int trace_finish(struct trace_writer *w, const struct trace_end *end,
		 char *err, size_t errlen);

/* Opens and reads the header; NULL with a message in err if the file is not
 * an iolens trace, has another version, or is unreadable. */
struct trace_reader *trace_open(const char *path, struct trace_header *h,
				char *err, size_t errlen);
/* 1: an item; 0: END was read (it is in `it`), no more items; -1: the file
 * is truncated or corrupt, message in err. */
int trace_next(struct trace_reader *r, struct trace_item *it,
	       char *err, size_t errlen);
void trace_close(struct trace_reader *r);

#endif
