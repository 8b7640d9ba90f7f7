/* SPDX-License-Identifier: GPL-2.0 */
/* Enough open files for a BPF object, checked before it loads: past the
 * limit its maps or programs fail to be made, and the verifier says
 * "invalid BPF map reference" (EINVAL) instead of naming the limit. */
#ifndef IOLENS_FDLIMIT_H
#define IOLENS_FDLIMIT_H

#include <stdbool.h>

struct bpf_object;

/* The files an opened `obj` holds at once as it loads and attaches, as
 * configured (its maps to be made, its programs to be loaded, one link
 * each), plus `extra` the caller makes for it (rings, ring buffers). */
int fdlimit_of(struct bpf_object *obj, int extra);

/* Whether the open-file limit (RLIMIT_NOFILE) allows `obj` besides the
 * files open now and a margin for the command's own; the soft limit is
 * raised to the hard one first if it is short.  0, or -EMFILE after one
 * line for `cmd` (none if NULL) saying how many are needed. */
int fdlimit_ensure(const char *cmd, struct bpf_object *obj, int extra);

/* Whether fdlimit_ensure() refused since the last call, with the number
 * it needed and the limit: what `iolens doctor` gives as the reason. */
bool fdlimit_refused(long *need, long *limit);

#endif
