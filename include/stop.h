/* SPDX-License-Identifier: GPL-2.0 */
/* Ctrl-C and SIGTERM end a command's loop cleanly: they only raise a flag
 * that the loop checks, and cut its sleep short. */
#ifndef IOLENS_STOP_H
#define IOLENS_STOP_H

#include <stdbool.h>
#include <linux/types.h>

/* Catches SIGINT and SIGTERM from now on. */
void stop_catch(void);

bool stop_requested(void);

/* Requests the stop from inside (a quit key). */
void stop_request(void);

/* Sleeps until CLOCK_MONOTONIC reaches `ns`, or a stop is requested. */
void stop_sleep_until(__u64 ns);

#endif
