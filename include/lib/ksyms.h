/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel text addresses named from /proc/kallsyms (stacks of `lat --by
 * stack`). */
#ifndef IOLENS_KSYMS_H
#define IOLENS_KSYMS_H

#include <stddef.h>
#include <linux/types.h>

/* Reads /proc/kallsyms once: 0; -ENOENT without it; -EPERM where it hides
 * the addresses (kernel.kptr_restrict 2, or not root); -ENOMEM. */
int ksyms_load(void);

/* "name+0xoff" ("name+0xoff [module]") of a text address into buf, or its
 * hex address where no symbol holds it or the table is not loaded. */
const char *ksyms_name(__u64 addr, char *buf, size_t len);

#endif
