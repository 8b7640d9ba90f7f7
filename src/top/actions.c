// SPDX-License-Identifier: GPL-2.0
/*
 * The system calls behind top's i and k keys.  ioprio is per thread
 * (ioprio_set(2)): a process row sets each of its threads, which is what
 * a person who picks a process means; iotop-c does the same.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/ioprio.h>
#include "top/actions.h"

static const char *const classes[] = {
	[IOPRIO_CLASS_NONE] = "none", [IOPRIO_CLASS_RT] = "rt",
	[IOPRIO_CLASS_BE] = "be", [IOPRIO_CLASS_IDLE] = "idle",
};

int top_ioprio_parse(const char *s, int *class, int *level)
{
	size_t n = strcspn(s, "/");
	char *end;
	long l = 4;

	for (int c = 0; c < (int)(sizeof(classes) / sizeof(classes[0])); c++) {
		if (strlen(classes[c]) != n || strncasecmp(s, classes[c], n))
			continue;
		if (s[n]) {
			if (c != IOPRIO_CLASS_RT && c != IOPRIO_CLASS_BE)
				return -1;
			errno = 0;
			l = strtol(s + n + 1, &end, 10);
			if (errno || end == s + n + 1 || *end || l < 0 || l > 7)
				return -1;
		}
		*class = c;
		*level = c == IOPRIO_CLASS_RT || c == IOPRIO_CLASS_BE ? (int)l : 0;
		return 0;
	}
	return -1;
}

static int set_one(__u32 tid, int prio)
{
	return syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, (int)tid, prio) ? -errno : 0;
}

int top_ioprio_set(__u32 id, bool process, int class, int level)
{
	int prio = class << IOPRIO_CLASS_SHIFT | level, err = 0;
	struct dirent *e;
	char path[40];
	DIR *d;

	if (!process)
		return set_one(id, prio);
	snprintf(path, sizeof(path), "/proc/%u/task", id);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		unsigned long tid = strtoul(e->d_name, &end, 10);
		int r;

		if (*end || !tid)
			continue;
		r = set_one(tid, prio);
		/* A thread that ended meanwhile is no failure. */
		if (r && r != -ESRCH && !err)
			err = r;
	}
	closedir(d);
	return err;
}

int top_signal_parse(const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (!errno && end != s && !*end)
		return n > 0 && n < NSIG ? (int)n : -1;
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (int i = 1; i < NSIG; i++) {
		const char *a = sigabbrev_np(i);

		if (a && !strcasecmp(a, s))
			return i;
	}
	return -1;
}
