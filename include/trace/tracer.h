/* SPDX-License-Identifier: GPL-2.0 */
/* What the loaders of the BPF objects share: the checks before one starts,
 * the copy of a ring's record, the line when one does not load. */
#ifndef IOLENS_TRACE_TRACER_H
#define IOLENS_TRACE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Whether `cmd` may start a tracer filtered to `ndev` devices: the
 * filter's room, the privileges and the kernel's BTF.  0, or 1 after a
 * line saying why not. */
int tracer_may_start(const char *cmd, int ndev);

/* Copies the ring buffer's record of `size` bytes at `data` into `rec`
 * of `len` bytes: true; false if the record is shorter, counted in
 * *short_records (atomically: ring consumers may run in several
 * threads). */
bool tracer_record(void *rec, size_t len, const void *data, size_t size,
		   __u64 *short_records);

/* The one line for a BPF object that did not load: "iolens CMD: cannot
 * WHAT: ..." with the error (err < 0), or what most likely caused it: a
 * limit on the address space (libbpf says ESRCH when it cannot parse the
 * kernel's BTF). */
void tracer_load_failed(const char *cmd, const char *what, int err);

#endif
