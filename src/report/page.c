// SPDX-License-Identifier: GPL-2.0
/* The data of the report's charts, gathered in one pass (report/page.h). */
#include <stdlib.h>
#include <string.h>
#include "lib/hist.h"
#include "report/page.h"
#include "report/report.h"
#include "lib/vec.h"

const char *const page_op_names[PAGE_NOPS] = { "read", "write", "other" };

enum page_op page_op_of(const struct iolens_rq *rq)
{
	return rq->op == IOLENS_OP_READ ? PAGE_READ :
	       rq->op == IOLENS_OP_WRITE ? PAGE_WRITE : PAGE_OTHER;
}

int page_lrow(__u64 ns)
{
	unsigned int e;
	int row;

	if (ns < PAGE_LROW_MIN)
		return 0;
	e = hist_msb(ns);
	row = 2 * (int)(e - 10) + (int)((ns >> (e - 1)) & 1);
	return row < PAGE_LROWS ? row : PAGE_LROWS - 1;
}

__u64 page_lrow_lower(int row)
{
	__u64 base = PAGE_LROW_MIN << (row / 2);

	return row & 1 ? base + base / 2 : base;
}

/* Room for a table of `cap` rows; false without memory. */
static bool table_make(struct page_table *t, int cap)
{
	t->cap = cap;
	t->v = calloc(cap, sizeof(*t->v));
	return t->v;
}

struct page *page_new(__u64 t0, bool stacks, bool files)
{
	struct page *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->t0 = t0;
	p->width = PAGE_T0_WIDTH;
	if (!table_make(&p->who, PAGE_WHO) || !table_make(&p->cgroups, PAGE_CGROUPS) ||
	    (stacks && !table_make(&p->stacks, PAGE_STACKS)) ||
	    (files && !table_make(&p->files, PAGE_FILES))) {
		page_free(p);
		return NULL;
	}
	return p;
}

void page_free(struct page *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->ndev; i++)
		free(p->devs[i].off);
	free(p->devs);
	free(p->who.v);
	free(p->cgroups.v);
	free(p->stacks.v);
	free(p->files.v);
	free(p);
}

/* Bins twice as wide: bin i holds what bins 2i and 2i+1 held. */
static void widen(struct page *p)
{
	for (int i = 0; i < PAGE_TBINS; i++) {
		struct page_col c = {};

		if (2 * i + 1 < PAGE_TBINS) {
			const struct page_col *a = &p->col[2 * i], *b = a + 1;

			for (int k = 0; k < 2; k++)
				for (int r = 0; r < PAGE_LROWS; r++)
					c.lat[k][r] = a->lat[k][r] + b->lat[k][r];
			for (int o = 0; o < PAGE_NOPS; o++) {
				c.n[o] = a->n[o] + b->n[o];
				c.bytes[o] = a->bytes[o] + b->bytes[o];
			}
			c.qd_sum = a->qd_sum + b->qd_sum;
			c.qd_n = a->qd_n + b->qd_n;
			c.qd_max = a->qd_max > b->qd_max ? a->qd_max : b->qd_max;
			c.failed = a->failed + b->failed;
		}
		p->col[i] = c;
	}
	for (int d = 0; d < p->ndev; d++) {
		struct page_offsets *off = p->devs[d].off;

		if (!off)
			continue;
		for (int i = 0; i < PAGE_TBINS; i++)
			for (int r = 0; r < PAGE_OROWS; r++)
				for (int o = 0; o < PAGE_NOPS; o++)
					off->cell[i][r][o] = 2 * i + 1 < PAGE_TBINS ?
						off->cell[2 * i][r][o] + off->cell[2 * i + 1][r][o] : 0;
	}
	p->width *= 2;
	p->nbins = (p->nbins + 1) / 2;
}

/* Rows twice as tall: row r holds what rows 2r and 2r+1 held. */
static void heighten(struct page_offsets *off)
{
	for (int i = 0; i < PAGE_TBINS; i++)
		for (int r = 0; r < PAGE_OROWS; r++)
			for (int o = 0; o < PAGE_NOPS; o++)
				off->cell[i][r][o] = 2 * r + 1 < PAGE_OROWS ?
					off->cell[i][2 * r][o] + off->cell[i][2 * r + 1][o] : 0;
	off->sectors_per_row *= 2;
}

