// SPDX-License-Identifier: GPL-2.0
/* The table's rows: their room, their order and the values every row has
 * but no counter holds, for the process view (frame.c) and the group views
 * (group.c) alike. */
#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include "lib/vec.h"
#include "top/top.h"

static const struct top_opts *sort_opts;

static int row_cmp(const void *a, const void *b)
{
	const struct top_row *x = *(struct top_row *const *)a;
	const struct top_row *y = *(struct top_row *const *)b;
	int c = top_col_cmp(x, y, sort_opts->sort);

	return sort_opts->reverse ? -c : c;
}

void top_rows_sort(struct top_row **rows, int n, const struct top_opts *o)
{
	sort_opts = o;
	vec_sort(rows, n, sizeof(*rows), row_cmp);
}

int top_rows_room(struct top_frame *f, size_t n)
{
	return vec_grow(&f->rows, &f->rows_cap, n, sizeof(*f->rows), 64) ? -ENOMEM : 0;
}

const char *top_user_name(uid_t uid)
{
	static struct { uid_t uid; char name[32]; } cache[64];
	static int n;
	struct passwd *pw;

	for (int i = 0; i < n; i++)
		if (cache[i].uid == uid)
			return cache[i].name;
	if (n == (int)(sizeof(cache) / sizeof(cache[0])))
		n = 0;	/* crude, and rare: many users at once */
	cache[n].uid = uid;
	pw = getpwuid(uid);
	if (pw)
		snprintf(cache[n].name, sizeof(cache[n].name), "%s", pw->pw_name);
	else
		snprintf(cache[n].name, sizeof(cache[n].name), "%u", uid);
	return cache[n++].name;
}

/* Readahead can read more than was asked for; that is still no hit. */
double top_hit_ratio(const struct proc_io *d, bool syscalls)
{
	double fb = d->sys.bytes[IOLENS_SC_FILE_READ];

	if (!syscalls || fb < TOP_HIT_MIN_BYTES)
		return NAN;
	return d->io.read_bytes >= fb ? 0 : 1 - d->io.read_bytes / fb;
}
