/* SPDX-License-Identifier: GPL-2.0 */
/* One request as a line of text, JSON or CSV: shared by snoop and report so
 * that live and recorded output are the same. */
#ifndef IOLENS_RQFMT_H
#define IOLENS_RQFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/block.h"
#include "trace/kstacks.h"

enum rqfmt_mode { RQFMT_TEXT, RQFMT_JSON, RQFMT_CSV };

/* Names resolved by the caller (live system or trace file). */
struct rqfmt_names {
	const char *dev;	/* disk name, never NULL */
	const char *cgroup;	/* submitter cgroup path, NULL unknown */
	const char *io_cgroup;	/* cgroup owning the I/O, NULL unknown */
	/* --stacks: the submitting stack is shown, `stack` (NULL where it
	 * is unknown: kstack_unknown() of iolens_rq.stack says why). */
	bool stacks;
	const struct kstack *stack;
	/* --files: the file the request's data belongs to is shown, of kind
	 * `file_kind` (trace/rqfile.h), at `file` (NULL unknown). */
	bool files;
	const char *file_kind;
	const char *file;
};

/* Column header (text, CSV); nothing for JSON lines.  `files`: the file
 * columns come last, `stacks`: then the stack (CSV). */
void rqfmt_header(FILE *f, enum rqfmt_mode mode, bool files, bool stacks);

/* Bytes rqfmt_format() may write for a request with these names. */
size_t rqfmt_bound(const struct rqfmt_names *names);

/* The request's line, newline included, into `buf` of rqfmt_bound()
 * bytes: its length.  `t0` is the CLOCK_MONOTONIC ns that time 0 of the
 * output stands for. */
size_t rqfmt_format(char *buf, enum rqfmt_mode mode, const struct iolens_rq *rq,
		    const struct rqfmt_names *names, __u64 t0);

/* The same, written to `f`. */
void rqfmt_print(FILE *f, enum rqfmt_mode mode, const struct iolens_rq *rq,
		 const struct rqfmt_names *names, __u64 t0);

#endif