static struct page_dev *dev_of(struct page *p, __u32 dev)
{
	bool added;
	struct page_dev *d;

	/* The first REPORT_DEVS disks apart, the others as one
	 * (report/report.h). */
	if (p->ndev >= REPORT_DEVS && !vec_find_by(p->devs, p->ndev, dev, &dev))
		dev = REPORT_OTHER_DEVS;
	d = vec_get_by(&p->devs, &p->ndev, dev, &dev, &added);
	if (!d || !added || p->ndev > PAGE_ODEVS)
		return d;
	d->off = calloc(1, sizeof(*d->off));
	if (!d->off) {
		/* Not kept without its offsets: the next request tries again. */
		p->ndev--;
		return NULL;
	}
	/* 1 MiB a row to start with: 64 MiB, doubled as needed. */
	d->off->sectors_per_row = 2048;
	return d;
}

static unsigned int hash(__u64 a, const char *s)
{
	__u64 h = a * 0x9e3779b97f4a7c15ULL;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (unsigned int)(h >> 32);
}

/* Whether two rows are of the same submitter, cgroup, stack or file (the
 * fields of a table's rows that are not its key are 0). */
static bool same_key(const struct page_who *a, const struct page_who *b)
{
	return a->pid == b->pid && a->hier == b->hier && a->cgroup == b->cgroup &&
	       a->stack == b->stack && a->fdev == b->fdev && a->fgen == b->fgen &&
	       a->ino == b->ino && a->fkind == b->fkind &&
	       !strncmp(a->comm, b->comm, sizeof(a->comm));
}

/* The row of `key`'s submitter, cgroup, stack or file in t (made from key
 * if new); its "others" when full. */
static struct page_who *who_of(struct page_table *t, const struct page_who *key)
{
	unsigned int h = hash((__u64)key->pid << 32 ^ key->cgroup ^ key->hier ^
			      (__u64)key->stack << 40 ^ key->ino ^ (__u64)key->fdev << 20 ^
			      key->fgen ^ (__u64)key->fkind << 60, key->comm);

	/* At most 3/4 full, so that a lookup ends soon. */
	for (unsigned int i = 0; i < (unsigned int)t->cap; i++) {
		struct page_who *w = &t->v[(h + i) % t->cap];

		if (!w->used) {
			if (4 * (t->n + 1) > 3 * t->cap)
				return &t->others;
			*w = *key;
			w->used = true;
			t->n++;
			return w;
		}
		if (same_key(w, key))
			return w;
	}
	return &t->others;
}

static void who_add(struct page_who *w, const struct iolens_rq *rq, __u64 total)
{
	w->requests++;
	w->bytes += rq->bytes;
	if (rq->op == IOLENS_OP_READ || rq->op == IOLENS_OP_WRITE)
		w->op_bytes[rq->op] += rq->bytes;
	w->time_ns += total;
	w->timed += total != 0;
}

/* The bin of time t, bins widened until it has one. */
static int bin_of(struct page *p, __u64 t)
{
	__u64 bin = t > p->t0 ? (t - p->t0) / p->width : 0;

	while (bin >= PAGE_TBINS) {
		widen(p);
		bin /= 2;
	}
	if ((int)bin >= p->nbins)
		p->nbins = bin + 1;
	return (int)bin;
}

void page_span(struct page *p, __u64 end)
{
	if (end > p->t0)
		bin_of(p, end - 1);
}

