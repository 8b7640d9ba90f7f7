/* SPDX-License-Identifier: GPL-2.0 */
/* Whether the kernel accounts task delays (IO> and SWAPIN of top), and
 * turning it on. */
#ifndef IOLENS_DELAYACCT_H
#define IOLENS_DELAYACCT_H

enum delayacct_state {
	DELAYACCT_ON,		/* kernel.task_delayacct=1 */
	DELAYACCT_OFF,		/* kernel.task_delayacct=0: waits are not added */
	DELAYACCT_UNKNOWN,	/* no sysctl: before Linux 5.14 accounting is on
				 * unless booted with nodelayacct, or the kernel
				 * lacks CONFIG_TASK_DELAY_ACCT */
};

enum delayacct_state delayacct_state(void);

/* Sets kernel.task_delayacct to 1: 0 or -errno (-EACCES, -EPERM when not
 * root, -ENOENT without the sysctl). */
int delayacct_enable(void);

/* The sysctl's file, for messages. */
#define DELAYACCT_SYSCTL "/proc/sys/kernel/task_delayacct"

#endif
