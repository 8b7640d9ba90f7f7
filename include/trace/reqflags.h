/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel request flags (cmd_flags) to iolens' stable op and flags. */
#ifndef IOLENS_REQFLAGS_H
#define IOLENS_REQFLAGS_H

#include <stddef.h>
#include <linux/types.h>
#include "bpf/block.h"

/* Reads the running kernel's enum req_op / req_flag_bits from BTF, because
 * their values change between kernels.  Falls back to the 6.x values if BTF
 * cannot be read.  Returns 0 when BTF was used, -1 on fallback. */
int reqflags_init(void);

/* Fills rq->op and rq->flags from rq->kflags. */
void reqflags_normalize(struct iolens_rq *rq);

/* "read", "write", "flush", "discard", ... */
const char *op_name(unsigned int op);
/* The ops (1 << enum iolens_op) an op name stands for; 0 if unknown. */
unsigned int op_parse_mask(const char *s);
/* Every op name, space-separated, "," at the end (a list of them). */
const char *op_names_list(void);

/* Comma-separated flag names ("sync,fua"), "" when none. */
void flags_str(unsigned int flags, char *buf, size_t len);

/* blktrace-style rwbs ("WS", "RA", "FWFS"), like the tracefs events. */
void rq_rwbs(const struct iolens_rq *rq, char *buf, size_t len);

/* Name of a raw blk_status_t ("ok", "IOERR", ...), in the numbering of
 * the running kernel or of the one blk_status_kernel() named. */
const char *blk_status_name(unsigned int status);

/* The kernel (uname -r) whose statuses are named: a trace file's. */
void blk_status_kernel(const char *release);

#endif