int page_add(struct page *p, const struct iolens_rq *rq)
{
	struct page_dev *d = dev_of(p, rq->dev);
	enum page_op op = page_op_of(rq);
	__u64 total = rq->ts_start && rq->ts_complete && rq->ts_complete >= rq->ts_start ?
		      rq->ts_complete - rq->ts_start : 0;
	bool failed = rq->status;
	struct page_who key;
	struct page_col *c;
	int bin;

	if (!d)
		return -1;
	p->requests++;
	p->bytes += rq->bytes;
	d->requests++;
	d->bytes += rq->bytes;
	if (failed) {
		p->failed++;
		d->failed++;
		if (p->nfails < PAGE_FAILS)
			p->fails[p->nfails++] = *rq;
		/* Its time is not a success's latency. */
		total = 0;
	} else {
		rqsum_add(&p->sum, rq);
		rqsum_add(&d->sum, rq);
	}
	if (rq->bytes) {
		p->size[hist_index(rq->bytes)]++;
		p->size_n++;
	}
	if (total) {
		d->total_ns += total;
		d->timed++;
	}
	key = (struct page_who){ .pid = rq->pid };
	memcpy(key.comm, rq->comm, sizeof(key.comm));
	who_add(who_of(&p->who, &key), rq, total);
	/* The cgroup that owns the I/O (the dirtier's, for writeback) when
	 * the kernel said, else the submitter's. */
	if (rq->io_cgroup)
		key = (struct page_who){ .hier = rq->io_cgroup_hier, .cgroup = rq->io_cgroup };
	else
		key = (struct page_who){ .cgroup = rq->cgroup };
	who_add(who_of(&p->cgroups, &key), rq, total);
	if (p->stacks.v) {
		key = (struct page_who){ .stack = rq->stack };
		who_add(who_of(&p->stacks, &key), rq, total);
	}
	if (p->files.v) {
		key = (struct page_who){ .fdev = rq->fdev, .fgen = rq->fgen, .ino = rq->ino,
					 .fkind = rq->fkind };
		who_add(who_of(&p->files, &key), rq, total);
	}
	if (!rq->ts_complete) {
		p->unseen++;
		d->unseen++;
		return 0;
	}
	/* Over time, by completion. */
	bin = bin_of(p, rq->ts_complete);
	if (rq->ts_complete > p->last)
		p->last = rq->ts_complete;
	c = &p->col[bin];
	c->n[op]++;
	c->bytes[op] += rq->bytes;
	c->failed += failed;
	if (total)
		c->lat[0][page_lrow(total)]++;
	if (!failed && rq->ts_issue && rq->ts_complete >= rq->ts_issue)
		c->lat[1][page_lrow(rq->ts_complete - rq->ts_issue)]++;
	if (rq->qd) {
		c->qd_sum += rq->qd;
		c->qd_n++;
		if (rq->qd > c->qd_max)
			c->qd_max = rq->qd;
	}
	/* A flush has no place on the disk (its sector is the kernel's -1). */
	if (d->off && rq->bytes && rq->sector < PAGE_SECTOR_MAX) {
		__u64 row = rq->sector / d->off->sectors_per_row;

		while (row >= PAGE_OROWS) {
			heighten(d->off);
			row /= 2;
		}
		d->off->cell[bin][row][op]++;
	}
	return 0;
}

static enum page_order cmp_by;

static __u64 size_of(const struct page_who *w)
{
	return cmp_by == PAGE_BY_TIME ? w->time_ns :
	       cmp_by == PAGE_BY_BYTES ? w->bytes : w->requests;
}

static int by_size(const void *a, const void *b)
{
	const struct page_who *x = *(const struct page_who *const *)a;
	const struct page_who *y = *(const struct page_who *const *)b;
	__u64 u = size_of(x), v = size_of(y);

	if (u != v)
		return u < v ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->cgroup != y->cgroup)
		return x->cgroup < y->cgroup ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

int page_top(const struct page_table *t, enum page_order by, const struct page_who **out,
	     int n)
{
	const struct page_who **all = malloc(t->n * sizeof(*all) + 1);
	int k = 0;

	if (!all)
		return 0;
	for (int i = 0; i < t->cap; i++)
		if (t->v[i].used)
			all[k++] = &t->v[i];
	cmp_by = by;
	if (k)
		qsort(all, k, sizeof(*all), by_size);
	if (k > n)
		k = n;
	memcpy(out, all, k * sizeof(*out));
	free(all);
	return k;
}

bool page_is_writeback(const struct page_who *w)
{
	return !strncmp(w->comm, "kworker/", 8);
}

void page_writeback(const struct page_table *t, struct page_who *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < t->cap; i++) {
		const struct page_who *w = &t->v[i];

		if (!w->used || !page_is_writeback(w))
			continue;
		sum->requests += w->requests;
		sum->bytes += w->bytes;
		sum->time_ns += w->time_ns;
	}
}
