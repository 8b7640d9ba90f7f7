/* SPDX-License-Identifier: GPL-2.0 */
/* tracefs, where libbpf reads the ids of tracepoint events. */
#ifndef IOLENS_TRACE_TRACEFS_H
#define IOLENS_TRACE_TRACEFS_H

#include <stdbool.h>

#define TRACEFS_DIR	"/sys/kernel/tracing"

/*
 * Makes sure tracefs is where libbpf looks for event ids: mounted at
 * /sys/kernel/tracing (or reached through debugfs).  A machine as booted
 * often has neither mounted, and then mounts it, as perf does.  0 when it
 * is there (*mounted_now says whether iolens mounted it), or -errno: no
 * tracefs in this kernel (ENODEV), or no right to mount it (EPERM).
 */
int tracefs_ensure(bool *mounted_now);

/* The tracefs folder libbpf reads event ids from: through a mounted
 * debugfs where there is one, else TRACEFS_DIR. */
const char *tracefs_dir(void);

#endif
