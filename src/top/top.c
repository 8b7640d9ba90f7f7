// SPDX-License-Identifier: GPL-2.0
/* iolens top: the run, from the options to the last frame. */
#include <string.h>
#include "lib/log.h"
#include "lib/proctree.h"
#include "top/top.h"

#define CMD "top"

static int parse_columns(struct top_opts *o, const char *s)
{
	char bad[64], cut[96], all[512];
	int cols[TOP_MAX_COLS], all_cols[TOP_MAX_COLS], n;

	n = top_cols_parse(s, cols, bad, sizeof(bad));
	if (n < 0) {
		for (int c = 0; c < top_ncols; c++)
			all_cols[c] = c;
		top_cols_format(all, sizeof(all), all_cols, top_ncols);
		return usage_err(CMD, "--columns: no column '%s' (or named twice): want some of %s",
				 log_excerpt(bad, cut, sizeof(cut)), all);
	}
	memcpy(o->cols, cols, n * sizeof(*cols));
	o->ncols = n;
	o->cols_given = true;
	return 0;
}

int top_run(const struct top_opts *opts)
{
	struct top_opts o = *opts;
	struct top_collector *c = NULL;
	struct top_frame f = {};
	struct proctree tree;
	int roots[16];
	int ret = 1;

	if (o.sort < 0)
		o.sort = top_col_by_key("disk_read");
	/* The defaults, then toprc's, then --columns. */
	o.ncols = top_cols_default(o.cols);
	if (o.columns && parse_columns(&o, o.columns))
		return 2;
	for (int i = 0; i < o.npids; i++)
		roots[i] = (int)o.pids[i];
	proctree_init(&tree, roots, o.npids);
	o.tree = &tree;
	if (top_frame_init(&f)) {
		pr_err("out of memory");
		goto out;
	}
	/* Everything that can fail does so before the terminal is touched. */
	c = top_collect_start(CMD, &o);
	if (!c)
		goto out;
	/* After the checks that can refuse to run: their line comes alone. */
	if (!o.cols_given)
		top_rc_load(&o);
	if (o.batch)
		ret = top_batch_run(&o, &f, c);
	else
		ret = top_tui_run(&o, &f, top_collect, c);
out:
	top_frame_free(&f);
	top_collect_stop(c);
	proctree_free(&tree);
	return ret;
}
