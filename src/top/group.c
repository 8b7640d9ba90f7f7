// SPDX-License-Identifier: GPL-2.0
/*
 * top's group views: a row sums the processes of one user, one cgroup or
 * one container (or systemd unit, as lib/container.c names them).
 *
 * Writeback is written by kernel threads (the flusher's kworkers) in the
 * root cgroup.  On cgroup2 with the io and memory controllers on, the
 * kernel charges each of those requests to the cgroup that dirtied its
 * pages (cgroup writeback, Linux 4.2: the bio's blkcg), and the
 * aggregation keys them by it (agg.bpf.c's rq_cgroup()): a view of
 * cgroups or containers moves them from the flusher's group to the
 * owner's.  cgroup v1 charges them to the root: they stay where they are,
 * and cgroup_writeback_note() says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/cgroups.h"
#include "lib/container.h"
#include "lib/counters.h"
#include "lib/vec.h"
#include "top/top.h"

const char *const top_group_names[TOP_GROUP_NR] = {
	[TOP_GROUP_PID] = "pid", [TOP_GROUP_USER] = "user",
	[TOP_GROUP_CGROUP] = "cgroup", [TOP_GROUP_CONTAINER] = "container",
};

/* The name of the group of cgroup2 cgroup `id`. */
static const char *cgroup_group(enum top_group g, __u64 id, char *buf, size_t len)
{
	const char *path = cgroup_path(0, id);
	struct ctr_ident ci;

	if (!path) {
		snprintf(buf, len, "cgroup %llu", (unsigned long long)id);
		return buf;
	}
	if (g == TOP_GROUP_CGROUP) {
		snprintf(buf, len, "%s", path);
		return buf;
	}
	ctr_ident_of(path, &ci);
	return ctr_ident_label(&ci, path, buf, len);
}

static struct top_group_ent *group_find(struct top_frame *f, const char *name)
{
	for (int i = 0; i < f->ngroups; i++)
		if (!strcmp(f->groups[i].name, name))
			return &f->groups[i];
	return NULL;
}

/* FNV-1a with the top bit set: a cursor key no pid has. */
static __u32 name_hash(const char *s)
{
	__u32 h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h | 0x80000000u;
}

/* The group named `name`, new if none: NULL without memory. */
static struct top_group_ent *group_get(struct top_frame *f, const char *name,
				       __u32 flags)
{
	struct top_group_ent *g = group_find(f, name);

	if (g)
		return g;
	if (vec_grow(&f->groups, &f->groups_cap, f->ngroups + 1, sizeof(*f->groups), 16))
		return NULL;
	g = &f->groups[f->ngroups++];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->ent.id = name_hash(g->name);
	g->ent.flags = flags;
	return g;
}

