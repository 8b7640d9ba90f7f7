/* SPDX-License-Identifier: GPL-2.0 */
/* Privileges needed to load BPF. */
#ifndef IOLENS_PRIV_H
#define IOLENS_PRIV_H

#include <stdbool.h>

/* Whether the calling process has capability `cap` in its effective set. */
bool priv_has_cap(int cap);

/* 0 if this process may load and attach the tracing programs (root, or
 * CAP_BPF + CAP_PERFMON); otherwise prints one line naming what is missing
 * and returns 1 (the runtime-failure exit code). */
int priv_check_bpf(const char *cmd);

#endif
