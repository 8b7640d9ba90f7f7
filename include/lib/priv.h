/* SPDX-License-Identifier: GPL-2.0 */
/* Privileges needed to load BPF. */
#ifndef IOLENS_PRIV_H
#define IOLENS_PRIV_H

#include <stdbool.h>
#include <linux/capability.h>

/* CAP_PERFMON and CAP_BPF were split out of CAP_SYS_ADMIN in Linux 5.8; older
 * headers do not have them. */
#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

/* Whether the calling process has capability `cap` in its effective set. */
bool priv_has_cap(int cap);

/* Whether this process may load and attach tracing programs, silently. */
bool priv_can_load_bpf(void);

/* 0 if this process may load and attach the tracing programs (root, or
 * CAP_BPF + CAP_PERFMON); otherwise prints one line naming what is missing
 * and returns 1 (the runtime-failure exit code). */
int priv_check_bpf(const char *cmd);

/* priv_check_bpf(), then that the kernel has BTF (tp_btf and CO-RE need
 * it); the same one line and 1 if not. */
int priv_check_tracing(const char *cmd);

#endif
