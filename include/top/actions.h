/* SPDX-License-Identifier: GPL-2.0 */
/* What top's keys do to a process: its I/O priority (i), a signal (k). */
#ifndef IOLENS_TOP_ACTIONS_H
#define IOLENS_TOP_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* "be/4", "rt/0", "idle", "none" (ionice's classes; be and rt take a
 * level 0-7, 4 when not given): 0, or -1. */
int top_ioprio_parse(const char *s, int *class, int *level);
/* The ioprio of thread `id` (with `process`, of every thread of process
 * `id`, as ionice -p sets one thread only): 0 or -errno of the first
 * failure. */
int top_ioprio_set(__u32 id, bool process, int class, int level);

/* A signal by number or name ("15", "TERM", "SIGTERM"): it, or -1. */
int top_signal_parse(const char *s);

#endif
