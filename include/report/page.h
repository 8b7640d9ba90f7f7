/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `iolens report -f html` and `-f svg` draw, gathered in one pass over
 * the requests: every chart is a fixed grid (time bins, latency rows,
 * offset rows) or a capped table, so memory and the page's size depend on
 * the picture, not on the trace's length.  Time bins start 10 ms wide and
 * double (neighbours merged, exactly) whenever a request falls past the
 * last one, so the trace's length need not be known before its end.
 */
#ifndef IOLENS_REPORT_PAGE_H
#define IOLENS_REPORT_PAGE_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/block.h"
#include "trace/rqsum.h"

#define PAGE_TBINS	200		/* time bins, the x of every chart over time */
#define PAGE_T0_WIDTH	10000000ULL	/* the first bins' width: 10 ms */
#define PAGE_LROWS	54		/* latency rows: 2 a power of two from 1 us */
#define PAGE_LROW_MIN	1024ULL		/* the lowest row's lower edge, ns */
#define PAGE_OROWS	64		/* offset rows */
#define PAGE_ODEVS	4		/* disks with an offset chart */
#define PAGE_SECTOR_MAX	(1ULL << 50)	/* 512 PiB: beyond, no real offset */
#define PAGE_WHO	4096		/* submitters told apart; more: "others" */
#define PAGE_CGROUPS	1024		/* cgroups told apart */
#define PAGE_STACKS	1024		/* submitting stacks told apart */
#define PAGE_FILES	4096		/* files told apart */

/* Ops as the charts colour them. */
enum page_op { PAGE_READ, PAGE_WRITE, PAGE_OTHER, PAGE_NOPS };
extern const char *const page_op_names[PAGE_NOPS];
enum page_op page_op_of(const struct iolens_rq *rq);

/* One time bin, of the requests that completed in it. */
struct page_col {
	__u32 lat[2][PAGE_LROWS];	/* total, device latency: per row */
	__u64 n[PAGE_NOPS];		/* requests */
	__u64 bytes[PAGE_NOPS];
	__u64 qd_sum, qd_n;		/* in flight at issue */
	__u32 qd_max;
	__u32 failed;			/* of n[]: ended with an error status */
};

/* The offsets (sectors) a disk's requests with data completed at, per
 * time bin. */
struct page_offsets {
	__u64 sectors_per_row;		/* a power of two, doubled as needed */
	__u32 cell[PAGE_TBINS][PAGE_OROWS][PAGE_NOPS];
};

struct page_dev {
	__u32 dev;
	__u64 requests, bytes, unseen;	/* unseen: no completion */
	__u64 failed;			/* ended with an error status */
	__u64 total_ns, timed;		/* total latencies of successes, where
					 * both ends seen */
	struct rqsum sum;		/* latencies, queue depth */
	struct page_offsets *off;	/* the first PAGE_ODEVS disks only */
};

/* A submitter (pid and comm), a cgroup, a submitting stack or a file, and
 * what it asked for. */
struct page_who {
	__u32 pid;
	char comm[IOLENS_COMM_LEN];
	unsigned int hier;		/* cgroups: hierarchy and id */
	__u64 cgroup;
	__u32 stack;			/* stacks: as iolens_rq.stack */
	__u32 fdev, fgen;		/* files: as iolens_rq names them */
	__u64 ino;
	__u8 fkind;
	__u64 requests, bytes;
	__u64 op_bytes[2];		/* of bytes: read, written */
	__u64 time_ns;			/* sum of total latencies, where known */
	__u64 timed;			/* requests of time_ns */
	bool used;
};

struct page_table {
	struct page_who *v;		/* open addressing, cap entries */
	int n, cap;
	struct page_who others;		/* what did not fit */
};

#define PAGE_FAILS	100

struct page {
	__u64 t0;			/* CLOCK_MONOTONIC of time 0 (the header's) */
	__u64 width;			/* of a time bin, ns */
	int nbins;			/* bins with anything so far, at most PAGE_TBINS */
	__u64 last;			/* the latest completion */
	struct page_col col[PAGE_TBINS];
	struct page_dev *devs;		/* REPORT_DEVS, and REPORT_OTHER_DEVS */
	int ndev;
	struct rqsum sum;		/* all disks */
	__u64 size[HIST_BUCKETS];	/* request sizes, bytes */
	__u64 requests, bytes, unseen;
	__u64 size_n;
	struct page_table who, cgroups;
	struct page_table stacks;	/* with page_new()'s `stacks` */
	struct page_table files;	/* with page_new()'s `files` */
	/* Requests that ended with an error status: in the counts, not in
	 * the latencies (a failure's time is not a success's); the first
	 * PAGE_FAILS of them listed. */
	__u64 failed;
	struct iolens_rq fails[PAGE_FAILS];
	int nfails;
};

/* A page with time 0 at `t0`, and tables of submitting stacks and of
 * files if the requests name theirs; NULL if out of memory. */
struct page *page_new(__u64 t0, bool stacks, bool files);
/* One request shown; -1 if out of memory. */
int page_add(struct page *p, const struct iolens_rq *rq);
/* The charts over time reach `end` (the trace's end), requests or not. */
void page_span(struct page *p, __u64 end);
void page_free(struct page *p);

/* The latency row of `ns`, and a row's lower edge. */
int page_lrow(__u64 ns);
__u64 page_lrow_lower(int row);

/* What page_top() orders by. */
enum page_order { PAGE_BY_REQUESTS, PAGE_BY_TIME, PAGE_BY_BYTES };

/* The rows of a table with requests, biggest first, at most n; their
 * number. */
int page_top(const struct page_table *t, enum page_order by, const struct page_who **out,
	     int n);

/* Whether a submitter is a kernel worker: the flusher's writeback; and
 * the sum of all of them in a table. */
bool page_is_writeback(const struct page_who *w);
void page_writeback(const struct page_table *t, struct page_who *sum);

#endif
