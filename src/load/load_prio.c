// SPDX-License-Identifier: GPL-2.0
/*
 * fio's I/O priorities, as fio 3.33 sets and counts them:
 *   - prio and prioclass: the job's own, ioprio_set(2) on its thread (the
 *     kernel gives it to each I/O the thread issues); a class of 0 is
 *     best-effort, as fio's ioprio_value().
 *   - cmdprio_percentage (with cmdprio_class, default real-time, and
 *     cmdprio) or cmdprio_bssplit: a share of the I/Os, by direction and
 *     by block size, carried at another priority by the I/O itself.
 *   - the clat of each priority apart; fio reports them where at least two
 *     of a direction have samples, the job's own first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/ioprio.h>
#include "lib/parse.h"
#include "load/engine.h"
#include "load/job.h"
#include "load/opts.h"
#include "load/prio.h"

static __u16 ioprio_of(unsigned int class, unsigned int level)
{
	return (class ? class : IOPRIO_CLASS_BE) << IOPRIO_CLASS_SHIFT | level;
}

/* "bs/", "bs/perc" or "bs/perc/class/level", as fio's sscanf. */
static int parse_entry(char *s, struct load_prio_entry *e)
{
	char *part[4], *save = NULL;
	unsigned int v[3] = { 0 };
	int n = 0;

	for (char *p = strtok_r(s, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (n == 4)
			return -1;
		part[n++] = p;
	}
	if (n != 1 && n != 2 && n != 4)
		return -1;
	if (parse_size(part[0], &e->bs) || !e->bs)
		return -1;
	for (int i = 1; i < n; i++) {
		char *end;

		v[i - 1] = strtoul(part[i], &end, 10);
		if (*end || end == part[i] || *part[i] == '-')
			return -1;
	}
	if (v[0] > 100 || (n == 4 && (v[1] > 3 || v[2] > 7)))
		return -1;
	e->perc = v[0];
	e->ioprio = n == 4 ? ioprio_of(v[1], v[2]) : -1;
	return 0;
}

int load_prio_parse_split(char *s, struct load_prio_split *ps, const char **err)
{
	char *save = NULL;

	ps->n = 0;
	for (char *p = strtok_r(s, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		struct load_prio_entry e;
		unsigned int k;

		if (parse_entry(p, &e)) {
			*err = "want BS/PCT[/CLASS/LEVEL]:..., PCT 0-100, CLASS 0-3, LEVEL 0-7";
			return -1;
		}
		/* fio's: an entry of 0% says nothing. */
		if (!e.perc)
			continue;
		if (ps->n == LOAD_MAX_PRIO_SPLIT) {
			*err = "at most 16 entries a direction";
			return -1;
		}
		/* By block size, those of one size in the order given. */
		for (k = ps->n; k && ps->e[k - 1].bs > e.bs; k--)
			ps->e[k] = ps->e[k - 1];
		ps->e[k] = e;
		ps->n++;
	}
	for (unsigned int i = 0, sum = 0; i < ps->n; i++) {
		sum = i && ps->e[i - 1].bs == ps->e[i].bs ? sum + ps->e[i].perc : ps->e[i].perc;
		if (sum > 100) {
			*err = "the shares of one block size add up to more than 100";
			return -1;
		}
	}
	return 0;
}

static bool per_io(const struct load_job_opts *o)
{
	for (int d = 0; d < LOAD_DIRS; d++) {
		if (o->cmdprio_pct[d] || o->cmdprio_split[d].n)
			return true;
	}
	return false;
}

const char *load_prio_check(const struct load_job_opts *o,
			    const struct load_job_opts *prev __attribute__((unused)))
{
	bool pct = false, split = false;

	for (int d = 0; d < LOAD_DIRS; d++) {
		pct |= o->cmdprio_pct[d] != 0;
		split |= o->cmdprio_split[d].n != 0;
	}
	if (pct && split)
		return "cmdprio_percentage and cmdprio_bssplit do not go together";
	if ((pct || split) && !o->ioengine->prio_per_io)
		return "cmdprio_percentage and cmdprio_bssplit need the libaio or io_uring engine";
	return NULL;
}

/* The index of the thread's statistics of (dir, ioprio), added if new:
 * room was made for the job's own and every entry of every direction. */
static __u8 stat_of(struct load_stats *st, int dir, __u16 ioprio)
{
	for (unsigned int i = 0; i < st->nprios; i++) {
		if (st->prios[i].dir == dir && st->prios[i].ioprio == ioprio)
			return i;
	}
	st->prios[st->nprios] = (struct load_prio_stats){ .dir = dir, .ioprio = ioprio };
	return st->nprios++;
}

/* Direction d's choices: the job's priority first, as fio's index 0,
 * then each entry's in the split's order. */
static void plan_dir(struct load_thread *t, int d)
{
	const struct load_job_opts *o = t->o;
	struct load_prio_dir *pd = &t->prio.dir[d];
	__u16 cmd = ioprio_of(o->cmdprio_class[d] ? o->cmdprio_class[d] : IOPRIO_CLASS_RT,
			      o->cmdprio_level[d]);
	struct load_prio_split one = { 1, { { 0, o->cmdprio_pct[d], -1 } } };
	const struct load_prio_split *ps = o->cmdprio_pct[d] ? &one : &o->cmdprio_split[d];

	/* fio sets no priority on a trim. */
	if (d == LOAD_TRIM || !load_dir_used(o, d) || !ps->n)
		return;
	pd->own = stat_of(&t->st, d, t->prio.ioprio);
	for (unsigned int i = 0; i < ps->n; i++) {
		struct load_prio_choice *c = &pd->e[i];

		c->bs = ps->e[i].bs;
		c->upto = ps->e[i].perc + (i && ps->e[i - 1].bs == c->bs ? pd->e[i - 1].upto : 0);
		c->ioprio = ps->e[i].ioprio < 0 ? cmd : ps->e[i].ioprio;
		c->stat = stat_of(&t->st, d, c->ioprio);
	}
	pd->n = ps->n;
}

int load_prio_start(struct load_thread *t)
{
	const struct load_job_opts *o = t->o;

	if (o->prio != LOAD_PRIO_UNSET || o->prioclass != LOAD_PRIO_UNSET) {
		t->prio.ioprio = ioprio_of(o->prioclass == LOAD_PRIO_UNSET ? 0 : o->prioclass,
					   o->prio == LOAD_PRIO_UNSET ? 0 : o->prio);
		/* Who 0: the calling thread, the job's alone. */
		if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, t->prio.ioprio))
			return -errno;
	}
	if (!per_io(o))
		return 0;
	t->st.prios = calloc(LOAD_DIRS * (LOAD_MAX_PRIO_SPLIT + 1), sizeof(*t->st.prios));
	if (!t->st.prios)
		return -ENOMEM;
	for (int d = 0; d < LOAD_DIRS; d++) {
		t->prio.dir[d].own = LOAD_PRIO_NO_STATS;
		plan_dir(t, d);
	}
	t->prio.per_io = true;
	return 0;
}

void load_prio_pick(struct load_thread *t, struct load_io *io)
{
	const struct load_prio_dir *pd = &t->prio.dir[io->dir];
	unsigned int r;

	io->ioprio = t->prio.ioprio;
	io->prio_stat = pd->own;
	if (!pd->n)
		return;
	r = load_rnd(t) % 100;
	for (unsigned int i = 0; i < pd->n; i++) {
		const struct load_prio_choice *c = &pd->e[i];

		if ((!c->bs || c->bs == io->len) && r < c->upto) {
			io->ioprio = c->ioprio;
			io->prio_stat = c->stat;
			return;
		}
	}
}

void load_prio_reset(struct load_stats *st)
{
	for (unsigned int i = 0; i < st->nprios; i++) {
		struct load_prio_stats *p = &st->prios[i];

		memset(&p->clat, 0, sizeof(p->clat));
		memset(p->hist, 0, sizeof(p->hist));
	}
}
