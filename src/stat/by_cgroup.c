// SPDX-License-Identifier: GPL-2.0
/*
 * `iolens stat --by cgroup` (stat/by_cgroup.h).  The kernel's label sets
 * (device, op, cgroup) are counted since the start and never reset: an
 * interval is the difference of two reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/cgroups.h"
#include "lib/container.h"
#include "lib/sanitize.h"
#include "lib/vec.h"
#include "stat/by_cgroup.h"

static int key_cmp(const void *a, const void *b)
{
	const struct stat_label *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->key.cg_hier != y->key.cg_hier)
		return x->key.cg_hier < y->key.cg_hier ? -1 : 1;
	if (x->key.cg_id != y->key.cg_id)
		return x->key.cg_id < y->key.cg_id ? -1 : 1;
	return x->key.sg - y->key.sg;
}

int stat_cg_update(struct stat_cg *s, const struct agg_trace *st)
{
	struct stat_label *cur;
	int n = agg_trace_labels(st, &cur);

	if (n < 0)
		return n;
	vec_sort(cur, n, sizeof(*cur), key_cmp);
	free(s->d);
	s->d = malloc((n ? n : 1) * sizeof(*s->d));
	s->nd = 0;
	if (!s->d) {
		free(cur);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		const struct stat_label *p = s->nprev ?
			bsearch(&cur[i], s->prev, s->nprev, sizeof(*p), key_cmp) : NULL;
		struct stat_label *d = &s->d[s->nd];

		*d = cur[i];
		if (p) {
			d->n.ios -= p->n.ios;
			d->n.bytes -= p->n.bytes;
		}
		s->nd += d->n.ios != 0;
	}
	free(s->prev);
	s->prev = cur;
	s->nprev = n;
	return 0;
}

void stat_cg_free(struct stat_cg *s)
{
	free(s->prev);
	free(s->d);
}

/* A cgroup's reads and writes on one disk: the sets of one (hier, id)
 * follow each other in s->d. */
struct cg_line {
	unsigned int hier;
	__u64 id;
	__u64 ios[2], bytes[2];	/* read, write */
};

/* The cgroup line starting at s->d[*i], *i moved past it. */
static struct cg_line next_line(const struct stat_cg *s, int *i)
{
	const struct stat_label *l = &s->d[*i];
	struct cg_line c = { .hier = l->key.cg_hier, .id = l->key.cg_id };

	for (; *i < s->nd && s->d[*i].dev == l->dev && s->d[*i].key.cg_id == c.id &&
	     s->d[*i].key.cg_hier == c.hier; (*i)++) {
		int sg = s->d[*i].key.sg;

		if (sg == IOLENS_SG_READ || sg == IOLENS_SG_WRITE) {
			c.ios[sg] += s->d[*i].n.ios;
			c.bytes[sg] += s->d[*i].n.bytes;
		}
	}
	return c;
}

/* The cgroup's path, or why there is none. */
static const char *cg_name(const struct cg_line *c)
{
	const char *p = cgroup_path(c->hier, c->id);

	return !c->id ? "(unknown)" : p ? p : "(gone)";
}

static void print_line(const struct stat_row *r, const struct cg_line *c,
		       const char *name, double secs, bool *header)
{
	char san[SAN_TEXT_MAX(4096) + 1];

	if (!*header)
		printf("%-13s %9s %10s %9s %10s  %s\n", "Device", "r/s", "rkB/s", "w/s",
		       "wkB/s", "cgroup");
	*header = true;
	printf("%-13s %9.2f %10.2f %9.2f %10.2f  %s\n", r->name, c->ios[0] / secs,
	       c->bytes[0] / 1024.0 / secs, c->ios[1] / secs, c->bytes[1] / 1024.0 / secs,
	       san_text_buf(san, sizeof(san), name));
}

void stat_cg_print(const struct stat_cg *s, const struct stat_row *rows, int n,
		   double secs)
{
	bool header = false;

	for (int r = 0; r < n; r++) {
		const struct iolens_stat *op = rows[r].d ? rows[r].d->op : NULL;
		struct cg_line c;

		if (rows[r].partition)
			continue;
		for (int i = 0; i < s->nd;) {
			if (s->d[i].dev != rows[r].dev) {
				i++;
				continue;
			}
			c = next_line(s, &i);
			print_line(&rows[r], &c, cg_name(&c), secs, &header);
		}
		if (!op || !(op[IOLENS_SG_READ].label_other_ios + op[IOLENS_SG_WRITE].label_other_ios))
			continue;
		c = (struct cg_line){
			.ios = { op[IOLENS_SG_READ].label_other_ios,
				 op[IOLENS_SG_WRITE].label_other_ios },
			.bytes = { op[IOLENS_SG_READ].label_other_bytes,
				   op[IOLENS_SG_WRITE].label_other_bytes } };
		print_line(&rows[r], &c, "(other: beyond the cgroups counted apart)", secs,
			   &header);
	}
	if (header && cgroup_writeback_note())
		printf("(%s)\n", cgroup_writeback_note());
}

void stat_cg_json(struct json *j, const struct stat_cg *s,
		  const struct stat_row *r, double secs)
{
	char label[512];

	json_arr_open(j, "cgroups");
	for (int i = 0; i < s->nd;) {
		struct ctr_ident ci;
		struct cg_line c;
		const char *path;

		if (s->d[i].dev != r->dev) {
			i++;
			continue;
		}
		c = next_line(s, &i);
		path = cg_name(&c);
		ctr_ident_of(*path == '(' ? NULL : path, &ci);
		json_obj_open(j, NULL);
		json_str(j, "cgroup", path);
		json_u64(j, "cgroup_id", c.id);
		json_str(j, "hierarchy", c.hier ? "v1" : "cgroup2");
		json_str(j, "group", ctr_ident_label(&ci, path, label, sizeof(label)));
		json_f64(j, "r/s", c.ios[0] / secs, 2);
		json_f64(j, "rkB/s", c.bytes[0] / 1024.0 / secs, 2);
		json_f64(j, "w/s", c.ios[1] / secs, 2);
		json_f64(j, "wkB/s", c.bytes[1] / 1024.0 / secs, 2);
		json_u64(j, "read_requests", c.ios[0]);
		json_u64(j, "read_bytes", c.bytes[0]);
		json_u64(j, "write_requests", c.ios[1]);
		json_u64(j, "write_bytes", c.bytes[1]);
		json_obj_close(j);
	}
	json_arr_close(j);
	if (r->d) {
		json_u64(j, "cgroups_other_read_bytes", r->d->op[IOLENS_SG_READ].label_other_bytes);
		json_u64(j, "cgroups_other_write_bytes", r->d->op[IOLENS_SG_WRITE].label_other_bytes);
	}
}
