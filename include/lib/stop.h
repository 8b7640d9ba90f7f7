/* SPDX-License-Identifier: GPL-2.0 */
/* Ctrl-C, SIGTERM and the like end a command's loop cleanly: they only raise a flag
 * that the loop checks, and cut its sleep short. */
#ifndef IOLENS_STOP_H
#define IOLENS_STOP_H

#include <signal.h>
#include <stdbool.h>
#include <linux/types.h>

/* Catches SIGINT, SIGTERM and every other signal that would end the
 * process without a core, from now on (lib/stop.c lists them); SIGUSR1 is
 * ignored unless something handles it already. */
void stop_catch(void);

/* The signals stop_catch() catches, in *set: what threads that must not
 * see them block. */
void stop_signals(sigset_t *set);

bool stop_requested(void);

/* Requests the stop from inside (a quit key). */
void stop_request(void);

/*
 * The loop of a periodic report: calls tick() every `interval_ns` from
 * CLOCK_MONOTONIC `start_ns` on (interval 0: never on time), at most
 * `count` times (0: no limit), until a stop is requested; then once more
 * for the time so far if `last`.  Catches the signals.  Returns tick()'s
 * first error, or 0.
 */
int stop_every(__u64 start_ns, __u64 interval_ns, unsigned long count,
	       bool last, int (*tick)(void *arg), void *arg);

#endif
