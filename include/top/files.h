/* SPDX-License-Identifier: GPL-2.0 */
/*
 * top's files view (--files, key F): the files with the most disk I/O in
 * the frame, with what was read and written, its latency and the
 * processes that submitted it.
 */
#ifndef IOLENS_TOP_FILES_H
#define IOLENS_TOP_FILES_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/block.h"
#include "lib/json.h"
#include "lib/sanitize.h"

/* Submitters kept per file; the rest are summed. */
#define TOP_FILE_PROCS	3
/* Files told apart in a frame; the rest are summed. */
#define TOP_FILES_MAX	4096

/* A file's requests in a frame: what the requests named it by (fkind,
 * fdev, ino, fgen of `id`, whose other fields are 0). */
struct top_file {
	struct iolens_rq id;
	__u64 reads, writes;		/* requests */
	__u64 read_bytes, write_bytes;
	__u64 ns, timed;		/* latency (start to completion) of
					 * those that succeeded, both ends seen */
	struct {
		__u32 pid;
		char comm[IOLENS_COMM_LEN + 1];
		__u64 bytes;
	} procs[TOP_FILE_PROCS];	/* the first submitters seen */
	__u64 others_bytes;		/* of submitters beyond them */
	bool used;
};

struct top_files;

/* Whose requests count, as top's process rows are chosen: -p (with its
 * descendants; with -t, threads' ids too), -u (effective uid), -c (in the
 * process's name), --cgroup (the submitter's, cgroup2); all with none. */
struct top_files_who {
	__u32 pids[16];
	int npids;
	bool threads;
	bool by_uid;
	__u32 uid;
	const char *comm;
	bool by_cgroup;
	__u64 cgroup;
};

/* The block tracer with files, for top's disks of `devs` (ndev, 0: all),
 * the requests of `who`, in a thread of its own; NULL with one line said
 * if it cannot start. */
struct top_files *top_files_start(const char *cmd, const __u32 *devs, int ndev,
				  const struct top_files_who *who);

/* The frame's files, most bytes first, moved into *v (a malloc'd array the
 * caller frees; *n of them) and counting started again; the requests of
 * files beyond TOP_FILES_MAX in *others; in *unjudged those whose
 * submitter could not be told (gone before its name, user or parent was
 * read, or in flight before the tracer), with `who` choosing.  0 or
 * -ENOMEM. */
int top_files_take(struct top_files *tf, struct top_file **v, int *n,
		   struct top_file *others, __u64 *unjudged);

void top_files_stop(struct top_files *tf);

/* CLOCK_MONOTONIC ns since when it counts (attached): a frame that began
 * before has only part of its files. */
__u64 top_files_since(const struct top_files *tf);

/* The file's name: its path, else what the data was ("(metadata)"...),
 * into buf (not sanitized). */
const char *top_file_name(const struct top_file *f, char *buf, size_t len);

/* Whether top's filter key shows the file: its name holds `filter`, or a
 * process behind it has that pid or a name holding it (an empty filter:
 * every file). */
bool top_file_matches(const struct top_file *f, const char *filter);

/* The processes behind a file as "comm[pid] comm[pid] +N KiB" into buf of
 * TOP_FILE_PROCS_LEN bytes, the names escaped by lib/sanitize. */
#define TOP_FILE_PROCS_LEN	(TOP_FILE_PROCS * (SAN_TEXT_MAX(IOLENS_COMM_LEN) + 16) + 32)
const char *top_file_procs(const struct top_file *f, char *buf, size_t len);

/* The table's header, and a file's row in it (rates over `secs`; names
 * escaped by lib/sanitize) into buf of TOP_FILES_LINE bytes: its length. */
extern const char *const top_files_header;
#define TOP_FILES_LINE	(SAN_TEXT_MAX(4096) + TOP_FILE_PROCS_LEN + 128)
size_t top_files_row(char *buf, size_t len, const struct top_file *f, double secs);

/* Batch text: the table of files, rates over `secs`. */
void top_files_print(FILE *out, const struct top_file *v, int n, double secs);

/* What the view says of requests whose submitter could not be told,
 * into buf: "" for none. */
const char *top_files_unjudged(char *buf, size_t len, __u64 requests);

/* JSON: "files" (counts over the frame), "files_others" and
 * "files_unjudged_requests". */
void top_files_json(struct json *j, const struct top_file *v, int n,
		    const struct top_file *others, __u64 unjudged);

#endif
