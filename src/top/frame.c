// SPDX-License-Identifier: GPL-2.0
/* A frame of `iolens top`: rows filtered and sorted as the options say. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/cgroups.h"
#include "lib/hist.h"
#include "top/top.h"
#include "lib/vec.h"

const char *const top_sc_names[IOLENS_SC_NR] = {
	"file_read", "file_write", "other_read", "other_write", "sync",
};

int top_frame_init(struct top_frame *f)
{
	for (int c = 0; c < IOLENS_SC_NR; c++) {
		f->sys_hist[c] = calloc(HIST_BUCKETS, sizeof(__u64));
		if (!f->sys_hist[c])
			return -ENOMEM;
	}
	return 0;
}

void top_frame_free(struct top_frame *f)
{
	free(f->files);
	for (int c = 0; c < IOLENS_SC_NR; c++)
		free(f->sys_hist[c]);
	for (int i = 0; i < f->ndev; i++)
		free(f->devs[i].hist);
	free(f->devs);
	free(f->wb);
	free(f->wb_all);
	free(f->all);
	free(f->rows);
	free(f->groups);
	free(f->members);
}

static bool active(const struct proc_io *d)
{
	const __u64 *x = (const __u64 *)d;

	for (size_t i = 0; i < sizeof(*d) / sizeof(__u64); i++)
		if (x[i])
			return true;
	return false;
}

bool top_filter_names(__u32 pid, const char *comm, const char *filter)
{
	char text[16];

	snprintf(text, sizeof(text), "%u", pid);
	return !strcmp(text, filter) || strstr(comm, filter);
}

static bool wanted(const struct top_row *r, const struct top_opts *o)
{
	const struct proc_ent *e = r->e;
	bool ok = !o->npids;

	for (int i = 0; i < o->npids; i++)
		ok |= o->pids[i] == e->id;
	ok = ok || (o->npids && o->tree && proctree_has(o->tree, e->tgid));
	if (!ok || (o->by_uid && e->uid != o->uid) ||
	    (o->comm && !strstr(e->comm, o->comm)) ||
	    (o->by_cgroup && e->cgroup != o->cgroup) ||
	    (o->only_active && !active(&r->d)))
		return false;
	if (!o->filter || !*o->filter)
		return true;
	return top_filter_names(e->id, e->comm, o->filter) || strstr(r->user, o->filter);
}

struct id_idx {
	__u32 id;
	int idx;
};

static int by_id(const void *a, const void *b)
{
	const struct id_idx *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The row of id, or -1. */
static int row_of(const struct id_idx *ids, int n, __u32 id)
{
	struct id_idx k = { .id = id }, *hit;

	hit = n ? bsearch(&k, ids, n, sizeof(*ids), by_id) : NULL;
	return hit ? hit->idx : -1;
}

/* Appends row i and the rows under it, depth first, children in the
 * order of kid/next; `it` and `stack` are scratch of n ints. */
static void subtree(struct top_frame *f, int root, const int *kid, const int *next,
		    int *it, int *stack, bool *shown, struct top_row **out, int *nout)
{
	int sp = 0;

	shown[root] = true;
	f->rows[root]->depth = 0;
	out[(*nout)++] = f->rows[root];
	it[root] = kid[root];
	stack[sp++] = root;
	while (sp) {
		int top = stack[sp - 1], c = it[top];

		if (c < 0) {
			sp--;
			continue;
		}
		it[top] = next[c];
		if (shown[c])
			continue;
		shown[c] = true;
		f->rows[c]->depth = sp;
		out[(*nout)++] = f->rows[c];
		it[c] = kid[c];
		stack[sp++] = c;
	}
}

/*
 * The rows as a tree, as ps f and htop's tree view: each under its parent
 * (a thread under its process), siblings in the sort order.  A row whose
 * parent is not shown is a root; so is one of a cycle, which pids read at
 * different moments could make.  Out of memory, the rows stay as sorted.
 */
static void tree_order(struct top_frame *f, const struct top_opts *o)
{
	int n = f->nrows, nout = 0, *kid, *next, *last, *it, *stack;
	struct top_row **out = malloc(n * sizeof(*out));
	struct id_idx *ids = malloc(n * sizeof(*ids));
	bool *shown = calloc(n, 2 * sizeof(bool)), *child;

	kid = malloc(5 * n * sizeof(int));
	if (!out || !ids || !shown || !kid)
		goto out;
	next = kid + n;
	last = next + n;
	it = last + n;
	stack = it + n;
	child = shown + n;
	for (int i = 0; i < n; i++) {
		ids[i] = (struct id_idx){ f->rows[i]->e->id, i };
		kid[i] = next[i] = last[i] = -1;
	}
	qsort(ids, n, sizeof(*ids), by_id);
	for (int i = 0; i < n; i++) {
		const struct proc_ent *e = f->rows[i]->e;
		int p = row_of(ids, n, o->threads && e->id != e->tgid ? e->tgid : e->ppid);

		if (p < 0 || p == i)
			continue;
		if (last[p] < 0)
			kid[p] = i;
		else
			next[last[p]] = i;
		last[p] = i;
		child[i] = true;
	}
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++)
			if (!shown[i] && (pass || !child[i]))
				subtree(f, i, kid, next, it, stack, shown, out, &nout);
	memcpy(f->rows, out, n * sizeof(*out));
out:
	free(out);
	free(ids);
	free(shown);
	free(kid);
}

void top_arrange(struct top_frame *f, const struct top_opts *o)
{
	f->nrows = 0;
	f->ngroups = f->nmembers = 0;
	f->wb_note = NULL;
	memset(&f->total, 0, sizeof(f->total));
	f->total_known = IOLENS_TASK_SYS | IOLENS_TASK_BLKIO | IOLENS_TASK_SWAPIN;
	for (int i = 0; i < f->nall; i++) {
		struct top_row *r = &f->all[i];

		/* cur counts from top's start (proctable.h). */
		if (o->accumulated)
			r->d = r->e->cur;
		else
			proc_io_sub(&r->d, &r->e->cur, &r->e->prev);
		r->hit = top_hit_ratio(&r->d, r->e->flags & IOLENS_TASK_SYS);
		r->depth = 0;
		if (!wanted(r, o))
			continue;
		/* Read once per process, and only for rows shown. */
		r->cmdline = o->cmdline ? proc_cmdline(r->e) : NULL;
		f->rows[f->nrows++] = r;
		f->total_known &= r->e->flags;
		for (size_t k = 0; k < sizeof(r->d) / sizeof(__u64); k++)
			((__u64 *)&f->total)[k] += ((const __u64 *)&r->d)[k];
	}
	if (!f->nrows)
		f->total_known = 0;
	top_rows_sort(f->rows, f->nrows, o);
	if (o->group != TOP_GROUP_PID)
		top_group_rows(f, o);
	else if (o->tree_view && f->nrows)
		tree_order(f, o);
}

void top_wb_name(char *buf, size_t len, const struct top_wb *w)
{
	const char *p = cgroup_path(w->hier, w->cgroup);

	if (p)
		snprintf(buf, len, "%s", p);
	else
		snprintf(buf, len, "cgroup %llu", (unsigned long long)w->cgroup);
}

const char *top_dev_label(const struct top_dev *d, char *buf, size_t len)
{
	int in = d->depth > 3 ? 6 : 2 * d->depth;

	snprintf(buf, len, "%*s%s", in, "", d->info.name);
	return buf;
}