static __u64 less(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

/* Writeback of the frame (or since start) moved to its owners' groups:
 * taken from the flusher's group whatever is shown; given to a group
 * shown, or to a new one when no filter hides the cgroup. */
static void move_writeback(struct top_frame *f, const struct top_opts *o,
			   const int *of)
{
	bool open = !o->npids && !o->by_uid && !o->comm && !(o->filter && *o->filter);
	const struct top_wb *wb = o->accumulated ? f->wb_all : f->wb;
	int nwb = o->accumulated ? f->nwb_all : f->nwb;
	char name[sizeof(f->groups->name)];

	for (int i = 0; i < f->nrows; i++) {
		struct proc_io *d = &f->groups[of[i]].row.d;
		const struct proc_io *p = &f->rows[i]->d;

		d->blk_ios = less(d->blk_ios, p->wb_ios);
		d->blk_ns = less(d->blk_ns, p->wb_ns);
		d->blk_timed = less(d->blk_timed, p->wb_timed);
		d->blk_bytes = less(d->blk_bytes, p->wb_bytes);
		d->blk_wbytes = less(d->blk_wbytes, p->wb_bytes);
	}
	for (int i = 0; i < nwb; i++) {
		const struct top_wb *w = &wb[i];
		struct top_group_ent *g;

		if (w->hier || !w->ios || (o->by_cgroup && w->cgroup != o->cgroup))
			continue;
		cgroup_group(o->group, w->cgroup, name, sizeof(name));
		g = open ? group_get(f, name, f->total_known) : group_find(f, name);
		if (!g)
			continue;
		if (!g->cgroup)
			g->cgroup = w->cgroup;
		g->row.d.blk_ios += w->ios;
		g->row.d.blk_ns += w->ns;
		g->row.d.blk_timed += w->timed;
		g->row.d.blk_bytes += w->bytes;
		g->row.d.blk_wbytes += w->bytes;
		g->wb_ios += w->ios;
		g->wb_bytes += w->bytes;
	}
}

/* f->rows (sorted processes) into f->members, a group's after another's,
 * each group's in their order: a counting sort by `of`. */
static int place_members(struct top_frame *f, const int *of)
{
	int at = 0;

	if (vec_grow(&f->members, &f->members_cap, f->nrows, sizeof(*f->members), 64))
		return -1;
	for (int g = 0; g < f->ngroups; g++) {
		f->groups[g].first = at;
		at += f->groups[g].nprocs;
		f->groups[g].n = 0;
	}
	for (int i = 0; i < f->nrows; i++) {
		struct top_group_ent *g = &f->groups[of[i]];

		f->members[g->first + g->n++] = f->rows[i];
	}
	f->nmembers = f->nrows;
	return 0;
}

void top_group_rows(struct top_frame *f, const struct top_opts *o)
{
	bool cgroups = o->group == TOP_GROUP_CGROUP || o->group == TOP_GROUP_CONTAINER;
	int *of = malloc((f->nrows ? f->nrows : 1) * sizeof(*of)), n = 0;
	char name[sizeof(f->groups->name)];
	struct top_row **groups;

	f->ngroups = f->nmembers = 0;
	f->wb_note = cgroups ? cgroup_writeback_note() : NULL;
	if (!of)
		return;		/* out of memory: the processes stay */
	for (int i = 0; i < f->nrows; i++) {
		const struct top_row *r = f->rows[i];
		const struct proc_ent *e = r->e;
		struct top_group_ent *g;

		g = group_get(f, cgroups ? cgroup_group(o->group, e->cgroup, name, sizeof(name)) :
			      r->user, e->flags);
		if (!g)
			goto oom;
		of[i] = g - f->groups;
		if (!g->nprocs++) {
			g->uid = e->uid;
			g->one_user = true;
			g->cgroup = e->cgroup;
		}
		g->ent.flags &= e->flags;
		g->one_user &= g->uid == e->uid;
		counters_add(&g->row.d, &r->d, sizeof(r->d));
	}
	if (cgroups)
		move_writeback(f, o, of);
	if (place_members(f, of) || top_rows_room(f, f->ngroups + (o->tree_view ? f->nrows : 0)))
		goto oom;
	for (int i = 0; i < f->ngroups; i++) {
		struct top_group_ent *g = &f->groups[i];
		struct top_row *r = &g->row;

		r->e = &g->ent;
		r->g = g;
		r->user = g->nprocs && g->one_user ? top_user_name(g->uid) : "-";
		r->hit = top_hit_ratio(&r->d, g->ent.flags & IOLENS_TASK_SYS);
		r->depth = 0;
		r->cmdline = NULL;
		f->rows[i] = r;
	}
	top_rows_sort(f->rows, f->ngroups, o);
	n = f->ngroups;
	/* Each group's processes under it, at the tree's first level. */
	groups = o->tree_view ? malloc(n * sizeof(*groups) + 1) : NULL;
	if (groups) {
		memcpy(groups, f->rows, n * sizeof(*groups));
		n = 0;
		for (int i = 0; i < f->ngroups; i++) {
			const struct top_group_ent *g = groups[i]->g;

			f->rows[n++] = groups[i];
			for (int k = 0; k < g->n; k++) {
				f->members[g->first + k]->depth = 1;
				f->rows[n++] = f->members[g->first + k];
			}
		}
		free(groups);
	}
	f->nrows = n;
	free(of);
	return;
oom:
	/* Out of memory: the processes stay, as in the process view. */
	f->ngroups = f->nmembers = 0;
	free(of);
}
