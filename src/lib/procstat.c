// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "lib/procstat.h"
#include "lib/smallfile.h"

int procstat_read(const char *path, struct procstat *ps)
{
	char buf[1024], *p, *q;
	size_t len;

	if (smallfile_read(path, buf, sizeof(buf)) < 0)
		return -1;
	memset(ps, 0, sizeof(*ps));
	/* "pid (comm) state ppid ...": comm may hold anything, spaces and
	 * ')' too, so it ends at the last ')'. */
	p = strchr(buf, '(');
	q = strrchr(buf, ')');
	if (!p || !q || q < p)
		return -1;
	len = q - p - 1;
	memcpy(ps->comm, p + 1, len < IOLENS_COMM_LEN - 1 ? len : IOLENS_COMM_LEN - 1);
	/* The fields after it, from 3 (state): ppid is 4, flags 9,
	 * starttime 22, delayacct_blkio_ticks 42 (proc(5)). */
	p = q + 1;
	for (int field = 3; field <= 42; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (field == 3)
			ps->state = *p;
		else if (field == 4)
			ps->ppid = strtoul(p, NULL, 10);
		else if (field == 9)
			ps->flags = strtoull(p, NULL, 10);
		else if (field == 22)
			ps->starttime = strtoull(p, NULL, 10);
		else if (field == 42)
			ps->blkio_ticks = strtoull(p, NULL, 10);
		p += strcspn(p, " ");
	}
	return ps->state ? 0 : -1;
}

int procstat_euid(const char *status_path, __u32 *uid)
{
	char buf[4096], *p, *end;

	if (smallfile_read(status_path, buf, sizeof(buf)) < 0)
		return -1;
	/* "Uid:\treal\teffective\tsaved\tfs" */
	p = strstr(buf, "\nUid:");
	if (!p)
		return -1;
	strtoul(p + 5, &end, 10);
	*uid = strtoul(end, NULL, 10);
	return 0;
}
