/* SPDX-License-Identifier: GPL-2.0 */
/* What iolens check found, as src/check/check.c aggregates it from the
 * trace and src/check/report.c prints it. */
#ifndef IOLENS_CHECK_FINDINGS_H
#define IOLENS_CHECK_FINDINGS_H

#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>
#include "bpf/check.h"
#include "check/check.h"
#include "check/partalign.h"
#include "lib/proctree.h"

#define CHECK_MAX_EXAMPLES 5

/* What one process did to one file (or, for writeback, the kernel to
 * one file), for one finding. */
struct offender {
	__u32 tgid;
	char comm[IOLENS_COMM_LEN];
	__u32 sdev;
	__u64 ino;
	char path[PATH_MAX];	/* "" when it could not be resolved */
	char name[IOLENS_CHECK_DEPTH][32];	/* see struct iolens_check_name */
	__u64 count, bytes;
	/* Syscalls that caused it: offset (-1 unknown) and size (0 unknown). */
	struct { __s64 pos; __u64 count; } ex[CHECK_MAX_EXAMPLES];
	int nex;
};

struct finding {
	__u64 count, bytes;
	struct offender *v;
	int n;
};

struct disk {
	__u32 dev;
	unsigned int lbs, pbs;
	__u64 writes, write_bytes;
	__u64 misaligned, small_direct;
	__u64 refused;		/* O_DIRECT writes the kernel refused */
};

struct check {
	const struct check_opts *o;
	struct disk *disks;
	int ndisks;
	struct finding misaligned, rmw, small_direct, refused;
	struct proctree tree;	/* of -p */
	__u64 writes;		/* write requests traced (after filters) */
};

/* What misalignment is judged against on a disk of physical block `pbs`. */
static inline unsigned int check_basis(const struct check *c, unsigned int pbs)
{
	return c->o->align ? c->o->align : pbs;
}

struct outcome {
	const char *name;	/* JSON "check" */
	const char *title;
	struct finding *f;
	__u64 total;		/* what count is a share of */
	const char *total_of;	/* "write requests", ... */
	const char *fix;
	bool fail;
};

/* Judges each outcome and the partitions against the threshold and prints
 * them (text or JSON as c->o says; the traced part only if `traced`):
 * 1 when one fails, else 0.  Sorts each finding's offenders. */
int check_report(const struct check *c, struct outcome *out, int nout,
		 const struct partalign *pa, int npa, __u64 lost,
		 double seconds, bool traced);

#endif
